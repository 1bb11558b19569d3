// The resource's storage with the watch cache in front, after k8s.io/apiserver's cacher as it
// wraps the etcd3 store: writes go straight to the store underneath, and each read decides
// here, and only here, whether the cache may answer it (upstream's cacher delegator):
//
//   get    unset: the store (Most Recent). "0": the cache as it is (Any), the store before the
//          cache is ready. N: the cache once it reached N (Not older than), else 504.
//   list   resourceVersionMatch | limit         | rv unset     | rv "0" | rv N
//          ---------------------+---------------+--------------+--------+----------------
//          unset                | none          | Most Recent  | Any    | Not older than
//          unset                | n, no continue| Most Recent  | Any    | Exact
//          unset                | n + continue  | Continuation | Contin.| 400
//          Exact                | any           | 422          | 422    | Exact
//          NotOlderThan         | any           | 422          | Any    | Not older than
//          Any and Not older than come from the cache; Most Recent too once the cache holds the
//          store's current revision (ConsistentListFromCache), else from the store; Exact and
//          Continuation read the store at that revision.
//   watch  unset: Get State and Start at Most Recent (synthetic ADDED as of the store's current
//          revision, once the cache caught up), then changes. "0": Get State and Start at Any.
//          N: Start at Exact, every change after N from the cache's history; a version the
//          history no longer covers is an ERROR event (410 Expired) in a 200 stream; one the store
//          has not reached yet simply waits. sendInitialEvents=true (WatchList): the state not
//          older than the version, then a BOOKMARK annotated k8s.io/initial-events-end, then
//          changes; =false: changes only. allowWatchBookmarks: periodic BOOKMARKs (cache-watcher.ts).

import { StatusError, notFound, resourceExpired, tooLargeResourceVersion } from '../../errors/status-error.js';
import type { Codec } from '../codec.js';
import { encodeContinue } from '../continue-token.js';
import type { DirectStorage } from '../direct-storage.js';
import { MATCH_EXACT, parseResourceVersion } from '../list-options.js';
import type { KubeObject } from '../../machinery/object.js';
import {
  type DeleteOutcome,
  type GetOptions,
  type ListPage,
  type ListRequest,
  type ResourceStorage,
  type TryUpdate,
  type ValidateDeletion,
  type WatchRequest,
} from '../resource-storage.js';
import { keyMayMatch } from '../selection.js';
import { WatchStream, errorEvent } from '../watch-stream.js';
import { CacheWatcher } from './cache-watcher.js';
import type { Cacher } from './cacher.js';
import { decodeFromCache } from './serialization-cache.js';
import type { WatchCache } from './watch-cache.js';

/** kube-apiserver's answer while a watch cache is still loading (ResilientWatchCacheInitialization). */
const initializing = () =>
  new StatusError(429, 'TooManyRequests', 'storage is (re)initializing', { retryAfterSeconds: 1 }, { 'Retry-After': '1' });

export class CacherStorage implements ResourceStorage {
  readonly codec: Codec;

  constructor(
    private readonly storage: DirectStorage,
    private readonly cacher: Cacher,
    /** The watch cache of the resource's storage prefix (shared by every version of the kind). */
    private readonly cache: WatchCache,
  ) {
    this.codec = storage.codec;
  }

  get(key: string, options: GetOptions & { ignoreNotFound: true }): Promise<KubeObject | undefined>;
  get(key: string, options?: GetOptions): Promise<KubeObject>;
  get(key: string, options: GetOptions = {}): Promise<KubeObject | undefined> {
    try {
      if (this.answersAtOnce(options.resourceVersion)) return Promise.resolve(this.fromCache(key, options));
    } catch (err) {
      return Promise.reject(err);
    }
    if (!options.resourceVersion) return this.storage.get(key, options);
    return this.getFromCache(key, options);
  }

