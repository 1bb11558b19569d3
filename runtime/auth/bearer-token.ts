// `Authorization: Bearer <token>` (k8s.io/apiserver/pkg/authentication/request/bearertoken): no
// header or another scheme is no opinion; a bearer token nobody recognises is a rejection.
// The token authenticators here know nothing of audiences: as kube-apiserver wraps them
// (authenticator.WrapAudienceAgnosticToken), they count as meant for the server's own API
// audiences, so a request naming other audiences finds no user through them.

import { NO_CREDENTIAL, type AuthenticationRequest, type AuthenticationResult, type Authenticator } from './authenticator.js';
import type { TokenAuthenticator } from './token-file.js';

export class BearerTokenAuthenticator implements Authenticator {
  readonly name = 'bearer-token';

  constructor(
    private readonly tokenAuthenticators: TokenAuthenticator[],
    private readonly apiAudiences: readonly string[] = [],
  ) {}

  async authenticate(req: AuthenticationRequest): Promise<AuthenticationResult> {
    const header = req.header('authorization')?.trim();
    if (!header) return NO_CREDENTIAL;
    const parts = header.split(' ');
    if (parts.length < 2 || parts[0].toLowerCase() !== 'bearer') return NO_CREDENTIAL;
    const token = parts[1];
    // "Bearer  token" (two spaces) leaves an empty token: treated as no credential, as upstream does.
    if (token === '') return NO_CREDENTIAL;
    let audiences: string[] | undefined;
    if (req.audiences) {
      const wanted = new Set(req.audiences);
      audiences = this.apiAudiences.filter((a) => wanted.has(a));
      if (audiences.length === 0) return { kind: 'error', error: 'invalid bearer token' };
    }
    for (const auth of this.tokenAuthenticators) {
      const user = await auth.authenticateToken(token);
      if (user) return audiences ? { kind: 'user', user, authenticator: this.name, audiences } : { kind: 'user', user, authenticator: this.name };
    }
    return { kind: 'error', error: 'invalid bearer token' };
  }
}
