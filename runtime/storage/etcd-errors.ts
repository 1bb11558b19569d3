// How etcd's and the gRPC client's failures read, so the etcd backend can turn them into
// StorageError codes, and how far a failed request got, which decides whether it may be retried.
//
// etcd reports both a compacted and a future read revision as gRPC OUT_OF_RANGE; only the
// message ("mvcc: required revision has been compacted" / "... is a future revision") tells them
// apart, so that is what is matched. The client of etcd-client/ gives each failure its gRPC code
// and etcd's words apart (GrpcCallError).
//
// The messages of the StorageErrors made here name no addresses, ports or client classes: those
// go to the backend's failure log only.

import { GRPC_UNAVAILABLE, GrpcCallError } from './etcd-client/client.js';
import { StorageError } from './interface.js';

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** etcd refused the request itself, for good: invalid, too large, out of space, not permitted. */
const GRPC_REFUSALS = new Set([3, 5, 6, 7, 8, 9, 11, 12, 16]);

const grpcCode = (e: unknown): number | undefined => (e instanceof GrpcCallError ? e.code : undefined);

/** etcd refused a read (or a compaction) at a revision it has already compacted. */
export const isEtcdCompacted = (e: unknown): boolean => messageOf(e).includes('required revision has been compacted');

/** etcd refused a read (or a compaction) at a revision it has not reached yet. */
export const isEtcdFutureRevision = (e: unknown): boolean => messageOf(e).includes('required revision is a future revision');

/**
 * True when the request never left this process, so etcd cannot have applied it: no connection
 * could be had, or the deadline passed while the call still waited for one (the KV client marks
 * its error so). Every other failure of a write, a dropped connection or a deadline after
 * sending above all, leaves its outcome unknown. (etcd's clientv3 draws the same line in
 * isSafeRetryMutableRPC.)
 */
export const neverSent = (e: unknown): boolean => e instanceof GrpcCallError && !e.sent;

/**
 * True when a read may be tried again: etcd or the way to it is unavailable for now (gRPC
 * UNAVAILABLE, which also covers etcd's "leader changed" and "request timed out"), the
 * retry rule of clientv3's isSafeRetryImmutableRPC, or the request was never sent.
 */
export const retryableRead = (e: unknown): boolean => grpcCode(e) === GRPC_UNAVAILABLE || neverSent(e);

/**
 * The StorageError a failed etcd request means: Internal for etcd's own refusals (in etcd's
 * words, as kube-apiserver passes them on); for a write that may have reached etcd, Timeout (its
 * outcome is unknown: the caller must not try it again blindly); else Unavailable (nothing was
 * applied, or it was a read).
 */
export function etcdFailure(key: string, e: unknown, write: boolean): StorageError {
  if (e instanceof StorageError) return e;
  if (e instanceof GrpcCallError && GRPC_REFUSALS.has(e.code)) return new StorageError('Internal', key, e.details);
  if (write && !neverSent(e)) return new StorageError('Timeout', key, 'etcd did not confirm the write; it may or may not have been applied');
  return new StorageError('Unavailable', key, 'etcd is unavailable');
}

/** The failure as the server log shows it: everything the client is not told. */
export const failureDetail = (e: unknown): string => `${e instanceof Error ? e.constructor.name : 'Error'}: ${messageOf(e)}`;
