// What graceful shutdown waits for (kube's HandlerChainWaitGroup): requests that are not
// long-running, counted from here to the end of their response, so that a write the store has
// committed is also answered before the store closes. Watches are not counted: shutdown ends
// them separately.

import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import { isLongRunning } from '../../machinery/request-info.js';
import type { KubeContext, KubeHandler } from '../context.js';
import { whenResponseDone } from '../response-done.js';

export class RequestDrain {
  /** Made once: what a counted request's response runs when it is done. */
  private static readonly release = (drain: RequestDrain) => drain.released();

  private inFlight = 0;
  private idle: (() => void)[] = [];

  handler(inner: KubeHandler): KubeHandler {
    return (c) => {
      if (isLongRunning(c.get('requestInfo'))) return inner(c);
      this.inFlight++;
      let handled;
      try {
        handled = inner(c);
      } catch (err) {
        this.handled(c);
        throw err;
      }
      if (!handled) return this.handled(c);
      return handled.then(
        () => this.handled(c),
        (err: unknown) => {
          this.handled(c);
          throw err;
        },
      );
    };
  }

  /** The handler is done; the count drops once its response is written too. */
  private handled(c: KubeContext): void {
    const outgoing: ServerResponse | Http2ServerResponse | undefined = c.env?.outgoing;
    const sending = outgoing && !outgoing.writableFinished && !('stream' in outgoing ? outgoing.stream.destroyed : outgoing.destroyed);
    if (sending) whenResponseDone(outgoing, RequestDrain.release, this);
    else this.released();
  }

  /** One request fewer; the waiters hear of the last. */
  private released(): void {
    if (--this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
  }

  /** Resolves true once no counted request is in flight, false if `timeoutMs` passes first. */
  drained(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
