// The in-memory backend: the same log-with-revisions model as the sqlite backend, kept in
// arrays. Meant for tests and for `startServer({ storage: 'memory' })`; nothing survives the
// process. Every operation is synchronous underneath, which keeps watch replay gap-free (see
// watch-hub.ts).

import { StorageError } from './interface.js';
import type { KeyValue, ListOptions, ListResult, Storage, WatchCallbacks, Watcher, WatchOptions } from './interface.js';
import { closedError, readRevision, rowEvent, rowKeyValue, watchCompactedError } from './log.js';
import type { LogRow } from './log.js';
import { HistoryWindow } from './history-window.js';
import { skipUntil, WatchHub, watchMatches } from './watch-hub.js';

export interface MemoryStorageOptions {
  /** Compact history older than this automatically; absent or 0: only explicit compact(). */
  historyWindowMs?: number;
}

/** Index of the first element for which `before` is false (the array is partitioned by it). */
const partition = <T>(items: readonly T[], before: (item: T) => boolean): number => {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (before(items[mid]!)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

export class MemoryStorage implements Storage {
  private revision = 0;
  private compacted = 0;
  private closed = false;
  /** Every retained row in revision order. */
  private log: LogRow[] = [];
  /** Retained rows per key, in revision order. */
  private readonly byKey = new Map<string, LogRow[]>();
  /** The keys of byKey, sorted, for range reads. */
  private readonly sortedKeys: string[] = [];
  private readonly hub = new WatchHub();
  private readonly window?: HistoryWindow;

  constructor(options: MemoryStorageOptions = {}) {
    if (options.historyWindowMs) {
      this.window = new HistoryWindow(options.historyWindowMs, () => this.revision, (rev) => this.compactNow(rev));
    }
  }

  async currentRevision(): Promise<number> {
    this.ensureOpen('');
    return this.revision;
  }

  localRevision(): number | undefined {
    return this.closed ? undefined : this.revision;
  }

  async oldestRevision(): Promise<number> {
    this.ensureOpen('');
    return this.compacted + 1;
  }

  async get(key: string, revision?: number): Promise<KeyValue | undefined> {
    this.ensureOpen(key);
    const at = readRevision(key, revision, this.revision, this.compacted);
    const row = this.rowAt(key, at);
    return row ? rowKeyValue(row) : undefined;
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.ensureOpen(prefix);
    const at = readRevision(prefix, options.revision, this.revision, this.compacted);
    const limit = options.limit && options.limit > 0 ? options.limit : Infinity;
    const from = options.startKey !== undefined && options.startKey > prefix ? options.startKey : prefix;
    const items: KeyValue[] = [];
    let remaining = 0;
    for (let i = partition(this.sortedKeys, (k) => k < from); i < this.sortedKeys.length; i++) {
      const key = this.sortedKeys[i]!;
      if (!key.startsWith(prefix)) break;
      const row = this.rowAt(key, at);
      if (!row) continue;
      if (items.length < limit) items.push(rowKeyValue(row));
      else remaining++;
    }
    return { items, revision: at, more: remaining > 0, remaining };
  }

  async count(prefix: string): Promise<number> {
    return (await this.list(prefix)).items.length;
  }

  async create(key: string, value: string): Promise<KeyValue> {
    this.ensureOpen(key);
    const latest = this.latest(key);
    if (latest && !latest.deleted) {
      throw new StorageError('KeyExists', key, `key ${key} already exists`, rowKeyValue(latest));
    }
    const revision = this.revision + 1;
    return this.append({
      revision,
      key,
      created: true,
      deleted: false,
      createRevision: revision,
      prevRevision: latest?.revision ?? 0,
      value,
    });
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    const latest = this.liveForWrite(key, expectedModRevision);
    return this.append({
      revision: this.revision + 1,
      key,
      created: false,
      deleted: false,
      createRevision: latest.createRevision,
      prevRevision: latest.revision,
      value,
      oldValue: latest.value,
    });
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    const latest = this.liveForWrite(key, expectedModRevision);
    return this.append({
      revision: this.revision + 1,
      key,
      created: false,
      deleted: true,
      createRevision: latest.createRevision,
      prevRevision: latest.revision,
      value: latest.value,
      oldValue: latest.value,
    });
  }

  watch(key: string, options: WatchOptions, callbacks: WatchCallbacks): Watcher {
    if (this.closed) return this.hub.failed(key, callbacks, closedError(key));
    const compactedError = watchCompactedError(key, options.afterRevision, this.compacted);
    if (compactedError) return this.hub.failed(key, callbacks, compactedError);
    const after = options.afterRevision > 0 ? options.afterRevision : this.revision;
    const replay = this.log
      .slice(partition(this.log, (r) => r.revision <= after))
      .filter((r) => watchMatches(key, options.prefix, r.key))
      .map(rowEvent);
    // A watch from a future revision waits, as etcd does: skip live events until it is reached.
    const callbacksFrom = after > this.revision ? skipUntil(after, callbacks) : callbacks;
    return this.hub.subscribe(key, options.prefix, callbacksFrom, replay);
  }

  async compact(revision: number): Promise<void> {
    this.ensureOpen('');
    if (revision > this.revision) {
      throw new StorageError('FutureRevision', '', `cannot compact to future revision ${revision} (current ${this.revision})`, undefined, revision, this.revision);
    }
    this.compactNow(revision);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.window?.stop();
    this.hub.closeAll(closedError);
  }

  private compactNow(revision: number): void {
    if (revision <= this.compacted) return;
    for (const key of new Set(this.log.filter((r) => r.revision <= revision).map((r) => r.key))) {
      const rows = this.byKey.get(key)!;
      // Keep the newest row at or below the compaction point unless it is a tombstone: reads
      // above that point still need it as the key's value.
      let keepFrom = partition(rows, (r) => r.revision <= revision) - 1;
      if (rows[keepFrom]!.deleted) keepFrom++;
      rows.splice(0, keepFrom);
      if (rows.length === 0) {
        this.byKey.delete(key);
        this.sortedKeys.splice(partition(this.sortedKeys, (k) => k < key), 1);
      }
    }
    this.log = this.log.filter((r) => r.revision > revision || this.byKey.get(r.key)?.[0] === r);
    this.compacted = revision;
  }

  private append(row: LogRow): KeyValue {
    let rows = this.byKey.get(row.key);
    if (!rows) {
      rows = [];
      this.byKey.set(row.key, rows);
      this.sortedKeys.splice(partition(this.sortedKeys, (k) => k < row.key), 0, row.key);
    }
    rows.push(row);
    this.log.push(row);
    this.revision = row.revision;
    this.hub.publish(rowEvent(row));
    return rowKeyValue(row);
  }

  private latest(key: string): LogRow | undefined {
    const rows = this.byKey.get(key);
    return rows?.[rows.length - 1];
  }

  private rowAt(key: string, revision: number): LogRow | undefined {
    const rows = this.byKey.get(key);
    if (!rows) return undefined;
    const row = rows[partition(rows, (r) => r.revision <= revision) - 1];
    return row && !row.deleted ? row : undefined;
  }

  /** The key's live row, checked against the caller's expected mod revision. */
  private liveForWrite(key: string, expectedModRevision: number | undefined): LogRow {
    this.ensureOpen(key);
    const latest = this.latest(key);
    if (!latest || latest.deleted) throw new StorageError('KeyNotFound', key, `key ${key} not found`);
    if (expectedModRevision !== undefined && latest.revision !== expectedModRevision) {
      throw new StorageError(
        'Conflict',
        key,
        `key ${key} has mod revision ${latest.revision}, expected ${expectedModRevision}`,
        rowKeyValue(latest),
      );
    }
    return latest;
  }

  private ensureOpen(key: string): void {
    if (this.closed) throw closedError(key);
  }
}
