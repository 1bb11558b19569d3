// List and delete-collection over the generic store, with kube-apiserver's resourceVersion
// semantics (the spec's tables; upstream's cacher delegator and etcd3 GetList):
//
//   resourceVersionMatch | limit         | rv unset      | rv "0" | rv N
//   ---------------------+---------------+---------------+--------+----------------
//   unset                | none          | Most Recent   | Any    | Not older than
//   unset                | n, no continue| Most Recent   | Any    | Exact
//   unset                | n + continue  | Continuation  | Contin.| 400
//   Exact                | any           | 422           | 422    | Exact
//   NotOlderThan         | any           | 422           | Any    | Not older than
//
// Any, Not older than and Most Recent are served by the watch cache (Most Recent once the cache
// has caught up with the store's current revision, else from the store); Exact and Continuation
// read the store at that revision. A limit is honoured everywhere and its continue token fixes
// the revision for the following pages.

import { StatusError, badRequest, resourceExpired, tooLargeResourceVersion } from '../errors/status-error.js';
import { isStorageError } from '../storage/interface.js';
import { decodeFromCache, withoutTypeMeta } from './cacher/serialization-cache.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import type { DeleteOptions } from './delete-options.js';
import { collectionPrefix } from './keys.js';
import { MATCH_EXACT, parseResourceVersion, validateListOptions, type ListOptions } from './list-options.js';
import { metaOf, type KubeList, type KubeObject } from './object.js';
import { compilePredicate, type Predicate } from './selection.js';
import { ExpiredContinueError, LIST_TOO_OLD, interpretStorageError } from './storage-errors.js';
import type { Store } from './store.js';

export { parseResourceVersion, type ListOptions } from './list-options.js';

/** Without a limit, kube-apiserver still reads the store in pages of this size. */
const PAGE = 500;

interface Page {
  items: KubeObject[];
  revision: number;
  /** The key after which the next page starts, when there is one. */
  nextKey?: string;
  remaining?: number;
}

export async function listObjects(store: Store, namespace: string | undefined, options: ListOptions = {}): Promise<KubeList> {
  validateListOptions(options);
  const predicate = compilePredicate(store.strategies.main, options);
  const prefix = collectionPrefix(store.definition, store.definition.namespaced ? namespace : undefined);
  const limit = options.limit && options.limit > 0 ? options.limit : 0;
  const page = await readPage(store, prefix, predicate, limit, options);
  const metadata: KubeList['metadata'] = { resourceVersion: String(page.revision) };
  if (page.nextKey !== undefined) metadata.continue = encodeContinue(page.nextKey, prefix, page.revision);
  if (page.nextKey !== undefined && page.remaining !== undefined) metadata.remainingItemCount = page.remaining;
  return {
    kind: store.definition.listKind,
    apiVersion: store.apiVersion,
    metadata,
    // Items of a typed list carry no apiVersion/kind of their own, as kube-apiserver encodes them.
    items: page.items.map(withoutTypeMeta),
  };
}

async function readPage(store: Store, prefix: string, predicate: Predicate, limit: number, options: ListOptions): Promise<Page> {
  if (options.continue) {
    const token = decodeContinue(options.continue, prefix);
    if (options.resourceVersion && options.resourceVersion !== '0') {
      throw badRequest('specifying resource version is not allowed when using continue');
    }
    // A token of revision -1 (handed out with a 410) continues at the newest revision.
    const revision = token.revision > 0 ? token.revision : 0;
    return listFromStorage(store, prefix, predicate, limit, revision, token.startKey);
  }
  const requested = parseResourceVersion(options.resourceVersion);
  const match = options.resourceVersionMatch;
  const exact = match === MATCH_EXACT || (!match && limit > 0 && requested > 0);
  if (exact) {
    await ensureReached(store, requested);
    return listFromStorage(store, prefix, predicate, limit, requested);
  }
  const cacher = store.cacher;
  const cache = store.watchCache;
  if (!cacher || !cache) {
    if (requested > 0) await ensureReached(store, requested);
    return listFromStorage(store, prefix, predicate, limit, 0);
  }
  if (!options.resourceVersion) {
    // Most Recent: the cache once it holds the store's current revision (ConsistentListFromCache);
    // if it cannot catch up in time, the store itself, as upstream falls back to etcd.
    const current = await currentRevision(store);
    if (!(await cacher.waitUntilFresh(current))) return listFromStorage(store, prefix, predicate, limit, 0);
  } else if (requested === 0) {
    // Any: whatever the cache holds; before it is ready, the store.
    if (!cacher.ready) return listFromStorage(store, prefix, predicate, limit, 0);
  } else if (!(await cacher.waitUntilFresh(requested))) {
    throw tooLargeResourceVersion(requested, cacher.ready ? cacher.progress : await currentRevision(store));
  }
  return listFromCache(store, prefix, predicate, limit);
}

