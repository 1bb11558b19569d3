// In-process watch fan-out shared by the embedded backends (memory and sqlite).
//
// Both backends commit synchronously, so a watch can read its replay from history and join the
// live stream inside one synchronous step: no write can slip between the two, which is what
// makes "replay, then live" free of gaps and duplicates. Delivery itself is asynchronous (a
// microtask after the commit) so a callback never runs inside a write and a callback that
// writes again cannot re-enter the store mid-transaction.

import { StorageError } from './interface.js';
import type { StorageWatchEvent, WatchCallbacks, Watcher } from './interface.js';

/** True when `key` falls under a watch on `watched` (an exact key, or a prefix). */
export const watchMatches = (watched: string, prefix: boolean, key: string): boolean =>
  prefix ? key.startsWith(watched) : key === watched;

type Pending = { event: StorageWatchEvent } | { error: StorageError };

class HubWatcher implements Watcher {
  private readonly queue: Pending[] = [];
  private draining = false;
  stopped = false;

  constructor(
    readonly key: string,
    readonly prefix: boolean,
    private readonly callbacks: WatchCallbacks,
    private readonly detach: (w: HubWatcher) => void,
  ) {}

  push(item: Pending): void {
    if (this.stopped) return;
    this.queue.push(item);
    if (!this.draining) {
      this.draining = true;
      queueMicrotask(() => this.drain());
    }
  }

  private drain(): void {
    // The loop picks up events queued by the callbacks themselves, keeping revision order.
    while (!this.stopped && this.queue.length > 0) {
      const item = this.queue.shift()!;
      if ('error' in item) {
        this.stop();
        this.callbacks.onError(item.error);
        break;
      }
      try {
        this.callbacks.onEvent(item.event);
      } catch (cause) {
        // A consumer that throws has lost its place in the stream; end the watch loudly rather
        // than skip the event and let it carry on with a silent gap.
        this.stop();
        const message = cause instanceof Error ? cause.message : String(cause);
        this.callbacks.onError(new StorageError('Unavailable', this.key, `watch consumer failed: ${message}`));
      }
    }
    this.draining = false;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.queue.length = 0;
    this.detach(this);
  }
}

export class WatchHub {
  private readonly watchers = new Set<HubWatcher>();

  /**
   * Registers a live watcher whose first deliveries are `replay` (events already committed,
   * in revision order). Must be called in the same synchronous step that read `replay`.
   */
  subscribe(key: string, prefix: boolean, callbacks: WatchCallbacks, replay: readonly StorageWatchEvent[] = []): Watcher {
    const watcher = new HubWatcher(key, prefix, callbacks, (w) => this.watchers.delete(w));
    for (const event of replay) watcher.push({ event });
    this.watchers.add(watcher);
    return watcher;
  }

  /** A watcher that only reports `error` (asynchronously, after the caller holds the handle). */
  failed(key: string, callbacks: WatchCallbacks, error: StorageError): Watcher {
    const watcher = new HubWatcher(key, false, callbacks, () => {});
    watcher.push({ error });
    return watcher;
  }

  /** Fans one committed event out to every matching watcher; call right after the commit. */
  publish(event: StorageWatchEvent): void {
    for (const w of this.watchers) {
      if (watchMatches(w.key, w.prefix, event.kv.key)) w.push({ event });
    }
  }

  /** Ends every watch with `error` (the store is closing). */
  closeAll(error: (key: string) => StorageError): void {
    for (const w of [...this.watchers]) w.push({ error: error(w.key) });
    this.watchers.clear();
  }

  get size(): number {
    return this.watchers.size;
  }
}

/**
 * Callbacks that drop events at or below `revision`: a watch that starts past the current
 * revision waits for it, as an etcd watch does, instead of failing.
 */
export const skipUntil = (revision: number, callbacks: WatchCallbacks): WatchCallbacks => ({
  onEvent: (event) => {
    if (event.kv.modRevision > revision) callbacks.onEvent(event);
  },
  onError: (error) => callbacks.onError(error),
});
