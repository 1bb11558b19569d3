// The entry the server calls for resource requests: finds the store for the RequestInfo's group,
// version and resource, checks the verb against the definition, and hands over to the verb's
// handler. Every failure leaves as a Status (404 for unknown resources, 405 for verbs the
// resource does not serve). Virtual subresources (pods/eviction) go to their named handler.

import type { UserInfo } from '../auth/user.js';
import { StatusError, badRequest, methodNotSupported, notFound } from '../errors/status-error.js';
import type { Verb } from '../registry/definition.js';
import type { ResourceRegistry } from '../registry/registry.js';
import type { RequestInfo } from '../server/request-info.js';
import { createResource } from './handlers/create.js';
import type { HandlerConfig, HandlerContext } from './handlers/context.js';
import { DEFAULT_HANDLER_CONFIG, errorResponse, requestHints } from './handlers/context.js';
import { deleteCollectionResource, deleteResource } from './handlers/delete.js';
import { getResource } from './handlers/get.js';
import { listResource } from './handlers/list.js';
import { patchResource } from './handlers/patch.js';
import { updateResource } from './handlers/update.js';
import { createVirtual } from './handlers/virtual-create.js';
import { watchResource } from './handlers/watch.js';
import { SUBRESOURCE_HANDLERS } from './subresources/index.js';
import { jsonNegotiator, type BodyTarget, type Negotiator } from './serialization.js';

export interface ResourceHandlerOptions {
  registry: ResourceRegistry;
  negotiator?: Negotiator;
  config?: Partial<HandlerConfig>;
}

/** `user` is the authenticated caller; virtual kinds (SelfSubjectReview) answer with it. */
export type ResourceHandler = (request: Request, info: RequestInfo, user?: UserInfo) => Promise<Response>;

const HANDLERS: Record<Verb, (ctx: HandlerContext) => Promise<Response>> = {
  get: getResource,
  list: listResource,
  watch: watchResource,
  create: createResource,
  update: updateResource,
  patch: patchResource,
  delete: deleteResource,
  deletecollection: deleteCollectionResource,
};

/** Verbs whose response must be negotiable before they change anything (reads fail in encodeResponse alone). */
const WRITES = new Set<Verb>(['create', 'update', 'patch', 'delete', 'deletecollection']);

/** kube-apiserver's HTTP verb in the 405 message (`PUT is not supported ...`). */
const HTTP_VERB: Record<string, string> = {
  get: 'GET', list: 'GET', watch: 'GET', create: 'POST', update: 'PUT', patch: 'PATCH', delete: 'DELETE', deletecollection: 'DELETE',
};

export function createResourceHandler(options: ResourceHandlerOptions): ResourceHandler {
  const negotiator = options.negotiator ?? jsonNegotiator;
  const config: HandlerConfig = { ...DEFAULT_HANDLER_CONFIG, ...options.config };
  return async (request, info, user) => {
    const store = options.registry.storeFor(info.apiGroup, info.apiVersion, info.resource);
    const virtual = store ? undefined : options.registry.virtualFor(info.apiGroup, info.apiVersion, info.resource);
    const def = store?.definition ?? virtual?.definition;
    const target: BodyTarget = { group: info.apiGroup, version: info.apiVersion, kind: def?.kind ?? 'Status' };
    const accept = request.headers.get('accept') ?? undefined;
    const query = new URL(request.url).searchParams;
    try {
      if (virtual) {
        const ctx = { request, config, info, store: virtual, negotiator, query, target, warnings: [] };
        // Only the collection's POST route exists: other methods there are 405, any other path 404.
        if (info.name || info.subresource || (info.namespace && !virtual.definition.namespaced)) throw pathNotFound();
        if (info.verb !== 'create') throw methodNotAllowed();
        // As kube-apiserver's review REST: an operation about the caller needs one.
        if (!user) throw badRequest('no user present on request');
        negotiator.checkAccept(accept, target);
        return await createVirtual(ctx, virtual, user);
      }
      if (!store || !def) throw notFound({ group: info.apiGroup, resource: info.resource }, '');
      const verb = info.verb as Verb;
      const handler = HANDLERS[verb];
      if (!handler) throw methodNotSupported({ group: def.group, resource: def.plural }, request.method);
      if (info.subresource) {
        const sub = def.subresources.find((s) => s.name === info.subresource);
        // No route serves it (a `..` left in the path is just an unknown subresource here).
        if (!sub) throw pathNotFound();
        if (!sub.verbs.includes(verb)) throw methodNotSupported({ group: def.group, resource: `${def.plural}/${sub.name}` }, HTTP_VERB[verb] ?? request.method);
        target.kind = sub.kind;
        if (sub.group !== undefined && sub.version !== undefined) {
          target.group = sub.group;
          target.version = sub.version;
        }
        if (sub.handler) {
          const serve = SUBRESOURCE_HANDLERS[sub.handler];
          if (!serve) throw new Error(`${def.plural}/${sub.name}: unknown subresource handler "${sub.handler}"`);
          if (WRITES.has(verb)) negotiator.checkAccept(accept, target);
          checkNameParameter(info.name);
          return await serve({ request, config, info, store, negotiator, query, target, warnings: [] });
        }
      } else if (!def.verbs.includes(verb)) {
        throw methodNotSupported({ group: def.group, resource: def.plural }, HTTP_VERB[verb] ?? request.method);
      }
      if (def.namespaced && !info.namespace && !['list', 'watch', 'deletecollection'].includes(verb)) {
        throw notFound({ group: def.group, resource: def.plural }, info.name);
      }
      if (WRITES.has(verb)) negotiator.checkAccept(accept, target);
      checkNameParameter(info.name);
      return await handler({ request, config, info, store, negotiator, query, target, warnings: [] });
    } catch (err) {
      return errorResponse(err, negotiator, accept, target, requestHints(request, query));
    }
  };
}

/**
 * The registry's key functions refuse a name that cannot be one path segment of a storage key
 * (path.IsValidPathSegmentName): `.`, `..`, or one holding `/` or `%` (from %2F, %25).
 */
function checkNameParameter(name: string): void {
  let problems: string[];
  if (name === '.' || name === '..') problems = [`may not be '${name}'`];
  else problems = ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
  if (problems.length) throw badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${problems.join(';')}`);
}

/** What kube-apiserver answers for a path it has no route for (its routes are per verb and path). */
function pathNotFound(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** A method the path has no route for: go-restful's 405, turned into a Status by kube-apiserver. */
function methodNotAllowed(): StatusError {
  return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}