  /**
   * The get when the cache can answer it now, else undefined (then `get` waits or reads the
   * store). Throws what `get` would reject with, 404 included. A GET served here costs no promise.
   */
  getCached(key: string, options: Omit<GetOptions, 'ignoreNotFound'> = {}): KubeObject | undefined {
    return this.answersAtOnce(options.resourceVersion) ? this.fromCache(key, options) : undefined;
  }

  /**
   * Whether the cache holds what the resourceVersion asks for, without waiting. Most Recent: when
   * it provably holds the store's current revision, which an embedded store knows without a round
   * trip (the read then sees exactly what the store's would, at the same resourceVersion, as
   * ConsistentListFromCache does for lists). Any: once ready. Not older than N: once it reached N.
   */
  private answersAtOnce(resourceVersion: string | undefined): boolean {
    const cacher = this.cacher;
    if (!cacher.ready) return false;
    if (!resourceVersion) {
      const current = this.storage.localRevision();
      return current !== undefined && cacher.progress >= current;
    }
    return cacher.progress >= parseResourceVersion(resourceVersion);
  }

  /** Waits for the cache to reach N, or reads the store for Any before the cache is ready. */
  private async getFromCache(key: string, options: GetOptions): Promise<KubeObject | undefined> {
    const requested = parseResourceVersion(options.resourceVersion);
    const cacher = this.cacher;
    if (requested === 0) {
      if (!cacher.ready) return this.storage.get(key, options);
    } else if (!(await cacher.waitUntilFresh(requested))) {
      throw tooLargeResourceVersion(requested, cacher.ready ? cacher.progress : await this.storage.currentRevision('get'));
    }
    return this.fromCache(key, options);
  }

  private fromCache(key: string, options: GetOptions): KubeObject | undefined {
    const kv = this.cache.get(key);
    if (!kv) {
      if (options.ignoreNotFound) return undefined;
      throw notFound(this.storage.groupResource, this.storage.nameOf(key));
    }
    return options.shared ? decodeFromCache(this.codec, kv) : this.codec.decode(kv.value, kv.modRevision);
  }

  async getList(prefix: string, request: ListRequest): Promise<ListPage> {
    if (request.continue) return this.storage.getList(prefix, request);
    const { limit } = request;
    const requested = parseResourceVersion(request.resourceVersion);
    const match = request.resourceVersionMatch;
    const cacher = this.cacher;
    if (match === MATCH_EXACT || (!match && limit > 0 && requested > 0)) {
      // The store answers at that revision; when it has not reached it yet, the cache's
      // progress tells (bounded) when it does.
      if (requested > 0 && !(cacher.ready && cacher.progress >= requested) && requested > (await this.storage.currentRevision('list'))) {
        await cacher.waitUntilFresh(requested);
      }
      return this.storage.getList(prefix, request);
    }
    if (!request.resourceVersion) {
      // Most Recent: the cache once it holds the store's current revision; if it cannot catch up
      // in time, the store itself, as upstream falls back to etcd. A cache still loading is not
      // waited for (kube's ResilientWatchCacheInitialization delegates such lists to storage), so
      // start-up's own lists (informers, the bootstrap policy) do not wait for every cache.
      if (!cacher.ready) return this.storage.getList(prefix, request);
      const current = await this.storage.currentRevision('list');
      if (!(await cacher.waitUntilFresh(current))) return this.storage.getList(prefix, request);
    } else if (requested === 0) {
      // Any: whatever the cache holds; before it is ready, the store.
      if (!cacher.ready) return this.storage.getList(prefix, request);
    } else if (!(await cacher.waitUntilFresh(requested))) {
      throw tooLargeResourceVersion(requested, cacher.ready ? cacher.progress : await this.storage.currentRevision('list'));
    }
    return this.listFromCache(prefix, request);
  }

