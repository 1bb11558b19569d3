// RequestInfo: what a request addresses, read from its method and URL alone, exactly as
// k8s.io/apiserver's RequestInfoFactory reads it. Authorization, audit, the long-running check
// and the REST handlers all work from this one answer.
//
// Resource paths (everything else is a non-resource request whose verb is the lowercased method):
//   /api/{version}/{resource}[/{name}[/{subresource}...]]
//   /api/{version}/namespaces/{namespace}/{resource}[/{name}[/{subresource}...]]
//   /apis/{group}/{version}/... the same shapes below a group
//   /api/{version}/namespaces/{name}[/status|/finalize]   the namespace itself and its subresources
//   /api/{version}/watch/...                             the legacy watch prefix
//   /api/{version}/proxy/...                             the legacy proxy prefix (no subresources)

import { parseFieldSelectorTerms, requiredExactMatch } from './selectors/field-selector.js';

export interface RequestInfo {
  isResourceRequest: boolean;
  /** The decoded URL path. */
  path: string;
  /** get, list, watch, create, update, patch, delete, deletecollection, proxy; or the lowercased HTTP method. */
  verb: string;
  apiPrefix: string;
  /** '' for the core group. */
  apiGroup: string;
  apiVersion: string;
  /** '' for cluster-scoped requests and for lists across all namespaces. */
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
  /** The path below the namespace: always {resource}/{name}/{subresource}/... */
  parts: string[];
}

/** Prefixes under which resources live; `api` carries no group segment. */
const API_PREFIXES = new Set(['api', 'apis']);
const GROUPLESS_API_PREFIXES = new Set(['api']);

/** Path segments that act as verbs in front of the resource path. */
const SPECIAL_VERBS = new Set(['proxy', 'watch']);
/** Of those, the ones after which every further segment belongs to the proxied path. */
const SPECIAL_VERBS_WITHOUT_SUBRESOURCES = new Set(['proxy']);
/** Subresources of a namespace itself, so /namespaces/x/status is not read as resource "status" in x. */
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

const METHOD_VERBS: Record<string, string> = {
  POST: 'create',
  GET: 'get',
  HEAD: 'get',
  PUT: 'update',
  PATCH: 'patch',
  DELETE: 'delete',
};

export class RequestPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RequestPathError';
  }
}

/** The path without leading and trailing slashes; a scan, as this runs on every request. */
function trimSlashes(path: string): string {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === 0x2f) start++;
  while (end > start && path.charCodeAt(end - 1) === 0x2f) end--;
  return start === 0 && end === path.length ? path : path.slice(start, end);
}

function splitPath(path: string): string[] {
  const trimmed = trimSlashes(path);
  return trimmed === '' ? [] : trimmed.split('/');
}

/** Go's url.Path is the percent-decoded path; a malformed escape never reaches a handler. */
function decodePath(rawPath: string): string {
  if (!rawPath.includes('%')) return rawPath;
  try {
    return decodeURIComponent(rawPath);
  } catch {
    throw new RequestPathError(`invalid URL escape in path ${JSON.stringify(rawPath)}`);
  }
}

/** A name that can stand as one URL path segment (apimachinery's IsValidPathSegmentName). */
function isValidPathSegmentName(name: string): boolean {
  return name !== '.' && name !== '..' && !name.includes('/') && !name.includes('%');
}

function firstQueryValue(query: URLSearchParams, key: string): string | undefined {
  const v = query.get(key);
  return v === null ? undefined : v;
}

function isInvalidInt64(value: string | undefined): boolean {
  if (value === undefined) return false;
  const s = value.trim();
  if (s === '') return false;
  if (!/^[+-]?\d+$/.test(s)) return true;
  const n = BigInt(s);
  return n > 9223372036854775807n || n < -9223372036854775808n;
}

/**
 * Reads list options the way the request-info resolver does: watch decides list vs watch, and
 * a fieldSelector pinning metadata.name names the object. When any option fails to decode, the
 * resolver drops them all (so no name) but still honours `watch`.
 */
