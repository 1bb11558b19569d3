// Watch over the generic store, with kube-apiserver's semantics (upstream cacher.Watch):
//
//   resourceVersion unset  Get State and Start at Most Recent: synthetic ADDED for the objects as of
//                          the store's current revision (once the cache caught up), then changes.
//   "0"                    Get State and Start at Any: the cache's state, then changes.
//   N                      Start at Exact: every change after N, from the cache's history; a
//                          version the history no longer covers is an ERROR event (410 Expired)
//                          in a 200 stream, as upstream sends it. A version the store has not
//                          reached yet simply waits for it.
//   sendInitialEvents=true (WatchList; needs resourceVersionMatch=NotOlderThan): the state not
//                          older than the version (unset: consistent), then a BOOKMARK annotated
//                          k8s.io/initial-events-end, then changes. =false: changes only.
//
// With allowWatchBookmarks=true the stream also carries periodic BOOKMARKs, the last one 2 s
// before timeoutSeconds ends the stream (see cache-watcher.ts). A watch on a store
// without watch caches (unit tests of Store alone) is served by a storage watch instead.

import { StatusError, resourceExpired, tooLargeResourceVersion } from '../errors/status-error.js';
import { isStorageError, type StorageError, type Watcher } from '../storage/interface.js';
import { CacheWatcher } from './cacher/cache-watcher.js';
import { decodeFromCache } from './cacher/serialization-cache.js';
import { collectionPrefix } from './keys.js';
import { listObjects } from './list.js';
import { parseResourceVersion, validateWatchOptions } from './list-options.js';
import { compilePredicate, type Predicate, type SelectionOptions } from './selection.js';
import { interpretStorageError } from './storage-errors.js';
import type { Store } from './store.js';
import { WatchStream, toWatchEvent, type WatchEvent } from './watch-stream.js';

export { WatchStream, toWatchEvent, type WatchEvent, type WatchEventType } from './watch-stream.js';

export interface WatchOptions extends SelectionOptions {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  sendInitialEvents?: boolean;
  allowWatchBookmarks?: boolean;
  /** Ends the stream after this long, as `timeoutSeconds` asks. */
  timeoutSeconds?: number;
  /** Stops the watch when the client goes away. */
  signal?: AbortSignal;
  /** The WatchList feature gate (sendInitialEvents is refused without it). */
  watchListEnabled?: boolean;
}

const errorEvent = (err: StatusError): WatchEvent => ({ type: 'ERROR', object: err.toStatus() });

/** kube-apiserver's answer while a watch cache is still loading (ResilientWatchCacheInitialization). */
const initializing = () =>
  new StatusError(429, 'TooManyRequests', 'storage is (re)initializing', { retryAfterSeconds: 1 }, { 'Retry-After': '1' });

export async function watchObjects(store: Store, namespace: string | undefined, options: WatchOptions = {}): Promise<WatchStream> {
  validateWatchOptions(options, options.watchListEnabled ?? false);
  const predicate = compilePredicate(store.strategies.main, options);
  const requested = parseResourceVersion(options.resourceVersion);
  const stream = new WatchStream();
  // The deadline counts from the request, as kube-apiserver's watch context does.
  const deadline = options.timeoutSeconds !== undefined && options.timeoutSeconds > 0 ? Date.now() + options.timeoutSeconds * 1000 : undefined;
  try {
    if (store.cacher && store.watchCache) await watchFromCache(store, namespace, options, predicate, requested, stream, deadline);
    else await watchFromStorage(store, namespace, options, predicate, requested, stream);
  } catch (e) {
    stream.stop();
    throw e;
  }
  bound(stream, options, deadline);
  return stream;
}

/** The deadline (timeoutSeconds) and the client's going away both end the stream. */
function bound(stream: WatchStream, options: WatchOptions, deadline: number | undefined): void {
  if (deadline !== undefined) {
    const timer = setTimeout(() => stream.stop(), Math.max(0, deadline - Date.now()));
    stream.onStop(() => clearTimeout(timer));
  }
  if (options.signal) {
    const signal = options.signal;
    if (signal.aborted) stream.stop();
    const abort = () => stream.stop();
    signal.addEventListener('abort', abort, { once: true });
    stream.onStop(() => signal.removeEventListener('abort', abort));
  }
}

