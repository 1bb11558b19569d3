// Authentication: finds who is calling, or answers 401 Unauthorized. The user is left on the
// context for authorization, the handlers and SelfSubjectReview.

import { unauthorized } from '../../errors/status-error.js';
import type { AuthenticationResult, Authenticator } from '../../auth/authenticator.js';
import { connectionSocket, type KubeContext, type KubeHandler, type Logger } from '../context.js';
import type { FailedAuthenticationAudit } from './audit.js';

/** `auditFailure`, when auditing, records each request refused here (kube's WithFailedAuthenticationAudit). */
export function withAuthentication(inner: KubeHandler, authenticator: Authenticator, logger: Logger, auditFailure?: FailedAuthenticationAudit): KubeHandler {
  const admit = (c: KubeContext, result: AuthenticationResult, received: number): void | Promise<void> => {
    if (result.kind === 'user') {
      c.set('user', result.user);
      return inner(c);
    }
    if (result.kind === 'error') logger.debug(`Unable to authenticate the request: ${result.error}`);
    if (!auditFailure) throw unauthorized();
    return auditFailure(c, received).then(() => {
      throw unauthorized();
    });
  };
  return (c) => {
    // The failure audit's requestReceivedTimestamp; nothing else needs the clock here.
    const received = auditFailure ? Date.now() : 0;
    const result = authenticator.authenticate({
      header: (name) => c.req.header(name),
      path: c.get('requestInfo').path,
      tlsSocket: connectionSocket(c),
    });
    // A cached token or a client certificate is answered at once: no promise to wait on.
    if (result instanceof Promise) return result.then((r) => admit(c, r, received));
    return admit(c, result, received);
  };
}
