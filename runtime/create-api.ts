// The API this server serves, built once at start: the storage backend, one store per generated
// resource definition (feature-gated ones only when their gate is on), content negotiation over
// the generated protobuf descriptors, discovery and OpenAPI. The server shell calls `handler` for
// every authenticated, authorized request. It wires every layer (storage, registry, controllers,
// auth, api), so it lives in the runtime's entry beside startServer, above all of them.

import type { Authenticator } from './auth/authenticator.js';
import type { Authorizer } from './auth/authorizer.js';
import { BOOTSTRAP_TOKEN_NAMESPACE, BootstrapTokenAuthenticator } from './auth/bootstrap-token.js';
import { loadServiceAccountKeys } from './auth/service-account-keys.js';
import {
  DEFAULT_SERVICE_ACCOUNT_ISSUER,
  ServiceAccountTokenAuthenticator,
  ServiceAccountTokenSigner,
  type ObjectGetter,
} from './auth/service-account-token.js';
import type { KubeObject } from './machinery/object.js';
import type { Store } from './registry/store.js';
import { getObject } from './registry/get.js';
import { ServiceAccountIssuerDiscovery } from './api/service-account-issuer-discovery.js';
import { tokenRequestHandler } from './api/subresources/token-request.js';
import { alreadyExists, isStatusError } from './errors/status-error.js';
import { startControllers } from './controllers/index.js';
import { enabledControllers } from './controllers/controller-names.js';
import { watchRbacPolicy } from './controllers/rbac-policy.js';
import { watchNodeGraph } from './controllers/node-graph.js';
import { NodeAuthorizer } from './auth/node/authorizer.js';
import { RBACAuthorizer } from './auth/rbac/authorizer.js';
import { RuleResolver, type RoleRef } from './auth/rbac/rule-resolver.js';
import type { PolicyRule } from './auth/rbac/rules.js';
import { rbacEscalationPrevention } from './registry/admission/rbac-escalation.js';
import { nodeRestriction, type AudienceRestriction } from './registry/admission/node-restriction.js';
import { loadBootstrapPolicy, reconcileBootstrapPolicy } from './api/bootstrap-policy.js';
import { resources } from '../generated/registry.js';
import { groupVersionLifecycles, kindLifecycles } from '../generated/lifecycle.js';
import { APILifecycle } from './server/api-lifecycle.js';
import type { ResourceDefinition } from './registry/definition.js';
import type { CacherOptions } from './registry/cacher/cacher.js';
import { ResourceRegistry } from './registry/registry.js';
import { moveLegacyCRDKeys } from './registry/custom-resources/legacy-crd-keys.js';
import type { ServerAccess } from './registry/virtual/index.js';
import { storeComponent } from './registry/virtual/componentstatus.js';
import type { ApiComponents, ApiContext, ApiFactory } from './server/api-components.js';
import { notFoundHandler } from './server/app.js';
import type { HealthCheck, HealthChecks } from './server/health.js';
import { resolveRuntimeConfig } from './server/runtime-config.js';
import { openStorage } from './storage/index.js';
import type { Storage } from './storage/interface.js';
import { Discovery } from './api/discovery.js';
import { bodyInit } from './api/handlers/context.js';
import { isPrettyPrint } from './api/negotiation.js';
import { createNegotiator } from './api/negotiator.js';
import { OpenAPIDocuments } from './api/openapi.js';
import { LazyRoot } from './api/protobuf/index.js';
import { createResourceHandler } from './api/resource-handler.js';
import { pathNotFound } from './api/routes.js';
import { generatedPath } from './generated-files.js';
import { CustomResourceServing } from './controllers/crd-serving.js';
import { CRDFinalizer } from './controllers/crd-finalizer.js';
import type { SchemaCompiler } from './registry/custom-resources/definition.js';
import { compileSchema } from './validation/openapi-schema/index.js';
import { compileRules } from './validation/kube-cel/index.js';
import { deprecatedResourceKey } from './server/filters/deprecation.js';
import { Response } from './machinery/http/response.js';

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
  /** --controllers: which in-process controllers run (`*`, `name`, `-name`); default all. */
  controllers?: string[];
  /** Service account tokens, controllers and admission; false turns them all off. */
  serviceAccounts?: ServiceAccountOptions | false;
}

