// Authentication: finds who is calling, or answers 401 Unauthorized. The user is left on the
// context for authorization, the handlers and SelfSubjectReview.

import type { TLSSocket } from 'node:tls';
import { unauthorized } from '../../errors/status-error.js';
import type { Authenticator } from '../../auth/authenticator.js';
import type { KubeMiddleware, Logger } from '../context.js';

export function withAuthentication(authenticator: Authenticator, logger: Logger): KubeMiddleware {
  return async (c, next) => {
    const info = c.get('requestInfo');
    const socket = c.env?.incoming?.socket as TLSSocket | undefined;
    const result = await authenticator.authenticate({
      header: (name) => c.req.header(name),
      path: info.path,
      tlsSocket: socket && typeof socket.getPeerCertificate === 'function' ? socket : undefined,
    });
    if (result.kind !== 'user') {
      if (result.kind === 'error') logger.debug(`Unable to authenticate the request: ${result.error}`);
      throw unauthorized();
    }
    c.set('user', result.user);
    await next();
  };
}
