// The Webhook authorizer (k8s.io/apiserver/plugin/pkg/authorizer/webhook): the request becomes a
// SubjectAccessReview (v1, or v1beta1 on the wire), matchConditions decide whether the webhook
// is asked at all, answers are cached by the review's spec (allowed ones for authorizedTTL,
// others for unauthorizedTTL, 8192 entries, least recently used first out), and
// a failed call, a malformed answer or a failing match condition gives the failurePolicy's
// decision with the error, which kube-apiserver turns into a 500 unless another authorizer allows.
// Transient failures (connection reset, 429, 500, 504) are retried with kube's backoff.

import type { Attributes, AuthorizationResult, Authorizer, RuleResolver, RulesResult } from './authorizer.js';
import { evaluateMatchConditions, type CompiledCondition, type MatchRequest } from './webhook-match-conditions.js';
import { WebhookCallError, type WebhookClient } from './webhook-client.js';
import { setMember } from '../machinery/own-member.js';

/** wait.Backoff as webhook.DefaultRetryBackoffWithInitialDelay(500ms) sets it. */
export interface RetryBackoff {
  initialMs: number;
  factor: number;
  jitter: number;
  steps: number;
}

export const DEFAULT_RETRY_BACKOFF: RetryBackoff = { initialMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

const CACHE_SIZE = 8192;
const MAX_CONTROLLED_ATTR_CACHE_SIZE = 10_000;

export interface WebhookAuthorizerOptions {
  name: string;
  client: WebhookClient;
  /** The wire version of the SubjectAccessReview: v1 or v1beta1. */
  version: string;
  authorizedTTLMs: number;
  unauthorizedTTLMs: number;
  failurePolicy: 'NoOpinion' | 'Deny';
  matchConditions: CompiledCondition[];
  retryBackoff?: RetryBackoff;
  /** Told of each failed call, as kube-apiserver logs "Failed to make webhook authorizer request". */
  onCallError?: (message: string) => void;
}

interface ReviewStatus {
  allowed: boolean;
  denied: boolean;
  reason: string;
}

/** An answer in the cache, and its neighbours in the order of use (kube's LRUExpireCache). */
interface CacheEntry {
  key: string;
  status: ReviewStatus;
  expires: number;
  newer?: CacheEntry;
  older?: CacheEntry;
}

/**
 * Answers by review spec, least recently used first out. A hit moves its entry to the front of
 * a linked list rather than re-inserting it in a Map (which hashes the long key again).
 */
export class ReviewCache {
  private readonly entries = new Map<string, CacheEntry>();
  private newest: CacheEntry | undefined;
  private oldest: CacheEntry | undefined;

  constructor(private readonly capacity: number) {}

  get(key: string, now: number): ReviewStatus | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= now) {
      this.remove(entry);
      return undefined;
    }
    if (entry !== this.newest) {
      this.unlink(entry);
      this.pushNewest(entry);
    }
    return entry.status;
  }

  set(key: string, status: ReviewStatus, expires: number): void {
    const old = this.entries.get(key);
    if (old) this.remove(old);
    const entry: CacheEntry = { key, status, expires };
    this.entries.set(key, entry);
    this.pushNewest(entry);
    if (this.entries.size > this.capacity && this.oldest) this.remove(this.oldest);
  }

  private remove(entry: CacheEntry): void {
    this.entries.delete(entry.key);
    this.unlink(entry);
  }

  private unlink(entry: CacheEntry): void {
    if (entry.newer) entry.newer.older = entry.older;
    else this.newest = entry.older;
    if (entry.older) entry.older.newer = entry.newer;
    else this.oldest = entry.newer;
    entry.newer = entry.older = undefined;
  }

  private pushNewest(entry: CacheEntry): void {
    entry.older = this.newest;
    if (this.newest) this.newest.newer = entry;
    else this.oldest = entry;
    this.newest = entry;
  }
}

/**
 * The user's extra keys in the order Go marshals a map: sorted. The same extras arriving in another
 * order (impersonation headers, say) are the same spec, so the same cache key and the same body.
 */
function extraNames(extra: Record<string, string[]>): string[] {
  const names = Object.keys(extra);
  return names.length > 1 ? names.sort() : names;
}

/** A string field of the key, length first, so that no two specs make the same key. */
const field = (s: string): string => `${s.length}:${s}`;

/**
 * The cache key: every field of the SubjectAccessReview spec (the same fields kube marshals for
 * its key), written straight from the attributes rather than through the spec's JSON.
 */
function cacheKey(a: Attributes): string {
  const u = a.user;
  let key = a.isResourceRequest
    ? `r${field(a.namespace)}${field(a.verb)}${field(a.apiGroup)}${field(a.apiVersion)}${field(a.resource)}${field(a.subresource)}${field(a.name)}`
    : `n${field(a.path)}${field(a.verb)}`;
  key += `${field(u.name)}${field(u.uid)}${u.groups.length}:`;
  for (const group of u.groups) key += field(group);
  for (const name of extraNames(u.extra)) {
    const values = u.extra[name];
    key += `${field(name)}${values.length}:`;
    for (const value of values) key += field(value);
  }
  return key;
}

