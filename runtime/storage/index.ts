// Picks the storage backend the server (or a test, through startServer) asked for; nothing
// above this file names a backend class.

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SecureContext } from 'node:tls';
import type { Storage } from './interface.js';
import { EtcdStorage } from './etcd.js';
import { MemoryStorage } from './memory.js';
import { SqliteStorage } from './sqlite.js';

export type StorageKind = 'memory' | 'sqlite' | 'etcd';

export interface OpenStorageOptions {
  kind: StorageKind;
  /** Where the sqlite file lives (`<dataDir>/state.sqlite`); created when missing. Required for sqlite. */
  dataDir?: string;
  /** etcd client URLs (`--etcd-servers`, split at commas). Required for etcd. */
  etcdServers?: string[];
  /** Where keys live in etcd (`--etcd-prefix`); default `/registry`, kube-apiserver's default. */
  etcdPrefix?: string;
  /** The TLS of https etcd endpoints (etcdSecureContext of the --etcd-* files). */
  etcdSecureContext?: SecureContext;
  /**
   * How long history is kept for watches from past revisions (sqlite and etcd default 5 minutes,
   * etcd being compacted on that schedule as kube-apiserver does; memory default: until compact()).
   */
  historyWindowMs?: number;
  /** Told the detail of a backend failure (addresses, client errors) for the server log; clients only get a Status. */
  onFailure?: (detail: string) => void;
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
    case 'etcd': {
      const endpoints = (options.etcdServers ?? []).map((s) => s.trim()).filter((s) => s.length > 0);
      if (endpoints.length === 0) throw new Error('openStorage: the etcd backend needs etcdServers');
      return new EtcdStorage({
        endpoints,
        prefix: options.etcdPrefix,
        historyWindowMs: options.historyWindowMs,
        onFailure: options.onFailure,
        secureContext: options.etcdSecureContext,
      });
    }
  }
};

export type * from './interface.js';
export { isStorageError, StorageError } from './interface.js';
export { etcdSecureContext, type EtcdTlsFiles } from './etcd-tls.js';
