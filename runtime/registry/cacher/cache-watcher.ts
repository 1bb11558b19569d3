// One client's watch served from a watch cache, after k8s.io/apiserver's cacheWatcher: it filters
// the resource's events by namespace and selectors (turning selector transitions into ADDED and
// DELETED), and, when the client allows bookmarks, sends BOOKMARK events carrying the cacher's
// revision so the client can resume from there even if nothing it selects has changed.

import type { Store } from '../store.js';
import type { Predicate } from '../selection.js';
import { toWatchEvent, type WatchStream } from '../watch-stream.js';
import type { CachedEvent } from './watch-cache.js';

/** The annotation marking the bookmark that ends a watch's initial events (sendInitialEvents). */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

export interface CacheWatcherOptions {
  store: Store;
  /** Only keys under this prefix (the namespace of the request, or the whole resource). */
  keyPrefix: string;
  predicate: Predicate;
  stream: WatchStream;
  /** Events at or below this revision were already sent (or precede the watch). */
  afterRevision: number;
  allowBookmarks: boolean;
  /** The cacher's revision: every change up to it has been handed to this watcher. */
  progress: () => number;
  /** Called once when the watcher ends, to unregister it. */
  forget: () => void;
}

export class CacheWatcher {
  private sentRevision: number;
  private ended = false;

  constructor(private readonly options: CacheWatcherOptions) {
    this.sentRevision = options.afterRevision;
    options.stream.onStop(() => this.end());
  }

  deliver(event: CachedEvent): void {
    const { store, keyPrefix, predicate, stream } = this.options;
    const revision = event.kv.modRevision;
    if (this.ended || revision <= this.sentRevision) return;
    this.sentRevision = revision;
    if (!event.kv.key.startsWith(keyPrefix)) return;
    const out = toWatchEvent(store, event, predicate);
    if (out) stream.push(out);
  }

  /**
   * A BOOKMARK at the cacher's revision, when the client asked for bookmarks. Never behind what
   * the client already has: a watch from a future revision stays silent until the cache gets there.
   */
  bookmark(initialEventsEnd = false): void {
    if (this.ended || !this.options.allowBookmarks) return;
    const revision = Math.max(this.options.progress(), this.sentRevision);
    const { store } = this.options;
    const metadata: Record<string, unknown> = { resourceVersion: String(revision) };
    if (initialEventsEnd) metadata.annotations = { [INITIAL_EVENTS_END_ANNOTATION]: 'true' };
    this.options.stream.push({ type: 'BOOKMARK', object: { kind: store.definition.kind, apiVersion: store.apiVersion, metadata } });
  }

  /** The cache went away (re-list or shutdown): the client must reconnect. */
  terminate(): void {
    this.options.stream.stop();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.options.forget();
  }
}
