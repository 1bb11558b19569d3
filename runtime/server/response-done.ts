// What runs when a response is done (its 'close': written out, or its connection gone): the
// filters that count or record requests (in-flight limits, the shutdown drain, metrics) and the
// HTTPS server's connection bookkeeping. A response gets one listener however many of them wait
// on it, and each registers a function made once with a value of the request, so a request pays
// for neither a listener wrapper per filter nor a closure per filter.

import type { EventEmitter } from 'node:events';

const FINISHERS = Symbol('kube-lite.finishers');

/** The finishers waiting on a response, function and value in turn; null once it has closed. */
type Tracked = EventEmitter & { [FINISHERS]?: unknown[] | null };

function runFinishers(this: Tracked): void {
  const list = this[FINISHERS];
  this[FINISHERS] = null;
  if (!list) return;
  for (let i = 0; i < list.length; i += 2) (list[i] as (value: unknown) => void)(list[i + 1]);
}

/** Calls `finish(value)` once `response` is done; at once when it is done already. */
export function whenResponseDone<T>(response: EventEmitter, finish: (value: T) => void, value: T): void {
  const tracked = response as Tracked;
  const list = tracked[FINISHERS];
  if (list === null) {
    finish(value);
    return;
  }
  if (list) {
    list.push(finish, value);
    return;
  }
  tracked[FINISHERS] = [finish, value];
  tracked.on('close', runFinishers);
}
