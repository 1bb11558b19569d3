// Request deadlines, as kube-apiserver's WithRequestDeadline and timeout filters apply them: every
// request that is not long-running gets the server's --request-timeout, shortened by a `timeout`
// query parameter (a Go duration). When the deadline passes first, the client gets 504 Timeout
// and the handler's later answer is dropped; handlers can stop early through
// c.get('deadline').signal.

import { badRequest, StatusError } from '../../errors/status-error.js';
import type { KubeMiddleware } from '../context.js';
import { DeadlineSweeper, deadlineFollowing, RequestDeadline } from '../deadlines.js';
import { parseGoDuration } from '../../machinery/duration.js';
import { isLongRunning } from '../../machinery/request-info.js';
import type { StatusWriter } from '../status-response.js';

export function requestTimeoutError(): StatusError {
  return new StatusError(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {});
}

const EXPIRED = Symbol('expired');

export function withRequestDeadline(defaultTimeoutMs: number, writeStatus: StatusWriter): KubeMiddleware {
  const sweeper = new DeadlineSweeper(requestTimeoutError);
  return async (c, next) => {
    const info = c.get('requestInfo');
    if (isLongRunning(info)) {
      // No deadline, but a watch still wants to know when its client goes away.
      c.set('deadline', deadlineFollowing(() => c.req.raw.signal));
      return next();
    }

    let timeoutMs = defaultTimeoutMs;
    const param = c.req.query('timeout');
    if (param !== undefined && param !== '') {
      let requested: number;
      try {
        requested = parseGoDuration(param);
      } catch (err) {
        throw badRequest(`invalid timeout specified in the request URL - ${(err as Error).message}`);
      }
      if (requested > 0 && requested < timeoutMs) timeoutMs = requested;
    }

    let fire!: (v: typeof EXPIRED) => void;
    const expired = new Promise<typeof EXPIRED>((resolve) => (fire = resolve));
    const deadline = new RequestDeadline(Date.now() + timeoutMs, () => fire(EXPIRED));
    c.set('deadline', deadline);
    sweeper.track(deadline);
    const handled = next();
    try {
      if ((await Promise.race([handled, expired])) === EXPIRED) {
        // The handler runs on to its end; its failure, if any, must not go unobserved.
        handled.catch(() => {});
        c.res = await writeStatus(c, requestTimeoutError());
      }
    } finally {
      sweeper.untrack(deadline);
    }
  };
}
