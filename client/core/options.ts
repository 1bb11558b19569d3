// Request options, with client-go's metav1 names. Each becomes a query parameter (or, for
// deletes, a DeleteOptions body) of the same name.

export interface CallOptions {
  signal?: AbortSignal;
}

export interface WriteOptions extends CallOptions {
  /** Validate and admit, but store nothing (dryRun=All). */
  dryRun?: boolean;
  fieldManager?: string;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

export type CreateOptions = WriteOptions;
export type UpdateOptions = WriteOptions;

export interface PatchOptions extends WriteOptions {
  /** merge: RFC 7386; json: RFC 6902; strategic: Kubernetes' strategic merge patch. */
  type: 'merge' | 'json' | 'strategic';
  force?: boolean;
}

export interface ApplyOptions extends CallOptions {
  /** Server-side apply owns fields per manager, so one is required. */
  fieldManager: string;
  /** Take fields other managers own instead of failing with 409 Conflict. */
  force?: boolean;
  dryRun?: boolean;
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
}

export interface GetOptions extends CallOptions {
  resourceVersion?: string;
}

export interface ListOptions extends CallOptions {
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  timeoutSeconds?: number;
}

export interface WatchOptions extends CallOptions {
  labelSelector?: string;
  fieldSelector?: string;
  /** Start after this version; without it the server first sends every current object as ADDED. */
  resourceVersion?: string;
  resourceVersionMatch?: 'Exact' | 'NotOlderThan';
  allowWatchBookmarks?: boolean;
  sendInitialEvents?: boolean;
  /** The server ends the watch after this long; without it the watch is resumed whenever it ends. */
  timeoutSeconds?: number;
}

export interface Preconditions {
  uid?: string;
  resourceVersion?: string;
}

export interface DeleteOptions extends CallOptions {
  dryRun?: boolean;
  gracePeriodSeconds?: number;
  propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  preconditions?: Preconditions;
  ignoreStoreReadErrorWithClusterBreakingPotential?: boolean;
}

export type DeleteCollectionOptions = DeleteOptions & Omit<ListOptions, 'signal'>;

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';

export interface WatchEvent<T> {
  type: WatchEventType;
  /** The object; for BOOKMARK only its kind, apiVersion and metadata.resourceVersion. */
  object: T;
}
