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

function cut(outgoing: Outgoing): void {
  if ('stream' in outgoing) outgoing.stream.close(constants.NGHTTP2_INTERNAL_ERROR);
  // A pipelined answer waiting behind another (a watch, say) has no socket of its own yet, and
  // destroying it would wait for one: the connection goes.
  else (outgoing.socket ?? outgoing.req.socket).destroy();
}

export class UnwrittenAnswers {
  /** Each answer being written, with its request's deadline (epoch milliseconds). */
  private readonly pending = new Map<Outgoing, number>();
  private timer: NodeJS.Timeout | undefined;

  /** `outgoing` is cut if it is still being written at `expiresAt`, unless written() is called first. */
  track(outgoing: Outgoing, expiresAt: number): void {
    this.pending.set(outgoing, expiresAt);
    if (!this.timer) {
      this.timer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
      // Pending answers never keep the process alive on their own.
      this.timer.unref();
    }
  }

  written(outgoing: Outgoing): void {
    this.pending.delete(outgoing);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [outgoing, expiresAt] of this.pending) {
      if (expiresAt > now || !outgoing.headersSent) continue;
      this.pending.delete(outgoing);
      cut(outgoing);
    }
    if (this.pending.size === 0) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}
