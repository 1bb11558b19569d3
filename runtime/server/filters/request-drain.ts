// What graceful shutdown waits for (kube's HandlerChainWaitGroup): requests that are not
// long-running, counted from here to the end of their response, so that a write the store has
// committed is also answered before the store closes. Watches are not counted: shutdown ends
// them separately.

import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import { isLongRunning } from '../../machinery/request-info.js';
import type { KubeMiddleware } from '../context.js';

export class RequestDrain {
  private inFlight = 0;
  private idle: (() => void)[] = [];

  middleware(): KubeMiddleware {
    return async (c, next) => {
      if (isLongRunning(c.get('requestInfo'))) return next();
      this.inFlight++;
      const outgoing: ServerResponse | Http2ServerResponse | undefined = c.env?.outgoing;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        if (--this.inFlight === 0) for (const resolve of this.idle.splice(0)) resolve();
      };
      try {
        await next();
      } finally {
        const sending = outgoing && !outgoing.writableFinished && !('stream' in outgoing ? outgoing.stream.destroyed : outgoing.destroyed);
        if (sending) outgoing.once('close', release);
        else release();
      }
    };
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