async function watchFromCache(
  store: Store,
  namespace: string | undefined,
  options: WatchOptions,
  predicate: Predicate,
  requested: number,
  stream: WatchStream,
  deadline: number | undefined,
): Promise<void> {
  const cacher = store.cacher!;
  if (!(await cacher.waitUntilReady())) throw initializing();
  const sendInitial = options.sendInitialEvents === true;
  const getState = sendInitial || (options.sendInitialEvents === undefined && requested === 0);
  const mustReach = !options.resourceVersion ? (getState ? await currentRevision(store) : 0) : requested;
  if (getState && mustReach > 0 && !(await cacher.waitUntilFresh(mustReach))) {
    // The legacy unset-version watch settles for the cache as it is; a watch-list must not.
    if (sendInitial) {
      stream.push(errorEvent(tooLargeResourceVersion(mustReach, cacher.progress)));
      stream.stop();
      return;
    }
  }
  const cache = store.watchCache;
  if (!cache || !cacher.ready) throw initializing();

  // From here on everything is synchronous: the snapshot (or the history) and the registration
  // of the watcher see the same cache state, so no change is lost or sent twice.
  const keyPrefix = collectionPrefix(store.definition, store.definition.namespaced ? namespace : undefined);
  const history = getState ? [] : requested > 0 ? cache.eventsAfter(requested) : [];
  if (!history) {
    stream.push(errorEvent(resourceExpired(`too old resource version: ${requested} (${cache.horizon})`)));
    stream.stop();
    return;
  }
  const startRevision = getState || requested === 0 ? cacher.progress : requested;
  const watcher = new CacheWatcher({
    store,
    keyPrefix,
    predicate,
    stream,
    afterRevision: startRevision,
    allowBookmarks: options.allowWatchBookmarks === true,
    bookmarkIntervalMs: cacher.bookmarkIntervalMs,
    deadline,
    progress: () => cacher.progress,
    forget: () => cache.watchers.delete(watcher),
  });
  if (getState) {
    for (const kv of cache.range(keyPrefix)) {
      const obj = decodeFromCache(store, kv);
      if (predicate.matches(obj)) stream.push({ type: 'ADDED', object: obj });
    }
    if (sendInitial) watcher.bookmark(true);
  }
  for (const event of history) watcher.deliver(event);
  if (stream.stopped) return;
  cache.watchers.add(watcher);
  watcher.scheduleBookmarks();
}

async function currentRevision(store: Store): Promise<number> {
  try {
    return await store.storage.currentRevision();
  } catch (e) {
    throw interpretStorageError(e, 'watch', store.groupResource);
  }
}

function compactedError(err: StorageError, requested: number): StatusError {
  const oldest = err.bound ?? requested + 1;
  return resourceExpired(`too old resource version: ${requested} (${oldest - 1})`);
}

/** The uncached path: a storage watch per request (stores that run without the cacher). */
async function watchFromStorage(
  store: Store,
  namespace: string | undefined,
  options: WatchOptions,
  predicate: Predicate,
  requested: number,
  stream: WatchStream,
): Promise<void> {
  let from = requested;
  if (requested === 0 && options.sendInitialEvents !== false) {
    const initial = await listObjects(store, namespace, { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector });
    for (const item of initial.items) {
      stream.push({ type: 'ADDED', object: { apiVersion: store.apiVersion, kind: store.definition.kind, ...item } });
    }
    from = Number(initial.metadata.resourceVersion);
  }
  const prefix = collectionPrefix(store.definition, store.definition.namespaced ? namespace : undefined);
  let watcher: Watcher;
  try {
    watcher = store.storage.watch(prefix, { afterRevision: from, prefix: true }, {
      onEvent: (event) => {
        const out = toWatchEvent(store, event, predicate);
        if (out) stream.push(out);
      },
      onError: (err) => {
        stream.push(errorEvent(isStorageError(err, 'Compacted') ? compactedError(err, from) : interpretStorageError(err, 'watch', store.groupResource)));
        stream.stop();
      },
    });
  } catch (e) {
    const err = isStorageError(e, 'Compacted') ? compactedError(e, from) : interpretStorageError(e, 'watch', store.groupResource);
    stream.push(errorEvent(err));
    stream.stop();
    return;
  }
  stream.onStop(() => watcher.stop());
}
