// The one place where storage failures become API errors, as k8s.io/apiserver's
// pkg/storage/errors does: the storage layer speaks in keys and revisions, clients in resources
// and names. Anything unrecognised surfaces as a 500 InternalError rather than leaking a stack.
// A store that cannot be reached is kube's "unreachable" storage error: 500 ServerTimeout with
// Retry-After, naming the operation and the resource, never the backend's own words (addresses,
// client classes), which the backend logs instead.

import { isStorageError } from '../storage/interface.js';
import {
  OBJECT_MODIFIED,
  StatusError,
  alreadyExists,
  conflict,
  internalError,
  isStatusError,
  notFound,
  resourceExpired,
  serverTimeout,
  timeoutError,
  tooLargeResourceVersion,
  type GroupResource,
  type Status,
} from '../errors/status-error.js';

export type StorageOperation = 'get' | 'create' | 'update' | 'delete' | 'list' | 'watch';

const WRITES: ReadonlySet<StorageOperation> = new Set(['create', 'update', 'delete']);

/** kube-apiserver's storage error interpretation asks clients to come back after 2 seconds. */
const STORAGE_RETRY_AFTER_SECONDS = 2;

/** What a client is told of a write whose answer never came (kube-apiserver's request timeout words). */
const OUTCOME_UNKNOWN = 'request did not complete within requested timeout - context deadline exceeded';

/** kube-apiserver's message when a list or continue token names a compacted revision. */
export const LIST_TOO_OLD = 'The resourceVersion for the provided list is too old.';
export const CONTINUE_TOO_OLD =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

/**
 * 410 for a continue token whose revision is compacted, as etcd3's handleCompactedErrorForPaging:
 * the Status carries a fresh token (revision -1: "the newest") in metadata.continue, so a client
 * may finish the list inconsistently instead of starting over.
 */
export class ExpiredContinueError extends StatusError {
  constructor(readonly continueToken: string) {
    super(410, 'Expired', CONTINUE_TOO_OLD);
  }

  override toStatus(): Status {
    const status = super.toStatus();
    // Status.metadata is a ListMeta upstream; the shared type only spells out resourceVersion.
    status.metadata = { continue: this.continueToken } as unknown as Status['metadata'];
    return status;
  }
}

export function interpretStorageError(err: unknown, op: StorageOperation, gr: GroupResource, name = ''): StatusError {
  if (isStatusError(err)) return err;
  if (!isStorageError(err)) return internalError(err);
  switch (err.code) {
    case 'KeyNotFound':
      return notFound(gr, name);
    case 'KeyExists':
      return op === 'create' ? alreadyExists(gr, name) : conflict(gr, name, OBJECT_MODIFIED);
    case 'Conflict':
      return conflict(gr, name, OBJECT_MODIFIED);
    case 'Compacted':
      return op === 'list'
        ? resourceExpired(LIST_TOO_OLD)
        : resourceExpired(`too old resource version: ${err.revision ?? 0} (${(err.bound ?? 1) - 1})`);
    case 'FutureRevision':
      return tooLargeResourceVersion(err.revision ?? 0, err.bound ?? 0);
    case 'Unavailable':
      return serverTimeout(gr, op, STORAGE_RETRY_AFTER_SECONDS);
    case 'Timeout':
      // A write that may have been applied is not offered for a retry: the client must look first.
      return WRITES.has(op) ? timeoutError(OUTCOME_UNKNOWN) : serverTimeout(gr, op, STORAGE_RETRY_AFTER_SECONDS);
    case 'Internal':
      // The backend's own refusal (etcd's "etcdserver: request is too large"), passed on as
      // kube-apiserver passes an etcd error it has no status for: a 500 without a reason.
      return new StatusError(500, '', err.message);
    default:
      return internalError(err);
  }
}
