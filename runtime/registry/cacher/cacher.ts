// The cacher: the watch caches of every served resource, fed by ONE storage watch of the whole
// registry root (/registry/), after k8s.io/apiserver's Cacher and its reflector.
//
// Why one watch for all resources rather than one per resource as upstream: the cacher must know
// when it has seen every change up to the store's current revision, so that consistent ("Most
// Recent") reads can be answered from memory (upstream's ConsistentListFromCache). kube-apiserver
// learns this from etcd progress notifications; our Storage contract has none. One watch over
// every key delivers every revision in order, so the revision of the last delivered event is
// exactly how far the caches have caught up (`progress`). A write outside /registry/ would leave a
// gap; readers then wait at most `freshnessWaitMs` and fall back to the store, as upstream does
// when the cache cannot catch up in time.
//
// Start-up lists the store once (in pages) and does not block /readyz: requests that need the
// cache wait for it, bounded, or read the store instead (see cacher-storage.ts). When the
// storage watch fails (compaction under it, the store going away), every cache is dropped, every
// cache watcher ends (clients reconnect and relist), and the cacher lists again.

import { REGISTRY_ROOT } from '../keys.js';
import type { Storage, StorageWatchEvent, Watcher } from '../../storage/interface.js';
import { DEFAULT_HISTORY_CAPACITY, DEFAULT_HISTORY_WINDOW_MS, WatchCache } from './watch-cache.js';

export interface CacherOptions {
  /** History kept for watches from a past resourceVersion; default 5 minutes. */
  historyWindowMs?: number;
  /** At most this many events per resource; default 100 * 1024 (kube-apiserver's largest watch cache). */
  historyCapacity?: number;
  /** How long a read waits for the cache to reach a resourceVersion; default 3 s (kube-apiserver's blockTimeout). */
  freshnessWaitMs?: number;
  /** How often watchers that allow bookmarks get one; default 1 minute, as kube-apiserver. */
  bookmarkIntervalMs?: number;
}

const LIST_PAGE = 1000;

type State = 'idle' | 'initializing' | 'ready' | 'failed' | 'closed';

interface FreshWaiter {
  revision: number;
  resolve: (fresh: boolean) => void;
}

export class Cacher {
  readonly freshnessWaitMs: number;
  readonly bookmarkIntervalMs: number;
  /** By storage prefix; every prefix ends with '/' (route() relies on it). */
  private readonly caches = new Map<string, WatchCache>();
  /** No prefix is longer: route() looks at no head of a key past it. Only grows (a bound, not a count). */
  private longestPrefix = 0;
  private readonly limits: { windowMs: number; capacity: number };
  /**
   * Caches added while serving (a CustomResourceDefinition's resources) whose first list is still
   * running: the changes the storage watch brings meanwhile wait here, applied once it is loaded.
   */
  private readonly loading = new Map<WatchCache, StorageWatchEvent[]>();
  private state: State = 'idle';
  private generation = 0;
  private watcher?: Watcher;
  private initializing?: Promise<void>;
  private waiters: FreshWaiter[] = [];
  /** Every change up to this revision has been applied to the caches (meaningful when ready). */
  progress = 0;

  constructor(
    private readonly storage: Storage,
    prefixes: Iterable<string>,
    options: CacherOptions = {},
  ) {
    const limits = {
      windowMs: options.historyWindowMs ?? DEFAULT_HISTORY_WINDOW_MS,
      capacity: options.historyCapacity ?? DEFAULT_HISTORY_CAPACITY,
    };
    this.limits = limits;
    for (const prefix of prefixes) if (!this.caches.has(prefix)) this.setCache(prefix, new WatchCache(prefix, limits));
    this.freshnessWaitMs = options.freshnessWaitMs ?? 3000;
    this.bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
  }

  get ready(): boolean {
    return this.state === 'ready';
  }

  /** The cache of one storage prefix (`/registry/configmaps/`). */
  cacheFor(prefix: string): WatchCache | undefined {
    return this.caches.get(prefix);
  }