function resolveListVerb(info: RequestInfo, query: URLSearchParams): void {
  const watchValue = firstQueryValue(query, 'watch');
  const watch = watchValue !== undefined && watchValue !== '' && !['false', '0'].includes(watchValue.toLowerCase());
  info.verb = watch ? 'watch' : 'list';

  if (isInvalidInt64(firstQueryValue(query, 'limit')) || isInvalidInt64(firstQueryValue(query, 'timeoutSeconds'))) return;
  const fieldSelector = firstQueryValue(query, 'fieldSelector');
  if (fieldSelector === undefined) return;
  let name: string | undefined;
  try {
    name = requiredExactMatch(parseFieldSelectorTerms(fieldSelector), 'metadata.name');
  } catch {
    return;
  }
  if (name !== undefined && isValidPathSegmentName(name)) info.name = name;
}

/**
 * Parses a request. `url` is the request target: a path with an optional query
 * (`/api/v1/pods?watch=1`); an absolute URL is accepted too.
 */
export function newRequestInfo(method: string, url: string): RequestInfo {
  let target = url;
  if (!target.startsWith('/')) {
    const schemeEnd = target.indexOf('://');
    if (schemeEnd >= 0) {
      const pathStart = target.indexOf('/', schemeEnd + 3);
      target = pathStart < 0 ? '/' : target.slice(pathStart);
    }
  }
  const q = target.indexOf('?');
  const rawPath = q < 0 ? target : target.slice(0, q);
  const rawQuery = q < 0 ? '' : target.slice(q + 1);
  const path = decodePath(rawPath);

  const info: RequestInfo = {
    isResourceRequest: false,
    path,
    verb: method.toLowerCase(),
    apiPrefix: '',
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
    parts: [],
  };

  // One split, read by position: the segments before the resource path are skipped by moving
  // `at`, and only the resource path itself is copied out, once.
  const segments = splitPath(path);
  if (segments.length < 3 || !API_PREFIXES.has(segments[0])) return info;
  const apiPrefix = segments[0];
  let at = 1;

  let apiGroup = '';
  if (!GROUPLESS_API_PREFIXES.has(apiPrefix)) {
    // /apis/{group}/{version}/{resource} needs three segments after the prefix.
    if (segments.length - at < 3) return info;
    apiGroup = segments[at++];
  }

  info.isResourceRequest = true;
  info.apiPrefix = apiPrefix;
  info.apiGroup = apiGroup;
  info.apiVersion = segments[at++];

  if (SPECIAL_VERBS.has(segments[at])) {
    if (segments.length - at < 2) throw new RequestPathError(`unable to determine kind and namespace from url, ${url}`);
    info.verb = segments[at++];
  } else {
    info.verb = METHOD_VERBS[method.toUpperCase()] ?? '';
  }

  // /namespaces/{ns}/{resource}/...: the resource path starts after the namespace, unless the
  // next segment is a subresource of the namespace object itself.
  if (segments[at] === 'namespaces' && segments.length - at > 1) {
    info.namespace = segments[at + 1];
    if (segments.length - at > 2 && !NAMESPACE_SUBRESOURCES.has(segments[at + 2])) at += 2;
  }
  const parts = segments.slice(at);
  info.parts = parts;

  if (parts.length >= 3 && !SPECIAL_VERBS_WITHOUT_SUBRESOURCES.has(info.verb)) info.subresource = parts[2];
  if (parts.length >= 2) info.name = parts[1];
  if (parts.length >= 1) info.resource = parts[0];

  if (info.name === '' && info.verb === 'get') resolveListVerb(info, new URLSearchParams(rawQuery));
  if (info.name === '' && info.verb === 'delete') info.verb = 'deletecollection';

  return info;
}

/** Verbs and subresources that hold a connection open; kube-apiserver exempts them from timeouts and in-flight limits. */
const LONG_RUNNING_VERBS = new Set(['watch', 'proxy']);
const LONG_RUNNING_SUBRESOURCES = new Set(['attach', 'exec', 'proxy', 'log', 'portforward']);

export function isLongRunning(info: RequestInfo): boolean {
  return info.isResourceRequest && (LONG_RUNNING_VERBS.has(info.verb) || LONG_RUNNING_SUBRESOURCES.has(info.subresource));
}

/** Whether the mutating in-flight limit counts the request; kube-apiserver treats every verb but get, list and watch as mutating. */
export function isMutating(info: RequestInfo): boolean {
  return info.verb !== 'get' && info.verb !== 'list' && info.verb !== 'watch';
}
