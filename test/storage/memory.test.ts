import { describe, expect, it } from 'vitest';
import { MemoryStorage } from '../../runtime/storage/memory.js';
import { rejectsWith, runStorageConformance } from './conformance.js';

runStorageConformance('memory', async () => new MemoryStorage());

describe('memory storage', () => {
  it('compacts history older than its window on its own, when given one', async () => {
    const store = new MemoryStorage({ historyWindowMs: 20 });
    const a = await store.create('/h/a', '1');
    const b = await store.update('/h/a', '2', a.modRevision);
    while ((await store.oldestRevision()) <= b.modRevision) await new Promise((r) => setTimeout(r, 10));
    await rejectsWith(store.get('/h/a', a.modRevision), 'Compacted');
    expect(await store.get('/h/a')).toEqual(b);
    await store.close();
  });

  it('keeps all history when no window is given', async () => {
    const store = new MemoryStorage();
    const a = await store.create('/h/a', '1');
    await store.update('/h/a', '2', a.modRevision);
    expect(await store.oldestRevision()).toBe(1);
    expect(await store.get('/h/a', a.modRevision)).toEqual(a);
    await store.close();
  });
});
