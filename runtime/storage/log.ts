// The shape both embedded backends keep history in, after kine: an append-only log where each
// write is one row and the row's position is the store's revision. A row remembers the value
// it replaced (oldValue) so a watch replay can hand out prevKv even after compaction has
// removed the row it superseded.

import { StorageError } from './interface.js';
import type { KeyValue, StorageWatchEvent } from './interface.js';

export interface LogRow {
  /** The revision of this write (kine's `id`). */
  revision: number;
  key: string;
  /** This write created the key (no live value before it). */
  created: boolean;
  /** This write deleted the key; `value` then holds the last value. */
  deleted: boolean;
  createRevision: number;
  /** The revision of the row this one supersedes, 0 for the first write of the key. */
  prevRevision: number;
  value: string;
  /** The value before this write; absent for creates. */
  oldValue?: string;
}

export const rowKeyValue = (row: LogRow): KeyValue => ({
  key: row.key,
  value: row.value,
  createRevision: row.createRevision,
  modRevision: row.revision,
});

export const rowEvent = (row: LogRow): StorageWatchEvent => {
  const kv = rowKeyValue(row);
  if (row.created) return { type: 'put', kv, created: true };
  const prevKv: KeyValue = {
    key: row.key,
    value: row.oldValue ?? '',
    createRevision: row.createRevision,
    modRevision: row.prevRevision,
  };
  return { type: row.deleted ? 'delete' : 'put', kv, prevKv, created: false };
};

/**
 * The revision a read should use: `requested` when given (non-zero), else `current`.
 * Throws Compacted at or below the compacted revision and FutureRevision above the current one.
 */
export const readRevision = (key: string, requested: number | undefined, current: number, compacted: number): number => {
  if (!requested) return current;
  if (requested > current) {
    throw new StorageError('FutureRevision', key, `required revision ${requested} is a future revision (current ${current})`, undefined, requested, current);
  }
  if (requested <= compacted) {
    throw new StorageError('Compacted', key, `required revision ${requested} has been compacted (compacted ${compacted})`, undefined, requested, compacted + 1);
  }
  return requested;
};

/**
 * A watch delivers the revisions after `afterRevision`; it can start only if the first of them
 * is still in history, i.e. afterRevision >= compacted. (This matches etcd, where a watch from
 * the compaction point itself still works.)
 */
export const watchCompactedError = (key: string, afterRevision: number, compacted: number): StorageError | undefined =>
  afterRevision > 0 && afterRevision < compacted
    ? new StorageError('Compacted', key, `required revision ${afterRevision + 1} has been compacted (compacted ${compacted})`, undefined, afterRevision, compacted + 1)
    : undefined;

export const closedError = (key: string): StorageError => new StorageError('Unavailable', key, 'storage is closed');

/** The smallest string greater than every string starting with `prefix`; undefined when none exists. */
export const prefixEnd = (prefix: string): string | undefined => {
  let end = prefix;
  while (end.length > 0) {
    const last = end.charCodeAt(end.length - 1);
    if (last < 0xffff) return end.slice(0, -1) + String.fromCharCode(last + 1);
    end = end.slice(0, -1);
  }
  return undefined;
};
