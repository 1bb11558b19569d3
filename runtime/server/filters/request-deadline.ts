// Request deadlines, as kube-apiserver's WithRequestDeadline and timeout filters apply them: every
// request that is not long-running gets the server's --request-timeout, shortened by a `timeout`
// query parameter (a Go duration). When the deadline passes first, the client gets 504 Timeout
// and the handler's later answer is dropped; handlers can stop early through
// c.get('deadline').signal. An answer begun but still unwritten at the deadline is cut
// (unwritten-answers.ts), as kube's timeout filter aborts a handler that has begun writing.

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
    // An in-process request (app.request) has no node response, and nothing to cut.
    const outgoing = c.env?.outgoing;
    const handled = inner(c);
    // Answered without waiting: there was nothing to time, but the answer may yet wait on its client.
    if (!handled) {
      if (outgoing) sweeper.trackAnswer(outgoing, deadline.expiresAt);
      return;
    }
    sweeper.track(deadline);
    // Settles with the handler or at the deadline, whichever comes first.
    return new Promise<void>((resolve, reject) => {
      // Its answer is made: the HTTPS server writes it next.
      const answered = () => {
        if (outgoing) sweeper.trackAnswer(outgoing, deadline.expiresAt);
      };
      deadline.onExpire = () => {
        // The handler runs on to its end; its failure, if any, must not go unobserved.
        handled.catch(ignore);
        Promise.resolve(writeStatus(c, requestTimeoutError())).then((res) => {
          c.res = res;
          answered();
          resolve();
        }, reject);
      };
      handled.then(
        () => {
          sweeper.untrack(deadline);
          if (!deadline.expired) answered();
          resolve();
        },
        (err: unknown) => {
          sweeper.untrack(deadline);
          if (!deadline.expired) answered();
          reject(err);
        },
      );
    });
  };
}