export interface ServiceAccountOptions {
  /** --service-account-issuer (repeatable): the first is written into tokens, all are accepted. */
  issuers?: string[];
  /** --service-account-signing-key-file; default a key made in the data dir on first start. */
  signingKeyFile?: string;
  /** --service-account-key-file (repeatable): verification keys; default the signing key. */
  keyFiles?: string[];
  /** --service-account-max-token-expiration in seconds; 0 or absent, no limit. */
  maxTokenExpirationSeconds?: number;
  /** --service-account-extend-token-expiration; default true. */
  extendTokenExpiration?: boolean;
  /** --service-account-jwks-uri; default this server's /openid/v1/jwks. */
  jwksUri?: string;
  /** --api-audiences; default the issuers. */
  apiAudiences?: string[];
}

/** Bootstrap tokens read their Secret through the secrets store (a missing one is no token). */
/** A store read where a missing object (or an unserved kind) is undefined. */
/**
 * An object or undefined, read from the watch cache (resourceVersion "0"), as kube's
 * authenticators read their informers: a token is checked on every request, never with a
 * storage read. Before the cache is ready, the storage answers.
 */
function getter(store: Store | undefined): ObjectGetter {
  return async (namespace, name) => {
    if (!store) return undefined;
    try {
      return await getObject(store, namespace || undefined, name, { resourceVersion: '0' });
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return undefined;
      throw err;
    }
  };
}

function bootstrapTokenAuthenticator(registry: ResourceRegistry): BootstrapTokenAuthenticator | undefined {
  const secrets = registry.storeFor('', 'v1', 'secrets');
  if (!secrets) return undefined;
  const secret = getter(secrets);
  return new BootstrapTokenAuthenticator((name) => secret(BOOTSTRAP_TOKEN_NAMESPACE, name));
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
    if (await storedOrUndefined(store, name)) continue;
    try {
      await store.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    } catch (err) {
      const exists = alreadyExists({ group: '', resource: 'namespaces' }, name);
      if (!(isStatusError(err) && err.reason === exists.reason)) throw err;
    }
  }
}

/**
 * The rules a binding's roleRef names, read from storage as kube's RBAC storage reads them (a
 * role created an instant before its binding is found), or the NotFound message.
 */
async function storedRoleRules(registry: ResourceRegistry, ref: RoleRef, namespace: string): Promise<{ rules: PolicyRule[] } | { error: string }> {
  const plural = ref.kind === 'Role' ? 'roles' : ref.kind === 'ClusterRole' ? 'clusterroles' : undefined;
  if (!plural) return { error: `unsupported role reference kind: ${JSON.stringify(ref.kind ?? '')}` };
  const store = registry.storeFor('rbac.authorization.k8s.io', 'v1', plural);
  if (!store) return { error: `${plural}.rbac.authorization.k8s.io ${JSON.stringify(ref.name ?? '')} not found` };
  try {
    const role = await store.get(plural === 'roles' ? namespace : undefined, ref.name ?? '');
    return { rules: (role.rules as PolicyRule[] | undefined) ?? [] };
  } catch (err) {
    if (isStatusError(err) && err.code === 404) return { error: err.message };
    throw err;
  }
}

/** The stored object (a Most Recent read: start-up must see what storage holds), or undefined. */
async function storedOrUndefined(store: Store, name: string): Promise<KubeObject | undefined> {
  try {
    return await store.get(undefined, name);
  } catch (err) {
    if (isStatusError(err) && err.code === 404) return undefined;
    throw err;
  }
}

