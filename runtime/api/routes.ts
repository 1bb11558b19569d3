// The routes kube-apiserver's endpoint installer gives a served resource, as HTTP methods per
// path: the collection (list, create, deletecollection), the object (get, update, patch,
// delete), each subresource, the deprecated watch/ paths, and for namespaced kinds the list
// across all namespaces. A path no route has is a 404 and a method its path lacks a 405, both
// from the router (go-restful) before any handler runs, so they name no resource.

import { StatusError } from '../errors/status-error.js';
import type { ResourceDefinition, Verb } from '../registry/definition.js';
import type { RequestInfo } from '../machinery/request-info.js';

/** The router's 404: no route has the path. */
export function pathNotFound(): StatusError {
  return new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** The router's 405: the path has routes, none for this method. */
export function methodNotAllowed(): StatusError {
  return new StatusError(405, 'MethodNotAllowed', 'the server does not allow this method on the requested resource', {});
}

const METHOD_OF: Record<Verb, string> = { get: 'GET', list: 'GET', watch: 'GET', create: 'POST', update: 'PUT', patch: 'PATCH', delete: 'DELETE', deletecollection: 'DELETE' };

/** The path below the group version, as the router matches it. */
function segmentsBelowVersion(info: RequestInfo): string[] {
  const { path } = info;
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === 0x2f) start++;
  while (end > start && path.charCodeAt(end - 1) === 0x2f) end--;
  return path.slice(start, end).split('/').slice(info.apiPrefix === 'api' ? 2 : 3);
}

/** Where in the resource's routes a path falls, or undefined when none of them has it. */
type Place = { at: 'collection' | 'allNamespaces' | 'object' } | { at: 'subresource'; name: string; verbs: readonly Verb[] };

const COLLECTION: Place = { at: 'collection' };
const ALL_NAMESPACES: Place = { at: 'allNamespaces' };
const OBJECT: Place = { at: 'object' };

function placeOf(def: ResourceDefinition, segments: string[]): Place | undefined {
  let rest: string[];
  if (def.namespaced) {
    if (segments.length === 1 && segments[0] === def.plural) return ALL_NAMESPACES;
    if (segments.length < 3 || segments[0] !== 'namespaces' || segments[2] !== def.plural) return undefined;
    rest = segments.slice(3);
  } else {
    if (segments[0] !== def.plural) return undefined;
    rest = segments.slice(1);
  }
  if (rest.length === 0) return COLLECTION;
  if (rest.length === 1) return OBJECT;
  const sub = rest.length === 2 ? def.subresources.find((s) => s.name === rest[1]) : undefined;
  return sub ? { at: 'subresource', name: sub.name, verbs: sub.verbs } : undefined;
}

function methodsOf(def: ResourceDefinition, place: Place, watchPath: boolean): string[] {
  const has = (v: Verb) => def.verbs.includes(v);
  let verbs: Verb[];
  if (place.at === 'subresource') {
    verbs = watchPath ? [] : [...place.verbs];
  } else if (watchPath) {
    // The deprecated watch/ paths: of an object, or of a collection the kind can also list.
    const watchable = place.at === 'object' ? has('watch') : has('watch') && has('list');
    verbs = watchable ? ['watch'] : [];
  } else {
    const candidates: Verb[] = place.at === 'object' ? ['get', 'update', 'patch', 'delete'] : place.at === 'collection' ? ['list', 'create', 'deletecollection'] : ['list'];
    verbs = candidates.filter(has);
  }
  return verbs.map((v) => METHOD_OF[v]);
}

/** Each resource's methods per place, worked out on first use: a definition does not change. */
const methodsByDefinition = new WeakMap<ResourceDefinition, Map<string, string[]>>();

function knownMethods(def: ResourceDefinition, place: Place, watchPath: boolean): string[] {
  let byPlace = methodsByDefinition.get(def);
  if (!byPlace) methodsByDefinition.set(def, (byPlace = new Map()));
  const key = place.at === 'subresource' ? `${watchPath ? 'watch/' : ''}subresource/${place.name}` : watchPath ? `watch/${place.at}` : place.at;
  let methods = byPlace.get(key);
  if (!methods) byPlace.set(key, (methods = methodsOf(def, place, watchPath)));
  return methods;
}

/**
 * Throws the router's answer when the request's path and method have no route for `def`; HEAD
 * is taken as GET, as the handlers take it.
 */
export function checkRoute(def: ResourceDefinition, info: RequestInfo, method: string): void {
  let segments = segmentsBelowVersion(info);
  const watchPath = segments[0] === 'watch';
  if (watchPath) segments = segments.slice(1);
  const place = placeOf(def, segments);
  const methods = place ? knownMethods(def, place, watchPath) : [];
  if (methods.length === 0) throw pathNotFound();
  const upper = method.toUpperCase();
  if (!methods.includes(upper === 'HEAD' ? 'GET' : upper)) throw methodNotAllowed();
}
