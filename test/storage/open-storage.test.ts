import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStorage } from '../../runtime/storage/index.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';
import { SqliteStorage } from '../../runtime/storage/sqlite.js';

const dir = mkdtempSync(join(tmpdir(), 'open-storage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openStorage', () => {
  it('opens the sqlite store at <dataDir>/state.sqlite, creating the directory', async () => {
    const dataDir = join(dir, 'nested', 'data');
    const store = openStorage({ kind: 'sqlite', dataDir });
    expect(store).toBeInstanceOf(SqliteStorage);
    await store.create('/k', 'v');
    await store.close();
    expect(existsSync(join(dataDir, 'state.sqlite'))).toBe(true);
    const reopened = openStorage({ kind: 'sqlite', dataDir });
    expect((await reopened.get('/k'))?.value).toBe('v');
    await reopened.close();
  });

  it('opens a memory store, and refuses sqlite without a data directory', async () => {
    const store = openStorage({ kind: 'memory' });
    expect(store).toBeInstanceOf(MemoryStorage);
    await store.close();
    expect(() => openStorage({ kind: 'sqlite' })).toThrow(/dataDir/);
  });
});