export function createApi(apiOptions: ApiOptions = {}): ApiFactory {
  return async (context: ApiContext): Promise<ApiComponents> => {
    // Served: the group version (or the resource) is enabled by --runtime-config, and the kind's
    // feature gate, if any, is on; kube-apiserver requires both.
    // A kind removed by this release is never served, whatever --runtime-config names.
    const lifecycle = new APILifecycle(groupVersionLifecycles, kindLifecycles);
    const servable = resources.filter((d) => !lifecycle.isRemoved(d.group, d.version, d.kind));
    const groupVersions = [...new Map(servable.map((d) => [`${d.group}/${d.version}`, { group: d.group, version: d.version }])).values()];
    const apiEnabled = resolveRuntimeConfig(context.runtimeConfig ?? {}, groupVersions, lifecycle.runtimeConfigDefaults());
    const definitions = servable.filter((d) => (!d.featureGate || context.featureGates.enabled(d.featureGate)) && apiEnabled(d.group, d.version, d.plural));
    const storage = openStorage({
      kind: context.storage,
      dataDir: context.dataDir,
      etcdServers: context.etcdServers,
      etcdPrefix: context.etcdPrefix,
      etcdSecureContext: context.etcdSecureContext,
      historyWindowMs: apiOptions.historyWindowMs,
      onFailure: (detail) => context.logger.error(detail),
    });
    await moveLegacyCRDKeys(storage).catch((e: Error) => context.logger.error(`moving CustomResourceDefinitions to kube's storage prefix: ${e.message}`));
    // A window of 0 means the store never forgets; the cache then keeps history up to its event cap.
    const cacheWindowMs = apiOptions.historyWindowMs === 0 ? Number.POSITIVE_INFINITY : apiOptions.historyWindowMs;
    const watchCache = apiOptions.watchCache === false ? false : { historyWindowMs: cacheWindowMs, ...apiOptions.watchCache };
    const eventTTLMs = apiOptions.eventTTLMs ?? DEFAULT_EVENT_TTL_MS;
    const saOptions = apiOptions.serviceAccounts === false ? undefined : (apiOptions.serviceAccounts ?? {});
    // The RBAC policy lives in memory, fed by informers; escalation checks and the access reviews
    // ask the whole authorizer chain, which the shell builds after this and hands back through useAuthorizer.
    const rbac = new RuleResolver();
    let authorizer: Authorizer | undefined;
    const escalation = rbacEscalationPrevention({
      rulesFor: (user, namespace) => rbac.rulesFor(user, namespace),
      roleReferenceRules: (ref, namespace) => storedRoleRules(registry, ref, namespace),
      authorize: (attributes) => (authorizer ?? new RBACAuthorizer(rbac)).authorize(attributes),
    });
    const registry = new ResourceRegistry(storage, definitions, {
      watchCache,
      featureGates: context.featureGates,
      onDeclarativeValidationMismatch: (detail) => {
        context.logger.error(detail);
        context.onDeclarativeValidationMismatch?.();
      },
      eventTTLMs,
      serviceAccountAdmission: saOptions !== undefined,
      virtualContext: { components: [storeComponent(context.storage, storage)] },
      admission: [escalation, nodeRestriction({ getNode: (name): Promise<KubeObject | undefined> => getter(registry.storeFor('', 'v1', 'nodes'))('', name), featureEnabled: (gate) => context.featureGates.enabled(gate) })],
    });
    await ensureSystemNamespaces(registry);
    // kube-apiserver reconciles its default roles at every start, whatever the authorization mode.
    await reconcileBootstrapPolicy(registry, context.logger);
    const rbacPolicy = watchRbacPolicy(registry, rbac);
    const informersSynced = { rbac: false, nodeGraph: true };
    void rbacPolicy.ready.then(() => (informersSynced.rbac = true));
    // The Node authorizer's graph is fed only when the mode is in use: the factory starts it.
    let nodeGraph: ReturnType<typeof watchNodeGraph> | undefined;
    // NodeRestriction's token audience check asks the whole authorizer chain, handed back later.
    const audienceAuthorizer: Authorizer = { authorize: (attributes) => (authorizer ?? new RBACAuthorizer(rbac)).authorize(attributes) };
    const serviceAccounts =
      saOptions && serviceAccountParts(saOptions, context.dataDir, registry, context.featureGates.enabled('ServiceAccountNodeAudienceRestriction') ? audienceAuthorizer : undefined);
    let listening: (url: string) => void = () => {};
    const servingUrl = new Promise<string>((resolve) => (listening = resolve));
    const controllers = startControllers(registry, {
      enabled: enabledControllers(apiOptions.controllers),
      ...(serviceAccounts ? { serviceAccounts: { signer: serviceAccounts.signer, rootCa: context.rootCa ?? '' } } : {}),
      bootstrapTokens: { logger: context.logger, cluster: servingUrl.then((server) => ({ server, caPem: context.rootCa ?? '' })) },
    });

    let byTarget = new Map(definitions.map((d) => [`${d.group}/${d.version}/${d.kind}`, d]));
    const cbor = context.featureGates.enabled('CBORServingAndStorage');
    const root = new LazyRoot(DESCRIPTORS);
    const negotiator = createNegotiator({
      root,
      cbor,
      columnsFor: (t) => byTarget.get(`${t.group}/${t.version}/${t.kind}`)?.printerColumns,
    });
    // The reviews ask the shell's chains, which exist only once this API is built (RBAC reads it).
    let authentication: { authenticator: Authenticator; apiAudiences: string[] } | undefined;
    const access = (): ServerAccess | undefined => (authorizer && authentication ? { authorizer, ...authentication } : undefined);
    const resourceHandler = createResourceHandler({
      registry,
      access,
      negotiator,
      ...(serviceAccounts ? { subresourceHandlers: { token: serviceAccounts.tokenHandler } } : {}),
      config: {
        watchListEnabled: context.featureGates.enabled('WatchList'),
        responseCompression: context.featureGates.enabled('APIResponseCompression'),
        cbor,
        authorizeWithSelectors: context.featureGates.enabled('AuthorizeWithSelectors'),
        metrics: context.metrics,
        logger: context.logger,
        ...(apiOptions.minRequestTimeoutSeconds ? { minRequestTimeoutSeconds: apiOptions.minRequestTimeoutSeconds } : {}),
      },
    });

    const served = (def: ResourceDefinition) => [def.plural, ...def.subresources.map((s) => `${def.plural}/${s.name}`)];
    const servedResources = new Set(definitions.flatMap((d) => served(d).map((r) => `${d.group}/${d.version}/${r}`)));
    // The discovery documents (some fifty files of generated/) are read when first asked for, not
    // while the server starts; from then on they follow the custom resources.
    let discovery: Discovery | undefined;
    const discoveryDocuments = (): Discovery => {
      if (discovery) return discovery;
      discovery = new Discovery((group, version, resource) => servedResources.has(`${group}/${version}/${resource}`), root);
      discovery.setCustomResources(registry.addedDefinitions);
      return discovery;
    };
    const openapi = new OpenAPIDocuments(new Set(definitions.map((d) => (d.group ? `apis/${d.group}/${d.version}` : `api/${d.version}`))));
    const deprecatedResources = lifecycle.deprecatedResources(definitions);

    // What is built from the served resources follows the custom resources as they come and go.
    registry.onChange(({ added, removed }) => {
      const all = registry.definitions;
      byTarget = new Map(all.map((d) => [`${d.group}/${d.version}/${d.kind}`, d]));
      discovery?.setCustomResources(registry.addedDefinitions);
      openapi.setCustomResources(registry.addedDefinitions);
      for (const def of removed) {
        for (const r of served(def)) deprecatedResources.delete(`${def.group}/${def.version}/${r}`);
      }
      for (const def of added) {
        if (def.deprecationWarning === undefined) continue;
        const entry = { warning: def.deprecationWarning, removedRelease: '' };
        deprecatedResources.set(deprecatedResourceKey(def.group, def.version, def.plural), entry);
        for (const sub of def.subresources) deprecatedResources.set(deprecatedResourceKey(def.group, def.version, def.plural, sub.name), entry);
      }
    });
    const customResources = new CustomResourceServing(registry, compileCustomResourceSchema);
    customResources.start();
    const crdFinalizer = new CRDFinalizer(registry);
    crdFinalizer.start();
    // kube-apiserver's router has a web service at /api and at /apis/<group> of every served group:
    // a path below one that no route has is its 404 Status, elsewhere Go's plain-text 404.
    const claimedByRouter = (path: string): boolean => {
      const segments = path.split('/').filter((s) => s !== '');
      return (segments[0] === 'api' && segments.length > 1) || (segments[0] === 'apis' && segments.length > 1 && registry.servesGroup(segments[1]));
    };

    const bootstrapTokens = apiOptions.enableBootstrapTokenAuth ? bootstrapTokenAuthenticator(registry) : undefined;

    const tokenAuthenticators = [...(bootstrapTokens ? [bootstrapTokens] : []), ...(serviceAccounts ? [serviceAccounts.authenticator] : [])];

    // The informers of the controllers and of the authorizers' policy stop once, before the
    // clients' watches end: a watch ending under a live informer makes it list again.
    let controllersStopped = false;
    const stopControllers = (): void => {
      if (controllersStopped) return;
      controllersStopped = true;
      rbacPolicy.close();
      nodeGraph?.close();
      customResources.close();
      crdFinalizer.close();
      controllers.close();
    };

    return {
      deprecatedResources,
      objectCounts: () => registry.objectCounts(),
      serves: (group, version, resource) => registry.storeFor(group, version, resource) !== undefined || registry.virtualFor(group, version, resource) !== undefined,
      tokenAuthenticators,
      authorizerFactories: {
        RBAC: async () => {
          await rbacPolicy.ready;
          return new RBACAuthorizer(rbac);
        },
        Node: async () => {
          if (!nodeGraph) {
            nodeGraph = watchNodeGraph(registry);
            informersSynced.nodeGraph = false;
            void nodeGraph.ready.then(() => (informersSynced.nodeGraph = true));
          }
          await nodeGraph.ready;
          return new NodeAuthorizer(nodeGraph.graph, {
            rules: nodeRules(context.featureGates),
            withSelectors: context.featureGates.enabled('AuthorizeWithSelectors') && context.featureGates.enabled('AuthorizeNodeWithSelectors'),
          });
        },
      },
      healthChecks: storeHealthChecks(storage, () => informersSynced.rbac && informersSynced.nodeGraph, () => customResources.synced),
      useAuthorizer(chain) {
        authorizer = chain;
      },
      serving(url) {
        listening(url);
      },
      useAuthenticator(chain, apiAudiences) {
        authentication = { authenticator: chain, apiAudiences };
      },
      // Not async: a GET the watch cache answers leaves here as a Response, with no promise.
      handler(c) {
        const info = c.get('requestInfo');
        if (info.isResourceRequest) return resourceHandler(c.req.raw, info, c.get('user'), c.get('auditRequestObject'), c.env?.outgoing, c.env?.incoming);
        const issuerDocument = serviceAccounts?.discovery?.handle(info.path, new URL(c.req.url).origin);
        if (issuerDocument) return issuerDocument;
        const accept = c.req.header('accept');
        const found = discoveryDocuments().handle(info.path, accept, isPrettyPrint(c.req.query('pretty'), c.req.header('user-agent')));
        if (found) return new Response(bodyInit(found.body), { status: found.status, headers: { 'content-type': found.contentType, vary: 'Accept' } });
        const doc = openapi.handle(info.path, accept);
        if (doc) return new Response(doc.body, { status: doc.status, headers: doc.headers });
        if (claimedByRouter(info.path)) throw pathNotFound();
        return notFoundHandler(c);
      },
      stopControllers,
      terminateWatches() {
        registry.terminateWatches();
      },
      async close() {
        stopControllers();
        await controllers.idle();
        await registry.namespaceDeleter?.idle();
        registry.close();
        await storage.close();
      },
    };
  };
}

