// The storage contract: a small etcd-shaped key-value store with a global revision counter.
// Every backend (memory, sqlite, later etcd) implements exactly this and passes the one shared
// conformance suite in test/storage/. Nothing above this file knows which backend it talks to.
//
// Keys are strings such as `/registry/configmaps/default/app`. Values are the serialized object
// (JSON text). Revisions are positive integers that grow with every write across the whole
// store; the registry layer turns them into metadata.resourceVersion.

export interface KeyValue {
  key: string;
  value: string;
  /** Revision of the write that created this key (since its last deletion). */
  createRevision: number;
  /** Revision of the last write to this key. */
  modRevision: number;
}

export interface ListOptions {
  /** Read as of this revision (0 or absent: the current revision). */
  revision?: number;
  /** At most this many items; `more` tells whether others follow. 0 or absent: no limit. */
  limit?: number;
  /** Start at this key (inclusive), for paging. Must lie under the prefix. */
  startKey?: string;
}

export interface ListResult {
  items: KeyValue[];
  /** The revision the list was read at. */
  revision: number;
  /** True when items past `limit` remain. */
  more: boolean;
  /** How many items remain after this page (only meaningful when `more`). */
  remaining: number;
}

export type WatchEventType = 'put' | 'delete';

export interface StorageWatchEvent {
  type: WatchEventType;
  /** For put: the new value. For delete: the key with the deletion's revision as modRevision and the last value. */
  kv: KeyValue;
  /** The value before this event, when there was one (always present for delete). */
  prevKv?: KeyValue;
  /** True when this put created the key. */
  created: boolean;
}

export interface WatchOptions {
  /** Deliver every event with revision > afterRevision. 0: only events after the current revision. */
  afterRevision: number;
  /** Watch every key under this prefix (true) or only the exact key (false). */
  prefix: boolean;
}

export interface Watcher {
  /** Stops delivery; idempotent. */
  stop(): void;
}

export interface WatchCallbacks {
  /** Called in revision order, never concurrently. */
  onEvent(event: StorageWatchEvent): void;
  /** Called once when the watch cannot continue (e.g. a compacted revision); no events follow. */
  onError(error: StorageError): void;
}

export interface Storage {
  /** The revision of the last write (0 for an empty store). */
  currentRevision(): Promise<number>;

  /**
   * currentRevision without a round trip, for a store that holds it in this process (SQLite,
   * memory); undefined for one that must be asked (etcd), or that is closed.
   */
  localRevision?(): number | undefined;

  /** The key's value at `revision` (current when absent), or undefined if it did not exist then. */
  get(key: string, revision?: number): Promise<KeyValue | undefined>;

  /** Keys under `prefix` in key order. */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;

  /** Number of keys under the prefix now. */
  count(prefix: string): Promise<number>;

  /** Creates the key; throws StorageError('KeyExists') when it already exists. */
  create(key: string, value: string): Promise<KeyValue>;

  /**
   * Replaces the key's value if its modRevision equals `expectedModRevision`; throws
   * StorageError('Conflict') (with the current KeyValue) when not, and ('KeyNotFound') when absent.
   */
  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue>;

  /**
   * Deletes the key, only if its modRevision equals `expectedModRevision` when given. Returns the
   * deleted value with the deletion's revision as modRevision. Throws KeyNotFound or Conflict.
   */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue>;

  /** Delivers changes under `key` (or the prefix) after `options.afterRevision`, in revision order. */
  watch(key: string, options: WatchOptions, callbacks: WatchCallbacks): Watcher;

  /** Forgets history at or below `revision`; reads and watches there then fail with Compacted. */
  compact(revision: number): Promise<void>;

  /** The oldest revision still readable (compacted revision + 1). */
  oldestRevision(): Promise<number>;

  close(): Promise<void>;
}

/**
 * Unavailable: the store could not be reached or could not answer; nothing was written.
 * Timeout: a write was sent and its answer never came; it may or may not have been applied.
 * Internal: the backend refused the request for a reason of its own, worded in the message.
 */
export type StorageErrorCode = 'KeyExists' | 'KeyNotFound' | 'Conflict' | 'Compacted' | 'FutureRevision' | 'Unavailable' | 'Timeout' | 'Internal';

/** Storage failures carry a code; the registry layer turns them into StatusErrors in one place. */
export class StorageError extends Error {
  constructor(
    readonly code: StorageErrorCode,
    readonly key: string,
    message: string,
    /** For Conflict: the key's current value. */
    readonly current?: KeyValue,
    /** For Compacted and FutureRevision: the revision asked for (for a watch, its afterRevision). */
    readonly revision?: number,
    /** For Compacted: the oldest revision still readable (oldestRevision()); for FutureRevision: the current revision. */
    readonly bound?: number,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

export const isStorageError = (e: unknown, code?: StorageErrorCode): e is StorageError =>
  e instanceof StorageError && (code === undefined || e.code === code);
