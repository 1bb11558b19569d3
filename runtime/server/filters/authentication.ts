// Authentication: finds who is calling, or answers 401 Unauthorized. The user is left on the
// context for authorization, the handlers and SelfSubjectReview.

import { unauthorized } from '../../errors/status-error.js';
import type { Authenticator } from '../../auth/authenticator.js';
import { connectionSocket, type KubeMiddleware, type Logger } from '../context.js';
import type { FailedAuthenticationAudit } from './audit.js';

/** `auditFailure`, when auditing, records each request refused here (kube's WithFailedAuthenticationAudit). */
export function withAuthentication(authenticator: Authenticator, logger: Logger, auditFailure?: FailedAuthenticationAudit): KubeMiddleware {
  return async (c, next) => {
    const received = Date.now();
    const info = c.get('requestInfo');
    const result = await authenticator.authenticate({
      header: (name) => c.req.header(name),
      path: info.path,
      tlsSocket: connectionSocket(c),
    });
    if (result.kind !== 'user') {
      if (result.kind === 'error') logger.debug(`Unable to authenticate the request: ${result.error}`);
      await auditFailure?.(c, received);
      throw unauthorized();
    }
    c.set('user', result.user);
    await next();
  };
}
