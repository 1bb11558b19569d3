// The API this server serves, built once at start: the storage backend, one store per generated
// resource definition (feature-gated ones only when their gate is on), content negotiation over
// the generated protobuf descriptors, discovery and OpenAPI. The server shell calls `handler` for
// every authenticated, authorized request.

import { BOOTSTRAP_TOKEN_NAMESPACE, BootstrapTokenAuthenticator } from '../auth/bootstrap-token.js';
import { alreadyExists, isStatusError } from '../errors/status-error.js';
import { startControllers } from '../controllers/index.js';
import { resources } from '../../generated/registry.js';
import type { ResourceDefinition } from '../registry/definition.js';
import type { CacherOptions } from '../registry/cacher/cacher.js';
import { ResourceRegistry } from '../registry/registry.js';
import type { ApiComponents, ApiContext, ApiFactory } from '../server/api-components.js';
import { notFoundHandler } from '../server/app.js';
import { resolveRuntimeConfig } from '../server/runtime-config.js';
import { openStorage } from '../storage/index.js';
import { Discovery } from './discovery.js';
import { bodyInit } from './handlers/context.js';
import { isPrettyPrint } from './negotiation.js';
import { createNegotiator } from './negotiator.js';
import { OpenAPIDocuments } from './openapi.js';
import { loadDescriptorRoot } from './protobuf/index.js';
import { createResourceHandler } from './resource-handler.js';
import { pathNotFound } from './routes.js';
import { generatedPath } from '../generated-files.js';

/** The namespaces kube-apiserver's bootstrap controller keeps in existence. */
export const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

const DESCRIPTORS = generatedPath('protobuf/descriptors.json');

/** kube-apiserver's default --event-ttl. */
export const DEFAULT_EVENT_TTL_MS = 60 * 60 * 1000;

export interface ApiOptions {
  /** How long the store keeps history for watches and continue tokens; default 5 minutes. */
  historyWindowMs?: number;
  /** Watch cache settings (its history window defaults to historyWindowMs); false turns the caches off. */
  watchCache?: CacherOptions | false;
  /** --min-request-timeout in seconds: watches without timeoutSeconds end after 1x to 2x this; default 1800. */
  minRequestTimeoutSeconds?: number;
  /** --event-ttl: Events are deleted this long after their last write; default 1 hour, 0 never. */
  eventTTLMs?: number;
  /** --enable-bootstrap-token-auth: bearer tokens backed by bootstrap-token Secrets in kube-system. */
  enableBootstrapTokenAuth?: boolean;
}

/** Bootstrap tokens read their Secret through the secrets store (a missing one is no token). */
function bootstrapTokenAuthenticator(registry: ResourceRegistry): BootstrapTokenAuthenticator | undefined {
  const secrets = registry.storeFor('', 'v1', 'secrets');
  if (!secrets) return undefined;
  return new BootstrapTokenAuthenticator(async (name) => {
    try {
      return await secrets.get(BOOTSTRAP_TOKEN_NAMESPACE, name);
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return undefined;
      throw err;
    }
  });
}

/**
 * kube-apiserver's system namespaces controller: read first, create only what is missing (an
 * AlreadyExists from a racing replica is fine). Reading first also keeps a restart from paying
 * for a write's managed-fields bookkeeping, which loads every OpenAPI schema.
 */
async function ensureSystemNamespaces(registry: ResourceRegistry): Promise<void> {
  const store = registry.storeFor('', 'v1', 'namespaces');
  if (!store) return;
  for (const name of SYSTEM_NAMESPACES) {
    if (await exists(() => store.get(undefined, name))) continue;
    try {
      await store.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch (err) {
      const exists = alreadyExists({ group: '', resource: 'namespaces' }, name);
      if (!(isStatusError(err) && err.reason === exists.reason)) throw err;
    }
  }
}

async function exists(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return true;
  } catch (err) {
    if (isStatusError(err) && err.code === 404) return false;
    throw err;
  }
}

