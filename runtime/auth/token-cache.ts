// kube-apiserver's bearer token cache (k8s.io/apiserver/pkg/authentication/token/cache): the
// union of the token authenticators (token file, bootstrap tokens, service account tokens) sits
// behind one cache keyed by the token and the audiences asked for. kube-apiserver keeps a success
// for TokenSuccessCacheTTL (10 s) and a failure for TokenFailureCacheTTL (0: not at all), so a
// token keeps working for up to 10 s after its service account, pod or Secret is gone, and a
// token rejected a moment ago works as soon as what backs it exists.
// Keys are a SHA-256 digest keyed by a secret made at start (upstream uses an HMAC), so the cache
// holds no token and no key can be computed ahead; concurrent lookups of one key share a single
// authentication, as upstream's singleflight group does.

import * as crypto from 'node:crypto';

/**
 * One-shot digest: every request with a bearer token computes one, and building an Hmac object
 * costs about 9 µs in Node where this costs under 2. crypto.hash arrived in Node 20.12.
 */
const digest: (data: string) => string =
  typeof crypto.hash === 'function'
    ? (data) => crypto.hash('sha256', data, 'base64')
    : (data) => crypto.createHash('sha256').update(data).digest('base64');

export const DEFAULT_TOKEN_SUCCESS_CACHE_TTL_MS = 10_000;
export const DEFAULT_TOKEN_FAILURE_CACHE_TTL_MS = 0;

export interface TokenCacheTTLs {
  successMs: number;
  failureMs: number;
}

export class TokenCache<T> {
  private readonly secret = crypto.randomBytes(32).toString('base64');
  private readonly entries = new Map<string, { value: T; expires: number }>();
  private readonly inFlight = new Map<string, Promise<T>>();
  private nextSweep = 0;

  constructor(private readonly ttls: TokenCacheTTLs) {}

  get enabled(): boolean {
    return this.ttls.successMs > 0 || this.ttls.failureMs > 0;
  }

  /**
   * The cached answer for (token, audiences), else `authenticate`'s, kept as long as `succeeded`
   * says. A hit is answered at once, without a promise.
   */
  lookup(token: string, audiences: readonly string[] | undefined, authenticate: () => Promise<T>, succeeded: (value: T) => boolean): T | Promise<T> {
    const key = this.keyOf(token, audiences);
    const hit = this.entries.get(key);
    if (hit && hit.expires > Date.now()) return hit.value;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    const run = authenticate()
      .then((value) => {
        const ttl = succeeded(value) ? this.ttls.successMs : this.ttls.failureMs;
        if (ttl > 0) this.store(key, value, Date.now() + ttl);
        return value;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, run);
    return run;
  }

  /** Length-prefixed fields, so token "ab" with audience "c" and token "a" with "bc" differ. */
  private keyOf(token: string, audiences: readonly string[] | undefined): string {
    let data = `${this.secret}${token.length}:${token}${audiences?.length ?? 0}`;
    for (const a of audiences ?? []) data += `${a.length}:${a}`;
    return digest(data);
  }

  /** Expired entries go in a sweep at most once per TTL, so the map never outgrows a TTL's worth of tokens. */
  private store(key: string, value: T, expires: number): void {
    const now = Date.now();
    if (now >= this.nextSweep) {
      for (const [k, e] of this.entries) if (e.expires <= now) this.entries.delete(k);
      this.nextSweep = now + Math.max(this.ttls.successMs, this.ttls.failureMs);
    }
    this.entries.set(key, { value, expires });
  }
}
