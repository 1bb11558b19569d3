// Request deadlines without a timer and an AbortController per request: both cost more than the
// rest of the filter chain together. One sweeper per server checks the in-flight deadlines on
// a short tick, and a request's AbortSignal is only made when a handler asks for it. The same
// tick cuts the answers still unwritten at their deadline (unwritten-answers.ts).

import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import { UnwrittenAnswers } from './unwritten-answers.js';

/** How often the sweeper looks; a deadline fires at most this much late. */
const SWEEP_INTERVAL_MS = 20;

export class RequestDeadline {
  private controller?: AbortController;
  private reason: unknown;
  expired = false;
  /** Told once, when the deadline passes. */
  onExpire?: () => void;
  /** The sweeper tracking it, and its neighbours in that sweeper's list (see DeadlineSweeper). */
  sweeper?: DeadlineSweeper;
  previous?: RequestDeadline;
  next?: RequestDeadline;

  constructor(
    /** Epoch milliseconds; Infinity for long-running requests. */
    readonly expiresAt: number,
    private readonly upstream?: () => AbortSignal,
  ) {}

  /** Aborted at the deadline (or, for a request without one, when the client goes away). */
  get signal(): AbortSignal {
    if (this.upstream) return this.upstream();
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.expired) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  expire(reason: unknown): void {
    if (this.expired) return;
    this.expired = true;
    this.reason = reason;
    this.controller?.abort(reason);
    this.onExpire?.();
  }
}

/** A deadline that never passes, whose signal follows another (the client connection's). */
export function deadlineFollowing(signal: () => AbortSignal): RequestDeadline {
  return new RequestDeadline(Number.POSITIVE_INFINITY, signal);
}

export class DeadlineSweeper {
  /**
   * The in-flight deadlines, linked through their own fields. A Set that every request joined and
   * left held the requests' objects (reachable from each deadline's onExpire) through V8's young
   * collections into the old generation, where only a full collection freed them: under wrk CREATE
   * (16 connections, `--trace-gc-nvp`) each scavenge promoted 2.3 MB with the Set, 0.5 MB without,
   * and took 3.5-4.5 ms against 1.5. A deadline leaves with its links cleared, so nothing it
   * leaves behind points at another.
   */
  private first: RequestDeadline | undefined;
  private readonly answers = new UnwrittenAnswers(() => this.wake());
  private timer: NodeJS.Timeout | undefined;
  /** A deadline was tracked since the last sweep: the tick stays while requests keep coming. */
  private busy = false;

  constructor(
    private readonly reason: () => unknown,
    private readonly intervalMs = SWEEP_INTERVAL_MS,
  ) {}

  track(deadline: RequestDeadline): void {
    if (deadline.sweeper !== undefined) return;
    deadline.sweeper = this;
    deadline.next = this.first;
    if (this.first) this.first.previous = deadline;
    this.first = deadline;
    this.wake();
  }

  /** The response of a request whose answer is made: cut if it is still being written at `expiresAt`. */
  trackAnswer(outgoing: ServerResponse | Http2ServerResponse, expiresAt: number): void {
    this.answers.add(outgoing, expiresAt);
  }

  untrack(deadline: RequestDeadline): void {
    if (deadline.sweeper !== this) return;
    const { previous, next } = deadline;
    if (previous) previous.next = next;
    else this.first = next;
    if (next) next.previous = previous;
    deadline.previous = deadline.next = deadline.sweeper = undefined;
  }

  private sweep(): void {
    const now = Date.now();
    for (let d = this.first; d; ) {
      const next = d.next;
      if (d.expiresAt <= now) {
        this.untrack(d);
        d.expire(this.reason());
      }
      d = next;
    }
    if (!this.answers.empty) this.answers.sweep(now);
    // Stopped after a whole tick without requests, not whenever the list is empty for a moment:
    // under load that would start and stop an interval many times a second.
    if (this.first === undefined && this.answers.empty && !this.busy && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
    this.busy = false;
  }

  private wake(): void {
    this.busy = true;
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), this.intervalMs);
    // Pending deadlines and answers never keep the process alive on their own.
    this.timer.unref();
  }
}
