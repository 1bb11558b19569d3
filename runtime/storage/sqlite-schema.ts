// The whole on-disk format of the sqlite backend, after kine's: one append-only log table whose
// row id is the store revision, plus a one-row-per-setting table for what the log cannot say
// about itself (the compacted revision). Changing anything here is a data format change.

export const SCHEMA_VERSION = 1;

export const SCHEMA = `
CREATE TABLE IF NOT EXISTS kine (
  id INTEGER PRIMARY KEY AUTOINCREMENT, -- the revision of this write
  name TEXT NOT NULL,                   -- the key
  created INTEGER NOT NULL,             -- 1 when this write created the key
  deleted INTEGER NOT NULL,             -- 1 when this write deleted the key (value holds the last value)
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,       -- the id of the row this one supersedes, 0 for none
  value TEXT NOT NULL,
  old_value TEXT                        -- the superseded value, so prevKv outlives compaction
);
-- A key's newest row (at or below a revision); carrying deleted lets range reads and counts
-- decide liveness from the index alone.
CREATE INDEX IF NOT EXISTS kine_name_id_deleted_index ON kine (name, id, deleted);
CREATE TABLE IF NOT EXISTS kine_meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
);
INSERT OR IGNORE INTO kine_meta (name, value) VALUES ('schema_version', ${SCHEMA_VERSION});
INSERT OR IGNORE INTO kine_meta (name, value) VALUES ('compact_revision', 0);
`;

/** How long an open waits for another process to let go of the file before giving up. */
export const LOCK_TIMEOUT_MS = 500;

/**
 * Connection settings, applied before the schema. WAL with synchronous=NORMAL does not sync at
 * commit; the backend syncs the WAL itself, off the event loop, and acknowledges no write before
 * that sync (see SqliteStorage.flush), so every acknowledged commit is durable across a crash or
 * SIGKILL while the next batch forms. Checkpoints still sync as SQLite does them.
 * Exclusive locking means one process owns the file: the backend keeps the current revision
 * in memory, so a second writer must be refused rather than silently interleaved; it also lets
 * WAL work without a shared-memory index.
 */
export const PRAGMAS = ['locking_mode = EXCLUSIVE', 'journal_mode = WAL', 'synchronous = NORMAL'];

const COLUMNS = 'id, name, created, deleted, create_revision, prev_revision, value, old_value';

export const SQL = {
  currentRevision: `SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'kine'), 0), COALESCE((SELECT MAX(id) FROM kine), 0)) AS revision`,
  compactRevision: `SELECT value FROM kine_meta WHERE name = 'compact_revision'`,
  setCompactRevision: `UPDATE kine_meta SET value = ? WHERE name = 'compact_revision'`,
  latest: `SELECT ${COLUMNS} FROM kine WHERE name = ? ORDER BY id DESC LIMIT 1`,
  // What a read returns, and no more: a GET needs neither the superseded value nor the links.
  readLatest: `SELECT id, deleted, create_revision, value FROM kine WHERE name = ? ORDER BY id DESC LIMIT 1`,
  readAt: `SELECT id, deleted, create_revision, value FROM kine WHERE name = ? AND id <= ? ORDER BY id DESC LIMIT 1`,
  // Positional parameters (sqlite.ts toParams): binding by name costs the driver a lookup per column.
  insert: `INSERT INTO kine (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  // Walks the index in key order and stops at the limit: a row is listed when it is live and
  // is its key's newest row at or below @revision.
  list: `
    SELECT id, name, create_revision, value FROM kine AS kv
    WHERE name >= @from AND name < @end AND deleted = 0
      AND id = (SELECT MAX(id) FROM kine AS newer WHERE newer.name = kv.name AND newer.id <= @revision)
    ORDER BY name LIMIT @limit`,
  // With a single MAX(), SQLite takes the bare column deleted from the row holding the max,
  // so liveness comes from the covering index without touching the table.
  count: `
    SELECT COUNT(*) AS count FROM (
      SELECT MAX(id) AS id, deleted FROM kine
      WHERE name >= @from AND name < @end AND id <= @revision
      GROUP BY name HAVING deleted = 0)`,
  replayPrefix: `SELECT ${COLUMNS} FROM kine WHERE id > @after AND name >= @from AND name < @end ORDER BY id`,
  replayKey: `SELECT ${COLUMNS} FROM kine WHERE id > @after AND name = @name ORDER BY id`,
  // Compaction from (@from, @to]: a row is dropped once a row at or below @to supersedes it,
  // and a tombstone at or below @to is dropped too (no read above @to can see it).
  compactSuperseded: `DELETE FROM kine WHERE id IN (SELECT prev_revision FROM kine WHERE id > @from AND id <= @to AND prev_revision > 0)`,
  compactTombstones: `DELETE FROM kine WHERE deleted = 1 AND id > @from AND id <= @to`,
} as const;

/** A row as the driver returns it. */
export interface KineRow {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: string;
  old_value: string | null;
}
