// The watch cache of one resource (one storage prefix), after k8s.io/apiserver's watchCache: the
// objects under the prefix as of the cacher's revision, plus a window of recent events so that
// watches can start from a past resourceVersion without touching the store.
//
// History is kept by time (the window, default 5 minutes like the store's own history) and
// bounded by count (kube-apiserver's largest watch cache capacity, 100 * 1024 events): whichever
// forgets first wins. `horizon` is the revision after which every event is still held; a watch
// from an older resourceVersion is "too old" (410), exactly as upstream's getAllEventsSinceLocked.

import type { KeyValue, StorageWatchEvent } from '../../storage/interface.js';
import { SortedKeys } from './sorted-keys.js';

/** One change as the cache keeps it: the storage event plus when it arrived. */
export interface CachedEvent extends StorageWatchEvent {
  /** Date.now() when the cache saw it; drives the time-based history window. */
  at: number;
}

/** What the cache needs of a watcher it feeds (cache-watcher.ts). */
export interface CacheEventSink {
  deliver(event: CachedEvent): void;
  /** The cache went away: the client must reconnect. */
  terminate(): void;
}

export interface HistoryLimits {
  windowMs: number;
  capacity: number;
}

export const DEFAULT_HISTORY_WINDOW_MS = 5 * 60_000;
export const DEFAULT_HISTORY_CAPACITY = 100 * 1024;

export class WatchCache {
  private readonly objects = new Map<string, KeyValue>();
  /** The keys of `objects` in key order, for lists and continue tokens. */
  private readonly keys = new SortedKeys();
  private events: CachedEvent[] = [];
  /** events[0..start) are forgotten; the array is trimmed once the dead head grows large. */
  private start = 0;
  /** Every event with a revision above this is in `events`. */
  horizon = 0;
  readonly watchers = new Set<CacheEventSink>();

  constructor(
    readonly prefix: string,
    private readonly limits: HistoryLimits,
  ) {}

  /** Forgets everything (a new list follows) and ends every watcher, as a cacher re-list does. */
  reset(revision: number): void {
    this.objects.clear();
    this.keys.clear();
    this.events = [];
    this.start = 0;
    this.horizon = revision;
    this.terminateWatchers();
  }

  terminateWatchers(): void {
    for (const w of [...this.watchers]) w.terminate();
    this.watchers.clear();
  }

  /** An object of the initial list. */
  load(kv: KeyValue): void {
    this.put(kv);
  }

  /** Applies one change, records it in the history and hands it to every watcher. */
  apply(event: StorageWatchEvent, now = Date.now()): void {
    // The cache's own previous state is authoritative for prevKv (a backend may omit it on puts).
    const prevKv = this.objects.get(event.kv.key) ?? event.prevKv;
    // Built field by field: a spread of the backend's event object costs several times as much.
    const cached: CachedEvent = { type: event.type, kv: event.kv, prevKv, created: event.type === 'put' && prevKv === undefined, at: now };
    if (event.type === 'delete') this.remove(event.kv.key);
    else this.put(event.kv);
    this.events.push(cached);
    this.evict(now);
    for (const w of this.watchers) w.deliver(cached);
  }

  /** Drops history past the window or the capacity, moving the horizon forward. */
  evict(now = Date.now()): void {
    const cutoff = now - this.limits.windowMs;
    while (this.start < this.events.length) {
      const first = this.events[this.start]!;
      const overCapacity = this.events.length - this.start > this.limits.capacity;
      if (!overCapacity && first.at > cutoff) break;
      this.horizon = first.kv.modRevision;
      this.start++;
    }
    if (this.start > 1024 && this.start * 2 > this.events.length) {
      this.events = this.events.slice(this.start);
      this.start = 0;
    }
  }

  /** The events after `revision` in order, or undefined when some of them are forgotten. */
  eventsAfter(revision: number, now = Date.now()): CachedEvent[] | undefined {
    this.evict(now);
    if (revision < this.horizon) return undefined;
    let lo = this.start;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.kv.modRevision <= revision) lo = mid + 1;
      else hi = mid;
    }
    return this.events.slice(lo);
  }

  get(key: string): KeyValue | undefined {
    return this.objects.get(key);
  }

  /** The objects whose keys start with `keyPrefix`, from `startKey` on (inclusive), in key order. */
  *range(keyPrefix: string, startKey?: string): Generator<KeyValue> {
    const from = startKey !== undefined && startKey > keyPrefix ? startKey : keyPrefix;
    let [r, i] = this.keys.seek(from);
    for (let run = this.keys.run(r); run; run = this.keys.run(++r), i = 0) {
      for (; i < run.length; i++) {
        const key = run[i]!;
        if (!key.startsWith(keyPrefix)) return;
        yield this.objects.get(key)!;
      }
    }
  }

  /** How many objects have keys under `keyPrefix` strictly after `afterKey`. */
  countAfter(keyPrefix: string, afterKey: string): number {
    let n = 0;
    let [r, i] = this.keys.seek(afterKey);
    for (let run = this.keys.run(r); run; run = this.keys.run(++r), i = 0) {
      for (; i < run.length; i++) {
        const key = run[i]!;
        if (!key.startsWith(keyPrefix)) return n;
        if (key !== afterKey) n++;
      }
    }
    return n;
  }

  get size(): number {
    return this.objects.size;
  }

  private put(kv: KeyValue): void {
    const size = this.objects.size;
    this.objects.set(kv.key, kv);
    if (this.objects.size !== size) this.keys.insert(kv.key);
  }

  private remove(key: string): void {
    if (this.objects.delete(key)) this.keys.remove(key);
  }
}