/** The spec kube sends, fields in authorizationv1.SubjectAccessReviewSpec's order, empty ones left out. */
function reviewSpec(a: Attributes): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  if (a.isResourceRequest) {
    const ra: Record<string, string> = {};
    if (a.namespace) ra.namespace = a.namespace;
    if (a.verb) ra.verb = a.verb;
    if (a.apiGroup) ra.group = a.apiGroup;
    if (a.apiVersion) ra.version = a.apiVersion;
    if (a.resource) ra.resource = a.resource;
    if (a.subresource) ra.subresource = a.subresource;
    if (a.name) ra.name = a.name;
    spec.resourceAttributes = ra;
  } else {
    const nra: Record<string, string> = {};
    if (a.path) nra.path = a.path;
    if (a.verb) nra.verb = a.verb;
    spec.nonResourceAttributes = nra;
  }
  if (a.user.name) spec.user = a.user.name;
  if (a.user.groups.length > 0) spec.groups = a.user.groups;
  const names = extraNames(a.user.extra);
  if (names.length > 0) spec.extra = Object.fromEntries(names.map((name) => [name, a.user.extra[name]]));
  if (a.user.uid) spec.uid = a.user.uid;
  return spec;
}

/** `request` for the match conditions: every string field present, even empty ones. */
function matchRequest(a: Attributes): MatchRequest {
  const r: MatchRequest = { user: a.user.name, uid: a.user.uid, groups: a.user.groups, extra: a.user.extra };
  if (a.isResourceRequest) {
    r.resourceAttributes = {
      namespace: a.namespace,
      verb: a.verb,
      group: a.apiGroup,
      version: a.apiVersion,
      resource: a.resource,
      subresource: a.subresource,
      name: a.name,
    };
  } else {
    r.nonResourceAttributes = { path: a.path, verb: a.verb };
  }
  return r;
}

function shouldCache(a: Attributes): boolean {
  const size = a.namespace.length + a.verb.length + a.apiGroup.length + a.apiVersion.length + a.resource.length + a.subresource.length + a.name.length + a.path.length;
  return size < MAX_CONTROLLED_ATTR_CACHE_SIZE;
}

