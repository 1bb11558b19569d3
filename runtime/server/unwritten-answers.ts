// Answers still not written out when their request's deadline passes are cut, so a client that
// asks for a large list and never reads it cannot hold a max-in-flight seat past --request-timeout.
// kube's timeout filter does the same to a request whose handler has begun its response when the
// deadline comes (a 504 can no longer be sent): it aborts the handler, and Go's server closes the
// HTTP/1.1 connection or resets the HTTP/2 stream with INTERNAL_ERROR. So is an HTTP/1.1 answer
// made but still waiting behind an earlier one on its connection (pipelined behind a watch, say),
// a request Go would not even have read yet. A request whose handler has not answered is left to
// the request-deadline filter, which answers it 504.

import type { ServerResponse } from 'node:http';
import { constants, type Http2ServerResponse } from 'node:http2';

type Outgoing = ServerResponse | Http2ServerResponse;

/** How often the answers past their deadline are looked for: the bound is the deadline plus this. */
const SWEEP_INTERVAL_MS = 1_000;

const EXPIRES = Symbol('unwritten.expires');
const PREVIOUS = Symbol('unwritten.previous');
const NEXT = Symbol('unwritten.next');

/**
 * A response in the list of answers being written. The links live on the response itself: every
 * request that holds a seat is tracked, and a Map keyed by responses (which die young, where the
 * table lives long) made such a GET cost 3.5 µs more server CPU than masters' in a bench run of
 * its own, and 14 µs more in a full bench run; with the links the difference is within noise.
 */
type Tracked = Outgoing & { [EXPIRES]?: number; [PREVIOUS]?: Tracked; [NEXT]?: Tracked };

function cut(outgoing: Outgoing): void {
  if ('stream' in outgoing) outgoing.stream.close(constants.NGHTTP2_INTERNAL_ERROR);
  // A pipelined answer waiting behind another (a watch, say) has no socket of its own yet, and
  // destroying it would wait for one: the connection goes.
  else (outgoing.socket ?? outgoing.req.socket).destroy();
}

export class UnwrittenAnswers {
  /** The most recently tracked answer; each links to the one tracked before it. */
  private newest: Tracked | undefined;
  private timer: NodeJS.Timeout | undefined;

  /** `outgoing` is cut if it is still being written at `expiresAt`, unless written() is called first. */
  track(outgoing: Outgoing, expiresAt: number): void {
    const tracked = outgoing as Tracked;
    tracked[EXPIRES] = expiresAt;
    tracked[PREVIOUS] = this.newest;
    tracked[NEXT] = undefined;
    if (this.newest) this.newest[NEXT] = tracked;
    this.newest = tracked;
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
      // Pending answers never keep the process alive on their own.
      this.timer.unref();
    }
  }

  written(outgoing: Outgoing): void {
    const tracked = outgoing as Tracked;
    if (tracked[EXPIRES] === undefined) return;
    const previous = tracked[PREVIOUS];
    const next = tracked[NEXT];
    if (previous) previous[NEXT] = next;
    if (next) next[PREVIOUS] = previous;
    else if (this.newest === tracked) this.newest = previous;
    tracked[EXPIRES] = tracked[PREVIOUS] = tracked[NEXT] = undefined;
  }

  private sweep(): void {
    const now = Date.now();
    for (let tracked = this.newest; tracked; ) {
      const previous = tracked[PREVIOUS];
      if (tracked[EXPIRES]! <= now && tracked.headersSent) {
        this.written(tracked);
        cut(tracked);
      }
      tracked = previous;
    }
    if (!this.newest) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
