// Anonymous access, limited to chosen paths (as kube-apiserver's AuthenticationConfiguration
// `anonymous.conditions` limits it). By default only the public-info endpoints (health and
// version) are open without a credential; every other request needs one.

import { NO_CREDENTIAL, type AuthenticationRequest, type AuthenticationResult, type Authenticator } from './authenticator.js';
import { ALL_UNAUTHENTICATED, ANONYMOUS, newUserInfo } from './user.js';

/** The paths system:public-info-viewer grants, which callers reach before they hold credentials. */
export const PUBLIC_INFO_PATHS = ['/healthz', '/livez', '/readyz', '/version', '/version/'];

export class AnonymousAuthenticator implements Authenticator {
  readonly name = 'anonymous';
  private readonly paths: Set<string> | undefined;

  /** `paths` undefined: anonymous everywhere (--anonymous-auth=true without conditions). */
  constructor(paths?: string[]) {
    this.paths = paths && new Set(paths);
  }

  authenticate(req: AuthenticationRequest): AuthenticationResult {
    if (this.paths && !this.paths.has(req.path)) return NO_CREDENTIAL;
    return { kind: 'user', authenticator: this.name, user: newUserInfo(ANONYMOUS, { groups: [ALL_UNAUTHENTICATED] }) };
  }
}
