// How etcd's and the etcd3 client's failures read, so the etcd backend can turn them into
// StorageError codes. etcd reports both a compacted and a future read revision as gRPC
// OUT_OF_RANGE; only the message ("mvcc: required revision has been compacted" / "... is a
// future revision") tells them apart, so that is what is matched.

import { StorageError } from './interface.js';

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** etcd refused a read (or a compaction) at a revision it has already compacted. */
export const isEtcdCompacted = (e: unknown): boolean => messageOf(e).includes('required revision has been compacted');

/** etcd refused a read (or a compaction) at a revision it has not reached yet. */
export const isEtcdFutureRevision = (e: unknown): boolean => messageOf(e).includes('required revision is a future revision');

/**
 * Every other failure means the store cannot answer right now: a refused or broken connection
 * (gRPC UNAVAILABLE), an open circuit breaker after repeated failures, a deadline, a closed
 * client, or an etcd error the storage contract has no better word for.
 */
export const unavailable = (key: string, e: unknown): StorageError => {
  if (e instanceof StorageError) return e;
  const name = e instanceof Error ? e.constructor.name : 'Error';
  return new StorageError('Unavailable', key, `etcd storage failed (${name}): ${messageOf(e)}`);
};
