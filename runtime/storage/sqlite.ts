// The embedded default backend: a kine-style log in one SQLite file (better-sqlite3).
//
// better-sqlite3 is synchronous, and this class owns its file exclusively (see PRAGMAS), so
// every write is: check the key's newest row, insert the next revision, commit, sync the WAL,
// then fan the event out in-process. The current revision lives in memory and only moves once
// the sync is done: a row committed but not yet synced is seen by later writes' checks, never by
// reads, watches or the writer.
// SQLite's errors are turned into StorageError codes here and nowhere else.

import { closeSync, fsync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { StorageError } from './interface.js';
import type { KeyValue, ListOptions, ListResult, Storage, WatchCallbacks, Watcher, WatchOptions } from './interface.js';
import { DEFAULT_HISTORY_WINDOW_MS, HistoryWindow } from './history-window.js';
import { closedError, prefixEnd, readRevision, rowEvent, rowKeyValue, watchCompactedError } from './log.js';
import type { LogRow } from './log.js';
import { requireSqlite } from './sqlite-addon.js';
import { LOCK_TIMEOUT_MS, PRAGMAS, SCHEMA, SQL } from './sqlite-schema.js';
import type { KineRow } from './sqlite-schema.js';
import { skipUntil, WatchHub } from './watch-hub.js';

/** WAL syncs running at once: a batch need not wait for the sync before it to end to start its own. */
const MAX_SYNCS = 2;

interface UnsyncedBatch {
  batch: PendingWrite[];
  outcomes: Array<LogRow | StorageError>;
  /** Durable (its own sync or a later one ended well), or failed to sync: its outcome is known. */
  synced: boolean;
  error?: Error;
  settled: Promise<void>;
  onSettled(): void;
}

interface PendingWrite {
  key: string;
  value: string;
  deleted: boolean;
  expected: number | undefined;
  creating: boolean;
  resolve(kv: KeyValue): void;
  reject(error: StorageError): void;
}

export interface SqliteStorageOptions {
  /** How long history is kept for watches and reads at past revisions. Default 5 minutes; 0 disables automatic compaction. */
  historyWindowMs?: number;
}

/** Above every key: the upper bound of the empty prefix (U+10FFFF sorts last in UTF-8). */
const END_OF_KEYS = '\u{10FFFF}';

const toLogRow = (row: KineRow): LogRow => ({
  revision: row.id,
  key: row.name,
  created: row.created === 1,
  deleted: row.deleted === 1,
  createRevision: row.create_revision,
  prevRevision: row.prev_revision,
  value: row.value,
  oldValue: row.old_value ?? undefined,
});

/** Inserts a log row: parameters bound by position (COLUMNS order), which the driver does quicker than by name. */
const insertRow = (insert: Statement, row: LogRow): void => {
  insert.run(row.revision, row.key, row.created ? 1 : 0, row.deleted ? 1 : 0, row.createRevision, row.prevRevision, row.value, row.oldValue ?? null);
};

let addon: typeof Database | undefined;
/** The native addon, loaded when the first SQLite store opens: a server on memory or etcd never loads it. */
const sqlite = (): typeof Database => (addon ??= requireSqlite());

/** better-sqlite3's errors carry SQLite's extended result code (e.g. SQLITE_CONSTRAINT_PRIMARYKEY). */
const sqliteCode = (e: unknown): string | undefined => (addon && e instanceof addon.SqliteError ? e.code : undefined);

type Statement = Database.Statement<unknown[], unknown>;
type ReadRow = Pick<KineRow, 'id' | 'deleted' | 'create_revision' | 'value'>;

export class SqliteStorage implements Storage {
  private readonly db: Database.Database;
  private readonly stmt: Record<keyof typeof SQL, Statement>;
  private readonly hub = new WatchHub();
  private readonly window?: HistoryWindow;
  /** The newest revision readers see: committed and synced. */
  private revision: number;
  /** The newest revision committed to the file; above `revision` while its WAL sync runs. */
  private written: number;
  /** The write-ahead log, synced before a batch is acknowledged; undefined for an in-memory database. */
  private readonly walPath?: string;
  private walFd?: number;
  /**
   * Committed batches not yet acknowledged, oldest first, each with its WAL sync (at most
   * MAX_SYNCS in flight). A batch is acknowledged once it is synced and every batch before it is.
   */
  private unsynced: UnsyncedBatch[] = [];
  private syncsInFlight = 0;
  /** Told when a sync ends: shutdown waits for every one, even those a later sync already covered. */
  private onSyncEnd?: () => void;
  private closing?: Promise<void>;
  private compacted: number;
  private closed = false;
  private readonly batchTx: (writes: PendingWrite[]) => Array<LogRow | StorageError>;
  /** Writes waiting for the next group commit. */
  private pending: PendingWrite[] = [];
  private readonly compactTx: (from: number, to: number) => void;

  constructor(
    readonly path: string,
    options: SqliteStorageOptions = {},
  ) {
    this.db = this.guard('', () => {
      const Sqlite = sqlite();
      const db = new Sqlite(path, { timeout: LOCK_TIMEOUT_MS });
      try {
        for (const pragma of PRAGMAS) db.pragma(pragma);
        db.exec(SCHEMA);
      } catch (e) {
        db.close();
        throw e;
      }
      return db;
    });
    // An in-memory database has no WAL (its journal mode stays "memory") and nothing to sync.
    if (this.db.pragma('journal_mode', { simple: true }) === 'wal') this.walPath = `${path}-wal`;
    const stmt = {} as Record<keyof typeof SQL, Statement>;
    for (const [name, sql] of Object.entries(SQL)) stmt[name as keyof typeof SQL] = this.db.prepare(sql);
    this.stmt = stmt;
    this.revision = (stmt.currentRevision.get() as { revision: number }).revision;
    this.written = this.revision;
    this.compacted = (stmt.compactRevision.get() as { value: number }).value;

    // One write of a batch. Not a transaction of its own (a SAVEPOINT and RELEASE per write): a
    // refused check throws before anything is written, and a failure of SQLite fails the batch.
    const appendRow = (row: LogRow, expected: number | undefined, creating: boolean): LogRow => {
      const latest = this.latestRow(row.key);
      const live = latest && !latest.deleted ? latest : undefined;
      if (creating) {
        if (live) throw new StorageError('KeyExists', row.key, `key ${row.key} already exists`, rowKeyValue(live));
        row.createRevision = row.revision;
        row.prevRevision = latest?.revision ?? 0;
      } else {
        if (!live) throw new StorageError('KeyNotFound', row.key, `key ${row.key} not found`);
        if (expected !== undefined && live.revision !== expected) {
          throw new StorageError('Conflict', row.key, `key ${row.key} has mod revision ${live.revision}, expected ${expected}`, rowKeyValue(live));
        }
        row.createRevision = live.createRevision;
        row.prevRevision = live.revision;
        row.oldValue = live.value;
        if (row.deleted) row.value = live.value;
      }
      insertRow(this.stmt.insert, row);
      return row;
    };
    // Group commit: every write queued since the last flush runs in one transaction (one fsync),
    // in arrival order, each with its own compare-and-swap check; a failed check fails that write
    // alone. Nothing is acknowledged before the commit.
    this.batchTx = this.db.transaction((writes: PendingWrite[]) => {
      let next = this.written + 1;
      return writes.map((w) => {
        const draft: LogRow = { revision: next, key: w.key, created: w.creating, deleted: w.deleted, createRevision: 0, prevRevision: 0, value: w.value };
        try {
          const row = appendRow(draft, w.expected, w.creating);
          next++;
          return row;
        } catch (e) {
          if (e instanceof StorageError) return e;
          throw e;
        }
      });
    });
    this.compactTx = this.db.transaction((from: number, to: number) => {
      const range = { from, to };
      this.stmt.compactSuperseded.run(range);
      this.stmt.compactTombstones.run(range);
      this.stmt.setCompactRevision.run(to);
    });

    const windowMs = options.historyWindowMs ?? DEFAULT_HISTORY_WINDOW_MS;
    if (windowMs > 0) {
      // A failed background compaction only delays forgetting; a later tick compacts further.
      this.window = new HistoryWindow(
        windowMs,
        () => this.revision,
        (rev) => this.compactNow(rev),
        (error) => process.emitWarning(`sqlite storage compaction failed: ${error instanceof Error ? error.message : String(error)}`),
      );
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
    // The newest row is the one to read only when no commit is waiting for its sync.
    const newest = at === this.revision && this.written === this.revision;
    const row = this.guard(key, () =>
      newest ? (this.stmt.readLatest.get(key) as ReadRow | undefined) : (this.stmt.readAt.get(key, at) as ReadRow | undefined),
    );
    return row && row.deleted === 0 ? { key, value: row.value, createRevision: row.create_revision, modRevision: row.id } : undefined;
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.ensureOpen(prefix);
    const at = readRevision(prefix, options.revision, this.revision, this.compacted);
    const from = options.startKey !== undefined && options.startKey > prefix ? options.startKey : prefix;
    const end = prefixEnd(prefix) ?? END_OF_KEYS;
    const limit = options.limit && options.limit > 0 ? options.limit : undefined;
    return this.guard(prefix, () => {
      // One row past the limit tells whether more follow without counting in the common case.
      const rows = this.stmt.list.all({ from, end, revision: at, limit: limit === undefined ? -1 : limit + 1 }) as Pick<
        KineRow,
        'id' | 'name' | 'create_revision' | 'value'
      >[];
      const more = limit !== undefined && rows.length > limit;
      if (more) rows.length = limit;
      const items = rows.map((r) => ({ key: r.name, value: r.value, createRevision: r.create_revision, modRevision: r.id }));
      const remaining = more ? this.countRange(`${items[items.length - 1]!.key}\x00`, end, at) : 0;
      return { items, revision: at, more, remaining };
    });
  }

  async count(prefix: string): Promise<number> {
    this.ensureOpen(prefix);
    return this.guard(prefix, () => this.countRange(prefix, prefixEnd(prefix) ?? END_OF_KEYS, this.revision));
  }

  async create(key: string, value: string): Promise<KeyValue> {
    return this.append(key, value, false, undefined, true);
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.append(key, value, false, expectedModRevision, false);
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.append(key, '', true, expectedModRevision, false);
  }

  watch(key: string, options: WatchOptions, callbacks: WatchCallbacks): Watcher {
    if (this.closed) return this.hub.failed(key, callbacks, closedError(key));
    const compactedError = watchCompactedError(key, options.afterRevision, this.compacted);
    if (compactedError) return this.hub.failed(key, callbacks, compactedError);
    const after = options.afterRevision > 0 ? options.afterRevision : this.revision;
    let replay: KineRow[] = [];
    if (after < this.revision) {
      try {
        replay = options.prefix
          ? (this.stmt.replayPrefix.all({ after, from: key, end: prefixEnd(key) ?? END_OF_KEYS }) as KineRow[])
          : (this.stmt.replayKey.all({ after, name: key }) as KineRow[]);
      } catch (e) {
        return this.hub.failed(key, callbacks, this.translate(key, e));
      }
    }
    // Replay read and subscription happen in this one synchronous step, so no commit falls between;
    // rows still waiting for their sync are published by it, not replayed.
    const live = after > this.revision ? skipUntil(after, callbacks) : callbacks;
    const synced = replay.filter((r) => r.id <= this.revision);
    return this.hub.subscribe(key, options.prefix, live, synced.map((r) => rowEvent(toLogRow(r))));
  }

  async compact(revision: number): Promise<void> {
    this.ensureOpen('');
    if (revision > this.revision) {
      throw new StorageError('FutureRevision', '', `cannot compact to future revision ${revision} (current ${this.revision})`, undefined, revision, this.revision);
    }
    this.compactNow(revision);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closing ??= this.shutdown();
    return this.closing;
  }

  /** Writes already queued are committed, synced and acknowledged before the file closes. */
  private async shutdown(): Promise<void> {
    // A sync a later one already covered may still run on the WAL's descriptor: it stays open until then.
    while (this.unsynced.length > 0 || this.pending.length > 0 || this.syncsInFlight > 0) {
      if (this.unsynced.length > 0) await this.unsynced[this.unsynced.length - 1]!.settled;
      else if (this.pending.length > 0 && this.syncsInFlight < MAX_SYNCS) this.flush();
      else await new Promise<void>((resolve) => (this.onSyncEnd = resolve));
    }
    this.closed = true;
    this.window?.stop();
    this.hub.closeAll(closedError);
    if (this.walFd !== undefined) closeSync(this.walFd);
    this.db.close();
  }

  private append(key: string, value: string, deleted: boolean, expected: number | undefined, creating: boolean): Promise<KeyValue> {
    this.ensureOpen(key);
    return new Promise((resolve, reject) => {
      this.pending.push({ key, value, deleted, expected, creating, resolve, reject });
      // Writes arriving in the same turn of the event loop share the commit and its sync; while
      // MAX_SYNCS syncs run, later writes wait for one to end and form the next batch.
      if (this.pending.length === 1 && this.syncsInFlight < MAX_SYNCS) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    if (this.syncsInFlight >= MAX_SYNCS) return;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    if (this.closed) {
      for (const w of batch) w.reject(closedError(w.key));
      return;
    }
    let outcomes: Array<LogRow | StorageError>;
    try {
      outcomes = this.batchTx(batch);
    } catch (e) {
      // The transaction rolled back: no write of the batch happened.
      for (const w of batch) w.reject(this.translate(w.key, e, w.creating));
      return;
    }
    const before = this.written;
    for (const outcome of outcomes) if (!(outcome instanceof StorageError)) this.written = outcome.revision;
    if (!this.walPath || (this.written === before && this.unsynced.length === 0)) {
      // Nothing to sync, and nothing before it waits for a sync: acknowledged now.
      this.settle(batch, outcomes);
      return;
    }
    let settled!: () => void;
    const entry: UnsyncedBatch = { batch, outcomes, synced: false, settled: new Promise<void>((resolve) => (settled = resolve)), onSettled: () => settled() };
    this.unsynced.push(entry);
    if (this.written === before) {
      // Refusals only: nothing of its own to sync, answered in order after the batches before it.
      entry.synced = true;
      return;
    }
    // The sync runs on libuv's thread pool, so the event loop keeps reading requests meanwhile.
    // Writes arriving while it runs are committed and start a sync of their own (up to
    // MAX_SYNCS at once), rather than waiting for this one to end first.
    this.syncsInFlight++;
    let fd: number;
    try {
      fd = this.walFd ?? this.openWal();
    } catch (e) {
      this.synced(entry, e as Error);
      return;
    }
    fsync(fd, (err) => this.synced(entry, err ?? undefined));
  }

  /**
   * A batch's sync ended. A successful sync covers every batch committed before it too (the WAL
   * is one file, and they were written to it first), so those are acknowledged with it; then
   * every batch at the head of the queue whose outcome is known is, in order.
   */
  private synced(entry: UnsyncedBatch, error?: Error): void {
    this.syncsInFlight--;
    const ended = this.onSyncEnd;
    this.onSyncEnd = undefined;
    ended?.();
    entry.synced = true;
    entry.error = error;
    if (!error) {
      for (const earlier of this.unsynced) {
        if (earlier === entry) break;
        if (!earlier.synced) earlier.synced = true;
      }
    }
    while (this.unsynced.length > 0 && this.unsynced[0]!.synced) {
      const head = this.unsynced.shift()!;
      this.settle(head.batch, head.outcomes, head.error);
      head.onSettled();
    }
    if (this.pending.length > 0) this.flush();
  }

  /**
   * Publishes and acknowledges a committed batch, in order. When the sync failed the rows are in
   * the file and later reads see them, so watchers hear of them too; their writers are told the
   * outcome is unknown, as an etcd client is when a commit outlives its request.
   */
  private settle(batch: PendingWrite[], outcomes: Array<LogRow | StorageError>, syncError?: Error): void {
    outcomes.forEach((outcome, i) => {
      if (outcome instanceof StorageError) {
        batch[i].reject(outcome);
        return;
      }
      this.revision = outcome.revision;
      this.hub.publish(rowEvent(outcome));
      if (syncError) batch[i].reject(new StorageError('Unavailable', batch[i].key, `sqlite storage could not sync ${this.walPath}: ${syncError.message}`));
      else batch[i].resolve(rowKeyValue(outcome));
    });
  }

  /** Opens the WAL for syncing; its directory entry is synced once, as SQLite does for a new journal. */
  private openWal(): number {
    const walPath = this.walPath!;
    const dir = openSync(dirname(walPath), 'r');
    try {
      fsyncSync(dir);
    } finally {
      closeSync(dir);
    }
    this.walFd = openSync(walPath, 'r');
    return this.walFd;
  }

  private compactNow(revision: number): void {
    if (this.closed || revision <= this.compacted) return;
    this.guard('', () => this.compactTx(this.compacted, revision));
    this.compacted = revision;
  }

  private latestRow(key: string): LogRow | undefined {
    const row = this.stmt.latest.get(key) as KineRow | undefined;
    return row ? toLogRow(row) : undefined;
  }

  private countRange(from: string, end: string, revision: number): number {
    return (this.stmt.count.get({ from, end, revision }) as { count: number }).count;
  }

  /** Runs a database step, turning SQLite's failures into StorageErrors. */
  private guard<T>(key: string, step: () => T, creating = false): T {
    try {
      return step();
    } catch (e) {
      throw this.translate(key, e, creating);
    }
  }

  private translate(key: string, e: unknown, creating = false): StorageError {
    if (e instanceof StorageError) return e;
    const code = sqliteCode(e);
    const message = e instanceof Error ? e.message : String(e);
    if (code?.startsWith('SQLITE_CONSTRAINT')) {
      // Only another writer on the same file can collide on the revision or the key; resync the
      // revision so the next attempt uses a fresh one, and let the caller retry.
      this.written = (this.stmt.currentRevision.get() as { revision: number }).revision;
      this.revision = this.written;
      const current = this.latestRow(key);
      return creating
        ? new StorageError('KeyExists', key, `key ${key} already exists`, current && !current.deleted ? rowKeyValue(current) : undefined)
        : new StorageError('Conflict', key, `key ${key} was modified concurrently`, current && !current.deleted ? rowKeyValue(current) : undefined);
    }
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      return new StorageError('Unavailable', key, `sqlite database ${this.path} is locked by another process: ${message}`);
    }
    return new StorageError('Unavailable', key, `sqlite storage failed (${code ?? 'error'}): ${message}`);
  }

  private ensureOpen(key: string): void {
    if (this.closed) throw closedError(key);
  }
}
