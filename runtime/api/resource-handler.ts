// The entry the server calls for resource requests: finds the store for the RequestInfo's group,
// version and resource, checks the verb against the definition, and hands over to the verb's
// handler. Paths and methods kube-apiserver has no route for get its router's 404 and 405
// (routes.ts), or Go's plain-text 404 below groups it does not serve; every other failure leaves
// as a Status. Virtual subresources (pods/eviction) go to their named handler, virtual kinds to
// their operation (a review's create) or view (ComponentStatus's get and list).

import type { UserInfo } from '../auth/user.js';
import { StatusError, badRequest, methodNotSupported } from '../errors/status-error.js';
import type { ResourceDefinition, Verb } from '../registry/definition.js';
import type { ResourceRegistry } from '../registry/registry.js';
import type { Store } from '../registry/store.js';
import type { ServerAccess, VirtualResource } from '../registry/virtual/index.js';
import type { RequestInfo } from '../machinery/request-info.js';
import { createResource } from './handlers/create.js';
import type { HandlerConfig, HandlerContext, NodeRequest, RequestObjectRecorder } from './handlers/context.js';
import { DEFAULT_HANDLER_CONFIG, errorResponse, requestHints } from './handlers/context.js';
import { deleteCollectionResource, deleteResource } from './handlers/delete.js';
import { getResource } from './handlers/get.js';
import { listResource } from './handlers/list.js';
import { patchResource } from './handlers/patch.js';
import { updateResource } from './handlers/update.js';
import { createVirtual } from './handlers/virtual-create.js';
import { readVirtual } from './handlers/virtual-read.js';
import { watchResource } from './handlers/watch.js';
import type { WatchResponseSink } from './handlers/watch-body.js';
import { checkRoute, pathNotFound } from './routes.js';
import { SUBRESOURCE_HANDLERS, type SubresourceHandler } from './subresources/index.js';
import { jsonNegotiator, type BodyTarget, type Negotiator } from './serialization.js';
import { Response } from '../machinery/http/response.js';

export interface ResourceHandlerOptions {
  registry: ResourceRegistry;
  /** The server's authenticator and authorizer, which the reviews ask; bound once the shell has built them. */
  access?: () => ServerAccess | undefined;
  negotiator?: Negotiator;
  config?: Partial<HandlerConfig>;
  /** Subresource handlers built at start, with what they need (the token handler's signer), by name. */
  subresourceHandlers?: Record<string, SubresourceHandler>;
}

/** `user` is the authenticated caller; virtual kinds (SelfSubjectReview) answer with it. */
/** `recordRequestObject`, when auditing, is shown each decoded request object (kube's audit.LogRequestObject). */
/** A Response rather than a promise when the answer is at hand (a GET the watch cache serves). */
/** `response` is node's response, when there is one: watches write their events to it directly. */
/**
 * `incoming` is node's request, when there is one: bodies are read from it, and its target is
 * where the query is read (routing and request info read it too).
 */
export type ResourceHandler = (
  request: Request,
  info: RequestInfo,
  user?: UserInfo,
  recordRequestObject?: RequestObjectRecorder,
  response?: WatchResponseSink,
  incoming?: NodeRequest,
) => Response | Promise<Response>;

type VerbHandler = (ctx: HandlerContext) => Response | Promise<Response>;