/** One version's schema compiled for serving its custom resources: structural checks, defaults, pruning, then its CEL rules. */
const compileCustomResourceSchema: SchemaCompiler = (schema) => ({ schema: compileSchema(schema), rules: compileRules(schema, '').rules });

/** kube's --etcd-healthcheck-timeout and --etcd-readycheck-timeout defaults. */
const STORE_CHECK_TIMEOUT_MS = 2_000;

/**
 * kube-apiserver's store and informer checks: `etcd` on livez and readyz and `etcd-readiness` on
 * readyz fail while the store cannot be reached (SQLite and memory are in the process: always
 * reachable); `informer-sync` until the informers the authorizers read have listed;
 * `poststarthook/rbac/bootstrap-roles`, which ran before the server listened.
 */
function storeHealthChecks(storage: Storage, informersSynced: () => boolean, crdsServed: () => boolean): Partial<HealthChecks> {
  const reachable = () => storage.healthCheck?.(STORE_CHECK_TIMEOUT_MS);
  const etcd: HealthCheck = { name: 'etcd', check: reachable };
  const bootstrapRoles: HealthCheck = { name: 'poststarthook/rbac/bootstrap-roles', check: () => {} };
  // kube's apiextensions post-start hook: custom resources stored before a restart are served again.
  const crdInformerSynced: HealthCheck = {
    name: 'poststarthook/crd-informer-synced',
    check: () => {
      if (!crdsServed()) throw new Error('not finished');
    },
  };
  return {
    livez: [etcd, crdInformerSynced, bootstrapRoles],
    healthz: [etcd, crdInformerSynced, bootstrapRoles],
    readyz: [
      etcd,
      { name: 'etcd-readiness', check: reachable },
      {
        name: 'informer-sync',
        check: () => {
          if (!informersSynced()) throw new Error('informers not started yet');
        },
      },
      crdInformerSynced,
      bootstrapRoles,
    ],
  };
}

