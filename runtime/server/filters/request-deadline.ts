// Request deadlines, as kube-apiserver's WithRequestDeadline and timeout filters apply them: every
// request that is not long-running gets the server's --request-timeout, shortened by a `timeout`
// query parameter (a Go duration). When the deadline passes first, the client gets 504 Timeout
// and the handler's later answer is dropped; handlers can stop early through
// c.get('deadline').signal.

import { badRequest, StatusError } from '../../errors/status-error.js';
import type { KubeContext, KubeHandler } from '../context.js';
import { DeadlineSweeper, deadlineFollowing, RequestDeadline } from '../deadlines.js';
import { parseGoDuration } from '../../machinery/duration.js';
import { isLongRunning } from '../../machinery/request-info.js';
import type { StatusWriter } from '../status-response.js';

export function requestTimeoutError(): StatusError {
  return new StatusError(504, 'Timeout', 'Timeout: request did not complete within requested timeout - context deadline exceeded', {});
}

/** The server's timeout, or the request's `timeout` when that is shorter. */
function timeoutOf(c: KubeContext, defaultTimeoutMs: number): number {
  const param = c.req.query('timeout');
  if (param === undefined || param === '') return defaultTimeoutMs;
  let requested: number;
  try {
    requested = parseGoDuration(param);
  } catch (err) {
    throw badRequest(`invalid timeout specified in the request URL - ${(err as Error).message}`);
  }
  return requested > 0 && requested < defaultTimeoutMs ? requested : defaultTimeoutMs;
}

const ignore = () => {};

export function withRequestDeadline(inner: KubeHandler, defaultTimeoutMs: number, writeStatus: StatusWriter): KubeHandler {
  const sweeper = new DeadlineSweeper(requestTimeoutError);
  return (c) => {
    if (isLongRunning(c.get('requestInfo'))) {
      // No deadline, but a watch still wants to know when its client goes away.
      c.set('deadline', deadlineFollowing(() => c.req.raw.signal));
      return inner(c);
    }
    const deadline = new RequestDeadline(Date.now() + timeoutOf(c, defaultTimeoutMs));
    c.set('deadline', deadline);
    const handled = inner(c);
    // Answered without waiting: there was nothing to time.
    if (!handled) return;
    sweeper.track(deadline);
    // Settles with the handler or at the deadline, whichever comes first.
    return new Promise<void>((resolve, reject) => {
      deadline.onExpire = () => {
        // The handler runs on to its end; its failure, if any, must not go unobserved.
        handled.catch(ignore);
        Promise.resolve(writeStatus(c, requestTimeoutError())).then((res) => {
          c.res = res;
          resolve();
        }, reject);
      };
      handled.then(
        () => {
          sweeper.untrack(deadline);
          resolve();
        },
        (err: unknown) => {
          sweeper.untrack(deadline);
          reject(err);
        },
      );
    });
  };
}
