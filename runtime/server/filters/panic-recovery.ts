// The outermost filter: whatever a later filter or handler throws becomes a Status response and
// never takes the process down. StatusErrors keep their code; anything else is a 500
// InternalError, and is logged because it is a bug.

import { internalError, isStatusError, type StatusError } from '../../errors/status-error.js';
import type { KubeContext, KubeMiddleware, Logger } from '../context.js';
import type { StatusWriter } from '../status-response.js';

export function toStatusError(err: unknown, c: KubeContext, logger: Logger): StatusError {
  if (isStatusError(err)) return err;
  logger.error(`panic serving ${c.req.method} ${c.req.url}:`, err);
  return internalError(err);
}

/**
 * Hono routes thrown Error objects to app.onError (see createApp); this catches the rest (thrown
 * strings, failures of onError itself) so every request still gets an answer.
 */
export function withPanicRecovery(writeStatus: StatusWriter, logger: Logger): KubeMiddleware {
  return async (c, next) => {
    try {
      await next();
    } catch (err) {
      c.res = await writeStatus(c, toStatusError(err, c, logger));
    }
  };
}