/** The review's status from the webhook's answer, or an error in client-go's words. */
function parseAnswer(status: number, body: string, version: string): ReviewStatus {
  if (status < 200 || status > 299) {
    const retriable = status === 429 || status === 500 || status === 504;
    let message = body.trim() ? `an error on the server (${JSON.stringify(body.trim().slice(0, 256))}) has prevented the request from succeeding` : `the server responded with the status code ${status} but did not return more information`;
    try {
      const parsed = JSON.parse(body) as Record<string, unknown>;
      if (parsed.kind === 'Status' && typeof parsed.message === 'string') message = parsed.message;
    } catch {
      // Not a Status: the generic wording stays.
    }
    throw new WebhookCallError(message, retriable);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(body);
  } catch {
    const first = body.trimStart()[0];
    throw new WebhookCallError(`couldn't get version/kind; json parse error: invalid character '${first ?? ''}' looking for beginning of value`, false);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new WebhookCallError(`json: cannot unmarshal ${Array.isArray(doc) ? 'array' : typeof doc} into Go value of type ${version}.SubjectAccessReview`, false);
  const review = doc as Record<string, unknown>;
  const expected = `authorization.k8s.io/${version}`;
  if ((review.kind !== undefined && review.kind !== 'SubjectAccessReview') || (review.apiVersion !== undefined && review.apiVersion !== expected)) {
    throw new WebhookCallError(`unexpected answer: ${JSON.stringify(review.apiVersion)}, Kind=${JSON.stringify(review.kind)}; expected ${expected}, Kind=SubjectAccessReview`, false);
  }
  const st = review.status ?? {};
  if (typeof st !== 'object' || st === null || Array.isArray(st)) throw new WebhookCallError(`json: cannot unmarshal ${typeof st} into Go struct field SubjectAccessReview.status of type ${version}.SubjectAccessReviewStatus`, false);
  const s = st as Record<string, unknown>;
  for (const [field, type] of [['allowed', 'boolean'], ['denied', 'boolean'], ['reason', 'string'], ['evaluationError', 'string']] as const) {
    if (s[field] !== undefined && s[field] !== null && typeof s[field] !== type) {
      throw new WebhookCallError(`json: cannot unmarshal ${typeof s[field]} into Go struct field SubjectAccessReviewStatus.status.${field} of type ${type === 'boolean' ? 'bool' : 'string'}`, false);
    }
  }
  return { allowed: s.allowed === true, denied: s.denied === true, reason: typeof s.reason === 'string' ? s.reason : '' };
}

function decisionOf(status: ReviewStatus): AuthorizationResult {
  if (status.allowed && status.denied) return { decision: 'deny', reason: status.reason, error: 'webhook subject access review returned both allow and deny response' };
  if (status.denied) return { decision: 'deny', reason: status.reason };
  if (status.allowed) return { decision: 'allow', reason: status.reason };
  return { decision: 'noOpinion', reason: status.reason };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class WebhookAuthorizer implements Authorizer, RuleResolver {
  private readonly cache = new ReviewCache(CACHE_SIZE);
  /**
   * Keys of requests the match conditions excluded. The conditions read only fields the key
   * holds and give the same answer for the same fields (CEL over `request` alone), so they are
   * not evaluated again for these, as a cached answer does not evaluate them again either.
   */
  private readonly unmatched = new Set<string>();
  private readonly onError: 'deny' | 'noOpinion';
  /** Calls made to the webhook, for tests and the benchmark. */
  calls = 0;

  constructor(private readonly options: WebhookAuthorizerOptions) {
    this.onError = options.failurePolicy === 'Deny' ? 'deny' : 'noOpinion';
  }

  /**
   * A cached answer is given at once, without a promise and without evaluating the match
   * conditions again: they read only fields the key holds and answer the same for the same
   * fields, and an answer is cached only after they matched. A request they excluded before is
   * excluded again at once.
   */
  authorize(a: Attributes): AuthorizationResult | Promise<AuthorizationResult> {
    const key = cacheKey(a);
    const status = this.cache.get(key, Date.now());
    if (status) return decisionOf(status);
    if (this.unmatched.has(key)) return { decision: 'noOpinion', reason: '' };
    return this.authorizeUncached(a, key);
  }

  private async authorizeUncached(a: Attributes, key: string): Promise<AuthorizationResult> {
    if (this.options.matchConditions.length > 0) {
      const match = evaluateMatchConditions(this.options.matchConditions, matchRequest(a));
      if (match.error) return { decision: this.onError, reason: '', error: match.error };
      if (!match.matches) {
        if (shouldCache(a)) this.rememberUnmatched(key);
        return { decision: 'noOpinion', reason: '' };
      }
    }
    let status: ReviewStatus;
    try {
      status = await this.review(reviewSpec(a));
    } catch (err) {
      const message = (err as Error).message;
      this.options.onCallError?.(`Failed to make webhook authorizer request: ${message}`);
      return { decision: this.onError, reason: '', error: message };
    }
    if (shouldCache(a)) this.remember(key, status);
    return decisionOf(status);
  }

  /** A webhook cannot list what it allows. */
  rulesFor(): RulesResult {
    return { resourceRules: [], nonResourceRules: [], incomplete: true, evaluationError: 'webhook authorizer does not support user rule resolution' };
  }

  close(): void {
    this.options.client.close();
  }

  /** Oldest first out: a memo of a pure function, whose order of eviction nobody sees. */
  private rememberUnmatched(key: string): void {
    this.unmatched.add(key);
    if (this.unmatched.size > CACHE_SIZE) this.unmatched.delete(this.unmatched.values().next().value as string);
  }

  private remember(key: string, status: ReviewStatus): void {
    const ttl = status.allowed ? this.options.authorizedTTLMs : this.options.unauthorizedTTLMs;
    if (ttl > 0) this.cache.set(key, status, Date.now() + ttl);
  }

  /** One review, retried with exponential backoff while the failure is transient. */
  private async review(spec: Record<string, unknown>): Promise<ReviewStatus> {
    const { version } = this.options;
    const wireSpec = version === 'v1beta1' ? toV1beta1(spec) : spec;
    const body = JSON.stringify({ kind: 'SubjectAccessReview', apiVersion: `authorization.k8s.io/${version}`, metadata: { creationTimestamp: null }, spec: wireSpec, status: { allowed: false } });
    const backoff = this.options.retryBackoff ?? DEFAULT_RETRY_BACKOFF;
    let delay = backoff.initialMs;
    for (let attempt = 1; ; attempt++) {
      try {
        this.calls++;
        const res = await this.options.client.post(body);
        return parseAnswer(res.status, res.body, version);
      } catch (err) {
        if (!(err instanceof WebhookCallError) || !err.retriable || attempt >= backoff.steps) throw err;
      }
      await sleep(delay * (1 + Math.random() * backoff.jitter));
      delay *= backoff.factor;
    }
  }
}

/** v1beta1 names the groups field `group`. */
function toV1beta1(spec: Record<string, unknown>): Record<string, unknown> {
  const { groups, ...rest } = spec;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(rest)) {
    setMember(out, k, v);
    if (k === 'user' && groups !== undefined) out.group = groups;
  }
  if (groups !== undefined && out.group === undefined) out.group = groups;
  return out;
}
