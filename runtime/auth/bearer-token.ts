// `Authorization: Bearer <token>` (k8s.io/apiserver/pkg/authentication/request/bearertoken): no
// header or another scheme is no opinion; a bearer token nobody recognises is a rejection.
// Audiences: an audience-aware token authenticator (service account tokens) checks the
// request's audiences itself; the others, as kube-apiserver wraps them
// (authenticator.WrapAudienceAgnosticToken), count as meant for the server's own API audiences,
// so a request naming only other audiences (a TokenReview's) finds no user through them.
// Answers are cached as kube-apiserver caches them (token-cache.ts).

import type { UserInfo } from './user.js';
import { NO_CREDENTIAL, type AuthenticationRequest, type AuthenticationResult, type Authenticator } from './authenticator.js';
import { DEFAULT_TOKEN_FAILURE_CACHE_TTL_MS, DEFAULT_TOKEN_SUCCESS_CACHE_TTL_MS, TokenCache, type TokenCacheTTLs } from './token-cache.js';
import { StaticTokenAuthenticator, type TokenAuthenticator } from './token-file.js';

const INVALID: AuthenticationResult = { kind: 'error', error: 'invalid bearer token' };
const accepted = (r: AuthenticationResult) => r.kind === 'user';

export class BearerTokenAuthenticator implements Authenticator {
  readonly name = 'bearer-token';
  private readonly cache: TokenCache<AuthenticationResult>;
  /**
   * The token file, when it leads the union: a token it knows is answered from its table before
   * the cache, which would hash the token on every request to find the same answer. Its answer
   * never changes (the file is read once), so one result per user is made and kept, keyed by the
   * table's entry rather than by the token.
   */
  private readonly tokenFile?: StaticTokenAuthenticator;
  private readonly tokenFileResults = new WeakMap<object, AuthenticationResult>();

  constructor(
    private readonly tokenAuthenticators: TokenAuthenticator[],
    private readonly apiAudiences: readonly string[] = [],
    cacheTTLs: TokenCacheTTLs = { successMs: DEFAULT_TOKEN_SUCCESS_CACHE_TTL_MS, failureMs: DEFAULT_TOKEN_FAILURE_CACHE_TTL_MS },
  ) {
    this.cache = new TokenCache(cacheTTLs);
    const first = tokenAuthenticators[0];
    if (first instanceof StaticTokenAuthenticator) this.tokenFile = first;
  }

  authenticate(req: AuthenticationRequest): AuthenticationResult | Promise<AuthenticationResult> {
    const header = req.header('authorization')?.trim();
    if (!header) return NO_CREDENTIAL;
    const parts = header.split(' ');
    if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return NO_CREDENTIAL;
    const token = parts[1];
    // "Bearer  token" (two spaces) leaves an empty token: treated as no credential, as upstream does.
    if (token === '') return NO_CREDENTIAL;
    if (req.audiences === undefined && this.tokenFile) {
      const user = this.tokenFile.known(token);
      if (user) return this.tokenFileResult(user);
    }
    // The request's audiences (a TokenReview's), else the API audiences every request is for.
    const targets = req.audiences ?? (this.apiAudiences.length > 0 ? this.apiAudiences : undefined);
    if (!this.cache.enabled) return this.authenticateToken(token, targets);
    return this.cache.lookup(token, targets, () => this.authenticateToken(token, targets), accepted);
  }

  /** What authenticateToken answers for a token-file user asked about the API audiences, made once per user. */
  private tokenFileResult(user: UserInfo): AuthenticationResult {
    let result = this.tokenFileResults.get(user);
    if (!result) {
      const copy = { ...user, groups: [...user.groups], extra: { ...user.extra } };
      const audiences = this.apiAudiences.length > 0 ? [...this.apiAudiences] : undefined;
      result = audiences ? { kind: 'user', user: copy, authenticator: this.name, audiences } : { kind: 'user', user: copy, authenticator: this.name };
      this.tokenFileResults.set(user, result);
    }
    return result;
  }

  /** The union of the token authenticators: the first that knows the token names the user. */
  private async authenticateToken(token: string, targets: readonly string[] | undefined): Promise<AuthenticationResult> {
    // What an audience-agnostic token is good for: the API audiences among the targets.
    const implicit = targets && this.apiAudiences.filter((a) => targets.includes(a));
    for (const auth of this.tokenAuthenticators) {
      if (auth.audienceAware) {
        const found = await auth.authenticateToken(token, targets && [...targets]);
        if (!found) continue;
        const { user, audiences } = 'user' in found ? found : { user: found, audiences: [] };
        return { kind: 'user', user, authenticator: this.name, audiences };
      }
      if (implicit && implicit.length === 0) continue;
      const found = await auth.authenticateToken(token);
      if (!found) continue;
      const user = 'user' in found ? found.user : found;
      return implicit ? { kind: 'user', user, authenticator: this.name, audiences: implicit } : { kind: 'user', user, authenticator: this.name };
    }
    return INVALID;
  }
}