  /** A page from the watch cache, synchronously: one consistent snapshot at the cacher's revision. */
  private listFromCache(prefix: string, { predicate, limit, transient }: ListRequest): ListPage {
    const cache = this.cache;
    const revision = this.cacher.progress;
    const items: KubeObject[] = [];
    let lastKey: string | undefined;
    for (const kv of cache.range(prefix)) {
      if (limit && items.length === limit) {
        // Something follows the last item: hand out a token that continues after it.
        const remaining = predicate.empty ? cache.countAfter(prefix, lastKey!) : undefined;
        return { items, revision, continue: encodeContinue(`${lastKey}\u0000`, prefix, revision), remainingItemCount: remaining };
      }
      if (!keyMayMatch(predicate, kv.key)) continue;
      const obj = decodeFromCache(this.codec, kv, !transient);
      if (!predicate.matches(obj)) continue;
      items.push(obj);
      lastKey = kv.key;
    }
    return { items, revision };
  }

  async watch(prefix: string, request: WatchRequest): Promise<WatchStream> {
    const stream = new WatchStream();
    try {
      await this.watchFromCache(prefix, request, stream);
    } catch (e) {
      stream.stop();
      throw e;
    }
    return stream;
  }

  private async watchFromCache(keyPrefix: string, request: WatchRequest, stream: WatchStream): Promise<void> {
    const { predicate } = request;
    const requested = parseResourceVersion(request.resourceVersion);
    const cacher = this.cacher;
    if (!(await cacher.waitUntilReady())) throw initializing();
    const sendInitial = request.sendInitialEvents === true;
    const getState = sendInitial || (request.sendInitialEvents === undefined && requested === 0);
    const mustReach = !request.resourceVersion ? (getState ? await this.storage.currentRevision('watch') : 0) : requested;
    if (getState && mustReach > 0 && !(await cacher.waitUntilFresh(mustReach))) {
      // The legacy unset-version watch settles for the cache as it is; a watch-list must not.
      if (sendInitial) {
        stream.push(errorEvent(tooLargeResourceVersion(mustReach, cacher.progress)));
        stream.stop();
        return;
      }
    }
    const cache = this.cache;
    if (!cacher.ready) throw initializing();

    // From here on everything is synchronous: the snapshot (or the history) and the registration
    // of the watcher see the same cache state, so no change is lost or sent twice.
    const history = getState ? [] : requested > 0 ? cache.eventsAfter(requested) : [];
    if (!history) {
      stream.push(errorEvent(resourceExpired(`too old resource version: ${requested} (${cache.horizon})`)));
      stream.stop();
      return;
    }
    const startRevision = getState || requested === 0 ? cacher.progress : requested;
    const watcher = new CacheWatcher({
      codec: this.codec,
      keyPrefix,
      predicate,
      stream,
      transient: request.transient,
      afterRevision: startRevision,
      allowBookmarks: request.allowWatchBookmarks === true,
      bookmarkIntervalMs: cacher.bookmarkIntervalMs,
      deadline: request.deadline,
      progress: () => cacher.progress,
      forget: () => cache.watchers.delete(watcher),
    });
    if (getState) {
      for (const kv of cache.range(keyPrefix)) {
        const obj = decodeFromCache(this.codec, kv, !request.transient);
        if (predicate.matches(obj)) stream.push({ type: 'ADDED', object: obj });
      }
      if (sendInitial) watcher.bookmark(true);
    }
    for (const event of history) watcher.deliver(event);
    if (stream.stopped) return;
    cache.watchers.add(watcher);
    watcher.scheduleBookmarks();
  }

  create(key: string, obj: KubeObject): Promise<KubeObject> {
    return this.storage.create(key, obj);
  }

  guaranteedUpdate(key: string, tryUpdate: TryUpdate, cachedExisting?: KubeObject): Promise<KubeObject> {
    return this.storage.guaranteedUpdate(key, tryUpdate, cachedExisting);
  }

  delete(key: string, validateDeletion: ValidateDeletion, cachedExisting?: KubeObject): Promise<DeleteOutcome> {
    return this.storage.delete(key, validateDeletion, cachedExisting);
  }
}
