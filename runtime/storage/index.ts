// Picks the storage backend the server (or a test, through startServer) asked for. The etcd
// backend joins here when it exists; nothing above this file names a backend class.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Storage } from './interface.js';
import { MemoryStorage } from './memory.js';
import { SqliteStorage } from './sqlite.js';

export type StorageKind = 'memory' | 'sqlite';

export interface OpenStorageOptions {
  kind: StorageKind;
  /** Where the sqlite file lives (`<dataDir>/state.sqlite`); created when missing. Required for sqlite. */
  dataDir?: string;
  /** How long history is kept for watches from past revisions (sqlite default 5 minutes; memory default: until compact()). */
  historyWindowMs?: number;
}

export const SQLITE_FILE_NAME = 'state.sqlite';

export const openStorage = (options: OpenStorageOptions): Storage => {
  switch (options.kind) {
    case 'memory':
      return new MemoryStorage({ historyWindowMs: options.historyWindowMs });
    case 'sqlite': {
      if (!options.dataDir) throw new Error('openStorage: the sqlite backend needs a dataDir');
      mkdirSync(options.dataDir, { recursive: true });
      return new SqliteStorage(join(options.dataDir, SQLITE_FILE_NAME), { historyWindowMs: options.historyWindowMs });
    }
  }
};

export type * from './interface.js';
export { isStorageError, StorageError } from './interface.js';