const HANDLERS: Record<Verb, VerbHandler> = {
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

/** What one request is served with, found before its handler is chosen. */
interface Served {
  request: Request;
  info: RequestInfo;
  user?: UserInfo;
  recordRequestObject?: RequestObjectRecorder;
  response?: WatchResponseSink;
  incoming?: NodeRequest;
  store?: Store;
  virtual?: VirtualResource;
  def?: ResourceDefinition;
  target: BodyTarget;
  accept?: string;
  query: URLSearchParams;
}

export function createResourceHandler(options: ResourceHandlerOptions): ResourceHandler {
  const negotiator = options.negotiator ?? jsonNegotiator;
  const config: HandlerConfig = { ...DEFAULT_HANDLER_CONFIG, ...options.config };
  const subresourceHandlers = { ...SUBRESOURCE_HANDLERS, ...options.subresourceHandlers };

  /** The verb's (or subresource's, or virtual kind's) handler; throws the refusals before it. */
  const dispatch = ({ request, incoming, info, user, recordRequestObject, response, store, virtual, def, target, accept, query }: Served): Response | Promise<Response> => {
    if (!def) throw pathNotFound();
    checkRoute(def, info, request.method);
    if (virtual?.view) {
      if (!def.verbs.includes(info.verb as Verb)) throw methodNotSupported({ group: def.group, resource: def.plural }, info.verb);
      checkNameParameter(info.name);
      return readVirtual({ request, incoming, config, info, store: virtual, negotiator, query, target, warnings: [], recordRequestObject }, virtual.view);
    }
    if (virtual?.create) {
      // As kube-apiserver's review REST: an operation about the caller needs one.
      if (!user) throw badRequest('no user present on request');
      negotiator.checkAccept(accept, target);
      return createVirtual({ request, incoming, config, info, store: virtual, negotiator, query, target, warnings: [], recordRequestObject }, virtual.create, user, options.access?.());
    }
    if (!store) throw pathNotFound();
    const verb = info.verb as Verb;
    const handler = HANDLERS[verb];
    if (info.subresource) {
      const sub = def.subresources.find((s) => s.name === info.subresource)!;
      target.kind = sub.kind;
      if (sub.group !== undefined && sub.version !== undefined) {
        target.group = sub.group;
        target.version = sub.version;
      }
      if (sub.handler) {
        const serve = subresourceHandlers[sub.handler];
        if (!serve) throw new Error(`${def.plural}/${sub.name}: unknown subresource handler "${sub.handler}"`);
        if (WRITES.has(verb)) negotiator.checkAccept(accept, target);
        checkNameParameter(info.name);
        return serve({ request, incoming, config, info, store, negotiator, query, target, warnings: [], user, recordRequestObject });
      }
    } else if (!def.verbs.includes(verb)) {
      // The list route asked to watch (?watch=true) a kind that cannot: the list handler's refusal.
      throw methodNotSupported({ group: def.group, resource: def.plural }, verb);
    } else if (verb === 'create' && def.createRefusal !== undefined) {
      const refused = methodNotSupported({ group: def.group, resource: def.plural }, verb);
      throw new StatusError(refused.code, refused.reason, def.createRefusal, refused.details);
    }
    if (WRITES.has(verb)) negotiator.checkAccept(accept, target);
    checkNameParameter(info.name);
    return handler({ request, incoming, config, info, store, negotiator, query, target, warnings: [], user, recordRequestObject, response });
  };

  return (request, info, user, recordRequestObject, response, incoming) => {
    const store = options.registry.storeFor(info.apiGroup, info.apiVersion, info.resource);
    const virtual = store ? undefined : options.registry.virtualFor(info.apiGroup, info.apiVersion, info.resource);
    const def = store?.definition ?? virtual?.definition;
    const target: BodyTarget = { group: info.apiGroup, version: info.apiVersion, kind: def?.kind ?? 'Status' };
    const accept = request.headers.get('accept') ?? undefined;
    const query = queryOf(incoming?.url ?? request.url);
    // kube-apiserver's router claims /api and /apis/<group> of each group it serves (any version);
    // below anything else nothing answers but Go's plain-text NotFound.
    if (!def && info.apiPrefix === 'apis' && !options.registry.servesGroup(info.apiGroup)) return goNotFound();
    const failed = (err: unknown) => errorResponse(err, negotiator, accept, target, requestHints(request, query));
    let res: Response | Promise<Response>;
    try {
      res = dispatch({ request, incoming, info, user, recordRequestObject, response, store, virtual, def, target, accept, query });
    } catch (err) {
      return failed(err);
    }
    return res instanceof Promise ? res.catch(failed) : res;
  };
}

/** Go's http.NotFound, which answers paths below a group kube-apiserver does not serve. */
function goNotFound(): Response {
  return new Response('404 page not found\n', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' } });
}

/**
 * The registry's key functions refuse a name that cannot be one path segment of a storage key
 * (path.IsValidPathSegmentName): `.`, `..`, or one holding `/` or `%` (from %2F, %25).
 */
function checkNameParameter(name: string): void {
  // The common case (every request names a valid object or none) without building the lists.
  if (!name.includes('/') && !name.includes('%') && name !== '.' && name !== '..') return;
  let problems: string[];
  if (name === '.' || name === '..') problems = [`may not be '${name}'`];
  else problems = ['/', '%'].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`);
  if (problems.length) throw badRequest(`Name parameter invalid: ${JSON.stringify(name)}: ${problems.join(';')}`);
}

/** The URL's query parameters, without parsing the rest of a URL that is already well formed. */
function queryOf(url: string): URLSearchParams {
  const start = url.indexOf('?');
  if (start < 0) return new URLSearchParams();
  const hash = url.indexOf('#', start);
  return new URLSearchParams(hash < 0 ? url.slice(start + 1) : url.slice(start + 1, hash));
}
