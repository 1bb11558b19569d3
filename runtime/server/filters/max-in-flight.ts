// A simple cap on concurrent requests, as kube-apiserver's --max-requests-inflight and
// --max-mutating-requests-inflight set it. Long-running requests and system:masters are not
// counted, nor the health endpoints (kube's probes flow schema exempts them). Over the cap the
// client gets 429 with Retry-After: 1, and retries.
//
// A request counts from here to the end of its response: until node has written the whole
// response or the connection has closed, not just until the handler returned. Handlers over
// memory storage return within one turn of the event loop, so counting only their run would
// never see two at once; the requests node reads in one turn of its event loop, and responses
// still being written to slow readers, are where the load piles up. An answer still unwritten at
// its request's deadline is cut (unwritten-answers.ts, through the request-deadline filter), so a
// client that never reads cannot keep a seat past --request-timeout, as kube's timeout filter
// bounds the handler that holds one there.

import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import { StatusError } from '../../errors/status-error.js';
import { SYSTEM_MASTERS } from '../../auth/user.js';
import type { KubeContext, KubeHandler } from '../context.js';
import { whenResponseDone } from '../response-done.js';
import { isLongRunning, isMutating, type RequestInfo } from '../../machinery/request-info.js';

export interface InFlightLimits {
  /** 0 disables the limit. */
  nonMutating: number;
  mutating: number;
}

export const DEFAULT_IN_FLIGHT_LIMITS: InFlightLimits = { nonMutating: 400, mutating: 200 };

export function tooManyRequestsError(): StatusError {
  return new StatusError(
    429,
    'TooManyRequests',
    'Too many requests, please try again later.',
    { retryAfterSeconds: 1 },
    { 'Retry-After': '1' },
  );
}

const HEALTH_PATH = /^\/(?:healthz|livez|readyz)(?:\/|$)/;

function isExempt(info: RequestInfo): boolean {
  return isLongRunning(info) || (!info.isResourceRequest && HEALTH_PATH.test(info.path));
}

type Outgoing = ServerResponse | Http2ServerResponse;

/** A node response not yet written out nor gone: its seat is released when it is done. */
function beingWritten(outgoing: Outgoing | undefined): outgoing is Outgoing {
  return outgoing !== undefined && !outgoing.writableFinished && !('stream' in outgoing ? outgoing.stream.destroyed : outgoing.destroyed);
}

/**
 * The most requests in flight of each kind since it was last read, which
 * apiserver_current_inflight_requests reports (kube's watermark: the peak, not a sample).
 */
export class InFlightWatermark {
  readOnly = 0;
  mutating = 0;
  /** The filter's live counts. */
  current = { nonMutating: 0, mutating: 0 };
  /** The peaks since the last call; the next period starts at the current counts. */
  take(): { readOnly: number; mutating: number } {
    const peaks = { readOnly: this.readOnly, mutating: this.mutating };
    this.readOnly = this.current.nonMutating;
    this.mutating = this.current.mutating;
    return peaks;
  }
}

export function withMaxInFlight(inner: KubeHandler, limits: InFlightLimits, watermark?: InFlightWatermark): KubeHandler {
  const inFlight = { nonMutating: 0, mutating: 0 };
  if (watermark) watermark.current = inFlight;
  const release = (kind: 'nonMutating' | 'mutating') => void inFlight[kind]--;
  /** An in-process request (app.request) has no node response: its handler's run is what counts. */
  const counted = async (c: KubeContext, kind: 'nonMutating' | 'mutating'): Promise<void> => {
    try {
      return await inner(c);
    } finally {
      release(kind);
    }
  };
  return (c) => {
    const info = c.get('requestInfo');
    if (isExempt(info) || c.get('user').groups.includes(SYSTEM_MASTERS)) return inner(c);
    const kind = isMutating(info) ? 'mutating' : 'nonMutating';
    const limit = limits[kind];
    if (limit <= 0) return inner(c);
    if (inFlight[kind] >= limit) throw tooManyRequestsError();
    inFlight[kind]++;
    if (watermark) {
      if (kind === 'mutating') watermark.mutating = Math.max(watermark.mutating, inFlight.mutating);
      else watermark.readOnly = Math.max(watermark.readOnly, inFlight.nonMutating);
    }
    // Served at once, as kube's filter serves a request that got a seat: the seat is held until
    // the response is written, so the requests node reads in one turn all hold theirs before any
    // response is done, and past the limit the rest get a cheap 429. A handler that answers at
    // once keeps its answer unwrapped, for the HTTPS server's answer batch (answer-batch.ts).
    const outgoing = c.env?.outgoing;
    if (!beingWritten(outgoing)) return counted(c, kind);
    // The kind is the finisher's value, so a response's finisher needs no closure.
    whenResponseDone(outgoing, release, kind);
    return inner(c);
  };
}
