// One client's watch served from a watch cache, after k8s.io/apiserver's cacheWatcher: it filters
// the resource's events by namespace and selectors (turning selector transitions into ADDED and
// DELETED), and, when the client allows bookmarks, sends BOOKMARK events carrying the cacher's
// revision so the client can resume from there even if nothing it selects has changed: one every
// bookmark interval (a minute), and one 2 s before the watch's deadline, so that a watch that
// times out (client-go's reflector asks for 5 to 10 minutes) ends close to now and the client
// resumes from there without a relist.

import type { Codec } from '../codec.js';
import type { Predicate } from '../selection.js';
import { toWatchEvent, type WatchStream } from '../watch-stream.js';
import type { CacheEventSink, CachedEvent } from './watch-cache.js';

/** The annotation marking the bookmark that ends a watch's initial events (sendInitialEvents). */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/** How long before a watch's deadline its last BOOKMARK goes out (kube-apiserver's cacheWatcher). */
export const PRE_DEADLINE_BOOKMARK_MS = 2000;

/**
 * When the next periodic BOOKMARK is due, after upstream's cacheWatcher.nextBookmarkTime: one
 * interval from now, but no later than 2 s before the deadline; none once that point has passed.
 */
export function nextBookmarkTime(now: number, intervalMs: number, deadline?: number): number | undefined {
  const next = deadline === undefined ? now + intervalMs : Math.min(now + intervalMs, deadline - PRE_DEADLINE_BOOKMARK_MS);
  return next > now ? next : undefined;
}

export interface CacheWatcherOptions {
  codec: Codec;
  /** Only keys under this prefix (the namespace of the request, or the whole resource). */
  keyPrefix: string;
  predicate: Predicate;
  stream: WatchStream;
  /** Objects not yet decoded are decoded for this watcher alone (see WatchRequest.transient). */
  transient?: boolean;
  /** Events at or below this revision were already sent (or precede the watch). */
  afterRevision: number;
  allowBookmarks: boolean;
  /** How often a watcher that allows bookmarks gets one. */
  bookmarkIntervalMs: number;
  /** When the watch ends (epoch ms; timeoutSeconds), if it does. */
  deadline?: number;
  /** The cacher's revision: every change up to it has been handed to this watcher. */
  progress: () => number;
  /** Called once when the watcher ends, to unregister it. */
  forget: () => void;
}

export class CacheWatcher implements CacheEventSink {
  private sentRevision: number;
  private ended = false;
  private bookmarkTimer?: ReturnType<typeof setTimeout>;

  constructor(private readonly options: CacheWatcherOptions) {
    this.sentRevision = options.afterRevision;
    options.stream.onStop(() => this.end());
  }

  deliver(event: CachedEvent): void {
    const { codec, keyPrefix, predicate, stream } = this.options;
    const revision = event.kv.modRevision;
    if (this.ended || revision <= this.sentRevision) return;
    this.sentRevision = revision;
    if (!event.kv.key.startsWith(keyPrefix)) return;
    const out = toWatchEvent(codec, event, predicate, !this.options.transient);
    if (out) stream.push(out);
  }

  /**
   * A BOOKMARK at the cacher's revision, when the client asked for bookmarks. Never behind what
   * the client already has: a watch from a future revision stays silent until the cache gets there.
   */
  bookmark(initialEventsEnd = false): void {
    if (this.ended || !this.options.allowBookmarks) return;
    const revision = Math.max(this.options.progress(), this.sentRevision);
    const { codec } = this.options;
    const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
    if (initialEventsEnd) metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
    this.options.stream.push({ type: 'BOOKMARK', object: { kind: codec.kind, apiVersion: codec.apiVersion, metadata } });
  }

  /**
   * Starts the periodic BOOKMARKs, when the client allows them; they stop with the watcher. Each
   * next one is timed from when the last was due: node times a timer from the event loop's
   * clock, which lags the wall clock by however long the turn that set it had run, so a timer can
   * fire before Date.now() reaches its time, and the bookmark before the deadline, timed from
   * Date.now() alone, was sent twice (seen in CI on a loaded machine).
   */
  scheduleBookmarks(due = 0): void {
    if (this.ended || !this.options.allowBookmarks) return;
    const now = Math.max(Date.now(), due);
    const at = nextBookmarkTime(now, this.options.bookmarkIntervalMs, this.options.deadline);
    if (at === undefined) return;
    this.bookmarkTimer = setTimeout(() => {
      this.bookmark();
      this.scheduleBookmarks(at);
    }, at - now);
  }

  /** The cache went away (re-list or shutdown): the client must reconnect. */
  terminate(): void {
    this.options.stream.stop();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.bookmarkTimer);
    this.options.forget();
  }
}