  /**
   * A cache for a storage prefix added while running (kube-apiserver builds a new Cacher for each
   * CustomResourceDefinition's storage). Resolves once the cache holds the prefix's objects as of
   * the cacher's progress, with every change since, or undefined when the cacher is not ready in
   * time (the caller then reads storage directly). A later re-list of the whole root includes it.
   */
  async addPrefix(prefix: string): Promise<WatchCache | undefined> {
    checkPrefix(prefix);
    const existing = this.caches.get(prefix);
    if (existing) return existing;
    if (!(await this.waitUntilReady())) return undefined;
    const raced = this.caches.get(prefix);
    if (raced) return raced;
    const cache = new WatchCache(prefix, this.limits);
    const revision = this.progress;
    const generation = this.generation;
    cache.reset(revision);
    this.loading.set(cache, []);
    this.setCache(prefix, cache);
    try {
      let page = await this.storage.list(prefix, { revision, limit: LIST_PAGE });
      for (;;) {
        // A re-list of the root since then has loaded this cache with the rest.
        if (generation !== this.generation) return cache;
        for (const kv of page.items) cache.load(kv);
        if (!page.more || page.items.length === 0) break;
        const startKey = `${page.items[page.items.length - 1]!.key}\u0000`;
        page = await this.storage.list(prefix, { revision, limit: LIST_PAGE, startKey });
      }
    } catch {
      // Storage is away or the revision compacted: the cache is loaded by the cacher's next re-list.
      if (generation === this.generation) this.fail(generation);
      return this.waitUntilReady().then((ready) => (ready && this.caches.get(prefix) === cache ? cache : undefined));
    } finally {
      const buffered = this.loading.get(cache) ?? [];
      this.loading.delete(cache);
      if (generation === this.generation) for (const event of buffered) if (event.kv.modRevision > revision) cache.apply(event);
    }
    return cache;
  }

  /** Drops the cache of a prefix no longer served; its watchers end cleanly (the client sees the stream close). */
  removePrefix(prefix: string): void {
    const cache = this.caches.get(prefix);
    if (!cache) return;
    this.caches.delete(prefix);
    this.loading.delete(cache);
    cache.terminateWatchers();
  }

  /** Starts (or restarts after a failure) the initial list and the watch; idempotent. */
  start(): Promise<void> {
    if (this.state === 'ready' || this.state === 'closed') return Promise.resolve();
    if (this.state === 'initializing' && this.initializing) return this.initializing;
    this.state = 'initializing';
    const generation = ++this.generation;
    this.initializing = this.initialize(generation).catch(() => {
      // The store is unreachable; the next request that needs the cache tries again.
      if (this.generation === generation && this.state === 'initializing') this.state = 'failed';
    });
    return this.initializing;
  }

  /** True once the cache is ready, false when it is not within `timeoutMs`. */
  async waitUntilReady(timeoutMs = this.freshnessWaitMs): Promise<boolean> {
    if (this.ready) return true;
    if (this.state === 'closed') return false;
    const starting = this.start();
    await Promise.race([starting, delay(timeoutMs)]);
    return this.ready;
  }

  /** True once the cache holds every change up to `revision`; false when it does not within `timeoutMs`. */
  async waitUntilFresh(revision: number, timeoutMs = this.freshnessWaitMs): Promise<boolean> {
    const started = Date.now();
    if (!(await this.waitUntilReady(timeoutMs))) return false;
    if (this.progress >= revision) return true;
    const remaining = Math.max(0, timeoutMs - (Date.now() - started));
    return new Promise((resolve) => {
      const waiter: FreshWaiter = {
        revision,
        resolve: (fresh) => {
          clearTimeout(timer);
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(fresh);
        },
      };
      const timer = setTimeout(() => waiter.resolve(false), remaining);
      this.waiters.push(waiter);
    });
  }

  /** Ends every watcher's stream (they see a clean end), the caches staying up: graceful shutdown's watch drain. */
  terminateWatchers(): void {
    for (const cache of this.caches.values()) cache.terminateWatchers();
  }

  close(): void {
    this.state = 'closed';
    this.generation++;
    this.watcher?.stop();
    this.watcher = undefined;
    for (const cache of this.caches.values()) cache.terminateWatchers();
    for (const w of [...this.waiters]) w.resolve(false);
  }