/**
 * What every node may do on resources the Node authorizer does not subdivide: the system:node
 * role of the default policy (kube's NodeRules), plus the DRA rules when DRA is on.
 */
function nodeRules(featureGates: { enabled(gate: string): boolean }): PolicyRule[] {
  const role = loadBootstrapPolicy().clusterRoles.find((r) => metaName(r) === 'system:node');
  const rules = [...((role?.rules as PolicyRule[] | undefined) ?? [])];
  if (featureGates.enabled('DynamicResourceAllocation')) {
    rules.push({ apiGroups: ['resource.k8s.io'], resources: ['resourceclaims'], verbs: ['get'] });
    rules.push({ apiGroups: ['resource.k8s.io'], resources: ['resourceslices'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'] });
  }
  if (featureGates.enabled('ClusterTrustBundle')) {
    rules.push({ apiGroups: ['certificates.k8s.io'], resources: ['clustertrustbundles'], verbs: ['get', 'list', 'watch'] });
  }
  return rules;
}

const metaName = (obj: KubeObject): string | undefined => obj.metadata?.name;

/** What ServiceAccountNodeAudienceRestriction reads, from the watch cache as kube's listers do. */
function audienceRestriction(registry: ResourceRegistry, authorizer: Authorizer): AudienceRestriction {
  const claims = getter(registry.storeFor('', 'v1', 'persistentvolumeclaims'));
  const volumes = getter(registry.storeFor('', 'v1', 'persistentvolumes'));
  const drivers = getter(registry.storeFor('storage.k8s.io', 'v1', 'csidrivers'));
  return {
    getClaim: (namespace, name) => claims(namespace, name),
    getVolume: (name) => volumes('', name),
    getCSIDriver: (name) => drivers('', name),
    authorize: (attributes) => authorizer.authorize(attributes),
  };
}

/** Everything service account tokens need, from the --service-account-* settings. */
function serviceAccountParts(options: ServiceAccountOptions, dataDir: string, registry: ResourceRegistry, audienceAuthorizer?: Authorizer) {
  const keys = loadServiceAccountKeys({ dataDir, signingKeyFile: options.signingKeyFile, keyFiles: options.keyFiles });
  const signer = new ServiceAccountTokenSigner(keys);
  const issuers = options.issuers?.length ? options.issuers : [DEFAULT_SERVICE_ACCOUNT_ISSUER];
  const audiences = options.apiAudiences?.length ? options.apiAudiences : issuers;
  const store = (plural: string) => registry.storeFor('', 'v1', plural);
  const nodes = getter(store('nodes'));
  const authenticator = new ServiceAccountTokenAuthenticator({
    keys,
    issuers,
    audiences,
    objects: {
      serviceAccount: getter(store('serviceaccounts')),
      pod: getter(store('pods')),
      secret: getter(store('secrets')),
      node: (name: string): Promise<KubeObject | undefined> => nodes('', name),
    },
  });
  const tokenHandler = tokenRequestHandler({
    signer,
    issuer: issuers[0],
    audiences,
    maxExpirationSeconds: options.maxTokenExpirationSeconds ?? 0,
    extendExpiration: options.extendTokenExpiration ?? true,
    pods: store('pods'),
    secrets: store('secrets'),
    nodes: store('nodes'),
    ...(audienceAuthorizer ? { audienceRestriction: audienceRestriction(registry, audienceAuthorizer) } : {}),
  });
  // kube-apiserver serves discovery only for an issuer that is an https URL.
  const discovery = issuers[0].startsWith('https://') ? new ServiceAccountIssuerDiscovery(issuers[0], keys, options.jwksUri) : undefined;
  return { signer, authenticator, tokenHandler, discovery };
}