export function createApi(apiOptions: ApiOptions = {}): ApiFactory {
  return async (context: ApiContext): Promise<ApiComponents> => {
    // Served: the group version (or the resource) is enabled by --runtime-config, and the kind's
    // feature gate, if any, is on; kube-apiserver requires both.
    const groupVersions = [...new Map(resources.map((d) => [`${d.group}/${d.version}`, { group: d.group, version: d.version }])).values()];
    const apiEnabled = resolveRuntimeConfig(context.runtimeConfig ?? {}, groupVersions);
    const definitions = resources.filter((d) => (!d.featureGate || context.featureGates.enabled(d.featureGate)) && apiEnabled(d.group, d.version, d.plural));
    const storage = openStorage({
      kind: context.storage,
      dataDir: context.dataDir,
      etcdServers: context.etcdServers,
      etcdPrefix: context.etcdPrefix,
      historyWindowMs: apiOptions.historyWindowMs,
      onFailure: (detail) => context.logger.error(detail),
    });
    // A window of 0 means the store never forgets; the cache then keeps history up to its event cap.
    const cacheWindowMs = apiOptions.historyWindowMs === 0 ? Number.POSITIVE_INFINITY : apiOptions.historyWindowMs;
    const watchCache = apiOptions.watchCache === false ? false : { historyWindowMs: cacheWindowMs, ...apiOptions.watchCache };
    const expiry = { events: apiOptions.eventTTLMs ?? DEFAULT_EVENT_TTL_MS };
    const registry = new ResourceRegistry(storage, definitions, { watchCache, featureGates: context.featureGates, expiry });
    await ensureSystemNamespaces(registry);
    const controllers = startControllers(registry);

    const byTarget = new Map(definitions.map((d) => [`${d.group}/${d.version}/${d.kind}`, d]));
    const cbor = context.featureGates.enabled('CBORServingAndStorage');
    const root = loadDescriptorRoot(DESCRIPTORS);
    const negotiator = createNegotiator({
      root,
      cbor,
      columnsFor: (t) => byTarget.get(`${t.group}/${t.version}/${t.kind}`)?.printerColumns,
    });
    const resourceHandler = createResourceHandler({
      registry,
      negotiator,
      config: {
        watchListEnabled: context.featureGates.enabled('WatchList'),
        responseCompression: context.featureGates.enabled('APIResponseCompression'),
        cbor,
        ...(apiOptions.minRequestTimeoutSeconds ? { minRequestTimeoutSeconds: apiOptions.minRequestTimeoutSeconds } : {}),
      },
    });

    const served = (def: ResourceDefinition) => [def.plural, ...def.subresources.map((s) => `${def.plural}/${s.name}`)];
    const servedResources = new Set(definitions.flatMap((d) => served(d).map((r) => `${d.group}/${d.version}/${r}`)));
    const discovery = new Discovery((group, version, resource) => servedResources.has(`${group}/${version}/${resource}`), root);
    const openapi = new OpenAPIDocuments(new Set(definitions.map((d) => (d.group ? `apis/${d.group}/${d.version}` : `api/${d.version}`))));

    // kube-apiserver's router has a web service at /api and at /apis/<group> of every served group:
    // a path below one that no route has is its 404 Status, elsewhere Go's plain-text 404.
    const servedGroups = new Set(definitions.map((d) => d.group).filter((g) => g !== ''));
    const claimedByRouter = (path: string): boolean => {
      const segments = path.split('/').filter((s) => s !== '');
      return (segments[0] === 'api' && segments.length > 1) || (segments[0] === 'apis' && segments.length > 1 && servedGroups.has(segments[1]));
    };

    const bootstrapTokens = apiOptions.enableBootstrapTokenAuth ? bootstrapTokenAuthenticator(registry) : undefined;

    return {
      ...(bootstrapTokens ? { tokenAuthenticators: [bootstrapTokens] } : {}),
      async handler(c) {
        const info = c.get('requestInfo');
        if (info.isResourceRequest) return resourceHandler(c.req.raw, info, c.get('user'));
        const accept = c.req.header('accept');
        const found = discovery.handle(info.path, accept, isPrettyPrint(c.req.query('pretty'), c.req.header('user-agent')));
        if (found) return new Response(bodyInit(found.body), { status: found.status, headers: { 'content-type': found.contentType, vary: 'Accept' } });
        const doc = openapi.handle(info.path, accept);
        if (doc) return new Response(doc.body, { status: doc.status, headers: doc.headers });
        if (claimedByRouter(info.path)) throw pathNotFound();
        return notFoundHandler(c);
      },
      async close() {
        controllers.close();
        await controllers.idle();
        await registry.namespaceDeleter?.idle();
        registry.close();
        await storage.close();
      },
    };
  };
}
