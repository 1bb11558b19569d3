// --anonymous-auth=true: a request that presents no credential at all runs as system:anonymous in
// system:unauthenticated, and the authorizer decides what that user may do (RBAC's
// system:public-info-viewer binding opens health and version). With the flag off, the default
// here as in k3s, such a request is 401 on every path, as kube-apiserver answers it.

import type { AuthenticationResult, Authenticator } from './authenticator.js';
import { ALL_UNAUTHENTICATED, ANONYMOUS, newUserInfo } from './user.js';

export class AnonymousAuthenticator implements Authenticator {
  readonly name = 'anonymous';

  authenticate(): AuthenticationResult {
    return { kind: 'user', authenticator: this.name, user: newUserInfo(ANONYMOUS, { groups: [ALL_UNAUTHENTICATED] }) };
  }
}
