// The storage of one served resource, in the shape of k8s.io/apiserver's storage.Interface: the
// generic store (store.ts, list.ts, watch.ts) talks to nothing else. It speaks in keys and API
// objects (it owns encoding and decoding, see codec.ts), answers reads with kube's
// resourceVersion semantics, and fails with StatusErrors (storage-errors.ts interprets the
// backend's). Two implementations: DirectStorage over the backend, and CacherStorage, the watch
// cache in front of it. Whether a read is served from memory is the cacher's decision alone.

import type { Codec } from './codec.js';
import type { KubeObject } from '../machinery/object.js';
import type { Predicate } from './selection.js';
import type { WatchStream } from './watch-stream.js';

export interface GetOptions {
  /** Unset: Most Recent; "0": Any (the cache as it is); N: Not older than N. */
  resourceVersion?: string;
  /** Resolve to undefined for a missing object rather than failing with 404. */
  ignoreNotFound?: boolean;
  /**
   * The caller only reads the object (and encodes it): an answer from the cache may be the
   * version's shared, frozen decoding (serialization-cache.ts), whose encodings are kept.
   */
  shared?: boolean;
}

export interface ListRequest {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  /** At most this many items (0: all). */
  limit: number;
  continue?: string;
  predicate: Predicate;
  /** See WatchRequest.transient. */
  transient?: boolean;
}

export interface ListPage {
  items: KubeObject[];
  /** The revision the list was read at. */
  revision: number;
  /** A token for the next page, when items remain. */
  continue?: string;
  remainingItemCount?: number;
}

export interface WatchRequest {
  resourceVersion?: string;
  sendInitialEvents?: boolean;
  allowWatchBookmarks?: boolean;
  predicate: Predicate;
  /** When the watch ends (epoch ms), for the BOOKMARK sent just before it. */
  deadline?: number;
  /**
   * A reader that keeps nothing (a controller following every object of a kind, as the garbage
   * collector does): the watch cache decodes for it what no one else has read, without keeping it.
   */
  transient?: boolean;
}

/** What tryUpdate decided: the object to write, or (write false) the answer without a write. */
export interface UpdateDecision {
  object: KubeObject;
  write: boolean;
}

/** Given the stored object (a copy the callback may change), decides the update; may throw to refuse it. */
export type TryUpdate = (existing: KubeObject) => Promise<UpdateDecision>;

/** What a delete does with the stored object: leave it (the answer), rewrite it (marked for deletion), or remove it. */
export type DeletionDecision =
  | { action: 'none'; object: KubeObject; deleted: boolean }
  | { action: 'update'; object: KubeObject }
  | { action: 'delete' };

export type ValidateDeletion = (existing: KubeObject) => DeletionDecision;

export interface DeleteOutcome {
  /** The object as last stored (removed: its last state, at the deletion's revision). */
  object: KubeObject;
  deleted: boolean;
  /** True when the object was rewritten (marked for deletion) rather than removed or left. */
  updated: boolean;
}

export interface ResourceStorage {
  readonly codec: Codec;

  /** The object at `key`; 404 when there is none, unless ignoreNotFound. */
  get(key: string, options: GetOptions & { ignoreNotFound: true }): Promise<KubeObject | undefined>;
  get(key: string, options?: GetOptions): Promise<KubeObject>;

  /**
   * The get answered at once when this storage can (a watch cache that holds what the
   * resourceVersion asks for), else undefined: call `get`. Throws what `get` would reject with.
   */
  getCached?(key: string, options?: Omit<GetOptions, 'ignoreNotFound'>): KubeObject | undefined;

  /** A page of the objects under `prefix` that the predicate selects. */
  getList(prefix: string, request: ListRequest): Promise<ListPage>;

  /** The changes under `prefix` the predicate selects, with kube's watch resourceVersion rules. */
  watch(prefix: string, request: WatchRequest): Promise<WatchStream>;

  /** Stores a new object; the answer is the object as stored (409 AlreadyExists when the key is taken). */
  create(key: string, obj: KubeObject): Promise<KubeObject>;

  /**
   * Reads, lets tryUpdate decide, and writes only if nothing changed meanwhile, else reads and
   * decides again. `cachedExisting` stands for the first read when the caller already holds it.
   */
  guaranteedUpdate(key: string, tryUpdate: TryUpdate, cachedExisting?: KubeObject): Promise<KubeObject>;

  /** Reads, lets validateDeletion decide, and carries it out if nothing changed meanwhile, else again. */
  delete(key: string, validateDeletion: ValidateDeletion, cachedExisting?: KubeObject): Promise<DeleteOutcome>;
}
