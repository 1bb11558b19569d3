// What runs when a response is done (its 'close': written out, or its connection gone): the
// filters that count or record requests (in-flight limits, the shutdown drain, metrics), the
// HTTPS server's connection bookkeeping, and the listener giving back a large body's lent buffer. A response gets one listener however many of them wait
// on it, and each registers a function made once with a value of the request, so a request pays
// for neither a listener wrapper per filter nor a closure per filter. A pipelined HTTP/1.1
// response is also done when its connection closes before its turn (node tells it nothing then).

import type { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

const FINISHERS = Symbol('kube-lite.finishers');

/** The finishers waiting on a response, function and value in turn; null once it has closed. */
type Tracked = EventEmitter & { [FINISHERS]?: unknown[] | null };

function runFinishers(this: Tracked): void {
  const list = this[FINISHERS];
  this[FINISHERS] = null;
  if (!list) return;
  for (let i = 0; i < list.length; i += 2) (list[i] as (value: unknown) => void)(list[i + 1]);
}

/**
 * The connection of an HTTP/1.1 response that waits behind an earlier one on it (pipelined): node
 * gives such a response its socket, and with it a 'close', only when its turn comes, so if the
 * connection ends first the response never closes. Undefined for any other response.
 */
function queuedOn(response: EventEmitter): Socket | undefined {
  const res = response as Partial<ServerResponse>;
  if (res.socket !== null || !res.req || res.writableFinished) return undefined;
  return res.req.socket ?? undefined;
}

/** Pipelined responses of a connection that may still be waiting for their turn, oldest first. */
const QUEUED = Symbol('kube-lite.queued');
type Connection = Socket & { [QUEUED]?: Tracked[] };

function closeQueued(this: Connection): void {
  const queued = this[QUEUED] ?? [];
  this[QUEUED] = undefined;
  for (const tracked of queued) runFinishers.call(tracked);
}

/** Its finishers run when the connection it waits on closes, unless it closes first. */
function closeWithConnection(tracked: Tracked, socket: Connection): void {
  if (socket.destroyed) {
    runFinishers.call(tracked);
    return;
  }
  let queued = socket[QUEUED];
  if (!queued) {
    queued = socket[QUEUED] = [];
    // One listener per connection, however deep the pipeline.
    socket.once('close', closeQueued);
  }
  // A connection's responses end in order: those at the front that are done wait no more.
  while (queued.length > 0 && queued[0][FINISHERS] === null) queued.shift();
  queued.push(tracked);
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
  const socket = queuedOn(response);
  if (socket) closeWithConnection(tracked, socket);
}
