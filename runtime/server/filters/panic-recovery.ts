// The outermost filter: whatever a later filter or handler throws becomes a Status response and
// never takes the process down. StatusErrors keep their code; anything else is a 500
// InternalError, and is logged because it is a bug.

import { internalError, isStatusError, type StatusError } from '../../errors/status-error.js';
import type { KubeContext, KubeHandler, Logger } from '../context.js';
import type { StatusWriter } from '../status-response.js';

export function toStatusError(err: unknown, c: KubeContext, logger: Logger): StatusError {
  if (isStatusError(err)) return err;
  logger.error(`panic serving ${c.req.method} ${c.req.url}:`, err);
  return internalError(err);
}

/**
 * What the filters throw, and anything thrown at all (strings, failures of app.onError, which
 * Hono calls for the Errors the endpoints throw), becomes the answer, so every request gets one.
 * A request answered at once stays synchronous: no promise is made around it.
 */
export function withPanicRecovery(inner: KubeHandler, writeStatus: StatusWriter, logger: Logger): KubeHandler {
  const recover = (c: KubeContext, err: unknown): void | Promise<void> => {
    const res = writeStatus(c, toStatusError(err, c, logger));
    if (res instanceof Promise) {
      return res.then((r) => {
        c.res = r;
      });
    }
    c.res = res;
  };
  return (c) => {
    let handled;
    try {
      handled = inner(c);
    } catch (err) {
      return recover(c, err);
    }
    if (handled) return handled.then(undefined, (err: unknown) => recover(c, err));
  };
}