/** Waits (bounded) for the store to reach a revision; 504 Too large resource version when it does not. */
async function ensureReached(store: Store, requested: number): Promise<void> {
  if (requested <= 0) return;
  const current = await currentRevision(store);
  if (requested <= current) return;
  if (store.cacher && (await store.cacher.waitUntilFresh(requested))) return;
  throw tooLargeResourceVersion(requested, await currentRevision(store));
}

async function currentRevision(store: Store): Promise<number> {
  try {
    return await store.storage.currentRevision();
  } catch (e) {
    throw interpretStorageError(e, 'list', store.groupResource);
  }
}

/** A page from the watch cache, synchronously: one consistent snapshot at the cacher's revision. */
function listFromCache(store: Store, prefix: string, predicate: Predicate, limit: number): Page {
  const cache = store.watchCache!;
  const revision = store.cacher!.progress;
  const items: KubeObject[] = [];
  let lastKey: string | undefined;
  for (const kv of cache.range(prefix)) {
    if (limit && items.length === limit) {
      // Something follows the last item: hand out a token that continues after it.
      return { items, revision, nextKey: `${lastKey}\u0000`, remaining: predicate.empty ? cache.countAfter(prefix, lastKey!) : undefined };
    }
    const obj = decodeFromCache(store, kv);
    if (!predicate.matches(obj)) continue;
    items.push(obj);
    lastKey = kv.key;
  }
  return { items, revision };
}

/** A page read from the store at `revision` (0: the newest), skipping what the selectors reject. */
async function listFromStorage(
  store: Store,
  prefix: string,
  predicate: Predicate,
  limit: number,
  revision: number,
  startKey?: string,
): Promise<Page> {
  const continuing = startKey !== undefined;
  const items: KubeObject[] = [];
  let lastKey = '';
  let at = revision;
  let from = startKey;
  try {
    for (;;) {
      const want = limit ? limit - items.length : PAGE;
      const page = await store.storage.list(prefix, { revision: at, limit: predicate.empty ? want : Math.max(want, PAGE), startKey: from });
      at = page.revision;
      for (let i = 0; i < page.items.length; i++) {
        const kv = page.items[i]!;
        lastKey = kv.key;
        const obj = store.decode(kv.value, kv.modRevision);
        if (!predicate.matches(obj)) continue;
        items.push(obj);
        if (limit && items.length === limit) {
          const more = i < page.items.length - 1 || page.more;
          if (!more) return { items, revision: at };
          const remaining = predicate.empty ? page.remaining + (page.items.length - 1 - i) : undefined;
          return { items, revision: at, nextKey: `${lastKey}\u0000`, remaining };
        }
      }
      if (!page.more) return { items, revision: at };
      from = `${lastKey}\u0000`;
    }
  } catch (e) {
    if (isStorageError(e, 'Compacted')) {
      if (continuing) throw new ExpiredContinueError(encodeContinue(startKey, prefix, -1));
      throw resourceExpired(LIST_TOO_OLD);
    }
    if (isStorageError(e, 'FutureRevision')) throw tooLargeResourceVersion(e.revision ?? revision, e.bound ?? 0);
    throw interpretStorageError(e, 'list', store.groupResource);
  }
}

/**
 * Deletes every object the selectors match and returns them as a <Kind>List, as
 * kube-apiserver's DeleteCollection does. Objects gone meanwhile are skipped.
 */
export async function deleteCollection(
  store: Store,
  namespace: string | undefined,
  listOptions: ListOptions,
  deleteOptions: DeleteOptions = {},
): Promise<KubeList> {
  const { limit: _limit, continue: _continue, ...unpaged } = listOptions;
  const list = await listObjects(store, namespace, unpaged);
  for (const item of list.items) {
    const meta = metaOf(item);
    try {
      await store.delete(store.definition.namespaced ? meta.namespace : undefined, meta.name ?? '', deleteOptions);
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }
  return list;
}