  private async initialize(generation: number): Promise<void> {
    // Watch first (from a revision read before the list), then list: every change lands either
    // in the list or in the watch, and the ones in both are dropped by revision below.
    const from = await this.storage.currentRevision();
    if (generation !== this.generation) return;
    const buffered: StorageWatchEvent[] = [];
    let listed = false;
    this.watcher?.stop();
    this.watcher = this.storage.watch(REGISTRY_ROOT + '/', { afterRevision: from, prefix: true }, {
      onEvent: (event) => {
        if (generation !== this.generation) return;
        if (listed) this.apply(event);
        else buffered.push(event);
      },
      onError: () => this.fail(generation),
    });
    try {
      let page = await this.storage.list(REGISTRY_ROOT + '/', { limit: LIST_PAGE });
      const revision = page.revision;
      if (generation !== this.generation) return;
      // Caches still loading on their own are loaded by this list instead.
      this.loading.clear();
      for (const cache of this.caches.values()) cache.reset(revision);
      for (;;) {
        for (const kv of page.items) this.route(kv.key)?.load(kv);
        if (!page.more || page.items.length === 0) break;
        const startKey = `${page.items[page.items.length - 1]!.key}\u0000`;
        page = await this.storage.list(REGISTRY_ROOT + '/', { revision, limit: LIST_PAGE, startKey });
        if (generation !== this.generation) return;
      }
      this.progress = revision;
    } catch (e) {
      if (generation === this.generation) {
        this.watcher?.stop();
        this.watcher = undefined;
      }
      throw e;
    }
    listed = true;
    this.state = 'ready';
    for (const event of buffered) this.apply(event);
    this.notifyWaiters();
  }

  private apply(event: StorageWatchEvent): void {
    const revision = event.kv.modRevision;
    if (revision <= this.progress) return;
    const cache = this.route(event.kv.key);
    const pending = cache && this.loading.size > 0 ? this.loading.get(cache) : undefined;
    if (pending) pending.push(event);
    else cache?.apply(event);
    this.progress = revision;
    this.notifyWaiters();
  }

  private notifyWaiters(): void {
    if (this.waiters.length === 0) return;
    for (const w of this.waiters.filter((x) => x.revision <= this.progress)) w.resolve(true);
  }

  /** The storage watch broke: drop the caches, end their watchers, and list again. */
  private fail(generation: number): void {
    if (generation !== this.generation || this.state === 'closed') return;
    this.generation++;
    this.watcher = undefined;
    this.state = 'failed';
    for (const cache of this.caches.values()) cache.terminateWatchers();
    void this.start();
  }

  /** Serves `prefix` from `cache`, and keeps the longest prefix's length for route(). */
  private setCache(prefix: string, cache: WatchCache): void {
    checkPrefix(prefix);
    this.caches.set(prefix, cache);
    this.longestPrefix = Math.max(this.longestPrefix, prefix.length);
  }

  /**
   * The cache of the longest prefix `key` lies under. Every prefix ends with '/', so it is one of
   * the key's heads up to a '/': those are looked up, longest first, a few map lookups per change
   * however many resources are served (a scan of every prefix cost a comparison per resource).
   */
  private route(key: string): WatchCache | undefined {
    // A key's heads longer than every prefix are none of them: however many slashes a key holds
    // (a foreign key under the root), the walk is bounded by the prefixes, not by the key.
    const first = key.lastIndexOf('/', this.longestPrefix - 1);
    for (let slash = first; slash >= 0; slash = slash > 0 ? key.lastIndexOf('/', slash - 1) : -1) {
      const cache = this.caches.get(key.slice(0, slash + 1));
      if (cache) return cache;
    }
    return undefined;
  }
}

/** A storage prefix as route() finds it: ending with '/' (`/registry/configmaps/`). */
function checkPrefix(prefix: string): void {
  if (!prefix.endsWith('/')) throw new Error(`watch cache prefix ${JSON.stringify(prefix)} does not end with '/'`);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref?.());
}
