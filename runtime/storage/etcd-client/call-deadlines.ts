// The deadlines of the calls in flight, watched by one timer instead of a timer per call. Nearly
// every call ends long before its deadline (a create's Txn in a millisecond, its deadline a minute
// away), so arming and clearing a node timer for each cost more than the call's own bookkeeping;
// here a call is one entry in a Set, and the timer is armed for the earliest deadline only when a
// call brings one earlier than the timer already waits for.

export interface Expirable {
  /** Epoch ms after which the call is abandoned. */
  readonly deadline: number;
  /** Called once when the deadline has passed with the call still in the set. */
  expire(): void;
}

export class CallDeadlines {
  private readonly pending = new Set<Expirable>();
  private timer?: NodeJS.Timeout;
  /** When the armed timer fires (epoch ms); Infinity when none is armed. */
  private armedFor = Infinity;

  add(call: Expirable): void {
    this.pending.add(call);
    if (call.deadline < this.armedFor) this.arm(call.deadline);
  }

  delete(call: Expirable): void {
    this.pending.delete(call);
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.armedFor = at;
    this.timer = setTimeout(() => this.sweep(), Math.max(at - Date.now(), 0));
  }

  /** Expires every call past its deadline and arms the timer for the earliest one left. */
  private sweep(): void {
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = Date.now();
    let next = Infinity;
    const expired: Expirable[] = [];
    for (const call of this.pending) {
      if (call.deadline <= now) expired.push(call);
      else if (call.deadline < next) next = call.deadline;
    }
    for (const call of expired) {
      this.pending.delete(call);
      call.expire();
    }
    // A call expired above may have started another; it armed the timer already if it had to.
    if (next < this.armedFor) this.arm(next);
  }
}
