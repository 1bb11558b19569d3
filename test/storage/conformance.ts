// The storage contract as one suite: every backend (memory, sqlite, etcd) runs exactly this,
// so behaviour above the storage layer never depends on which backend is configured.
// Watch behaviour lives in conformance-watch.ts; this file covers reads, writes and compaction.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStorageError } from '../../runtime/storage/interface.js';
import type { Storage, StorageErrorCode } from '../../runtime/storage/interface.js';
import { runWatchConformance } from './conformance-watch.js';

export type MakeStore = () => Promise<Storage>;

/** Asserts that `promise` rejects with a StorageError of `code` and returns it. */
export const rejectsWith = async (promise: Promise<unknown>, code: StorageErrorCode) => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isStorageError(error), `expected StorageError(${code}), got ${String(error)}`).toBe(true);
  if (!isStorageError(error)) throw error;
  expect(error.code).toBe(code);
  return error;
};

export const runStorageConformance = (name: string, makeStore: MakeStore): void => {
  describe(`storage conformance: ${name}`, () => {
    let store: Storage;
    beforeEach(async () => {
      store = await makeStore();
    });
    afterEach(async () => {
      await store.close();
    });

    describe('create and get', () => {
      it('creates a key at a new revision and reads it back', async () => {
        const before = await store.currentRevision();
        const kv = await store.create('/registry/configmaps/default/a', '{"v":1}');
        expect(kv).toEqual({ key: '/registry/configmaps/default/a', value: '{"v":1}', createRevision: before + 1, modRevision: before + 1 });
        expect(await store.currentRevision()).toBe(before + 1);
        expect(await store.get('/registry/configmaps/default/a')).toEqual(kv);
      });

      it('refuses to create an existing key with KeyExists and leaves the revision alone', async () => {
        await store.create('/k', 'one');
        const revision = await store.currentRevision();
        const error = await rejectsWith(store.create('/k', 'two'), 'KeyExists');
        expect(error.key).toBe('/k');
        expect(await store.currentRevision()).toBe(revision);
        expect((await store.get('/k'))?.value).toBe('one');
      });

      it('creates a key again after it was deleted, with a fresh createRevision', async () => {
        const first = await store.create('/k', 'one');
        await store.delete('/k');
        const second = await store.create('/k', 'two');
        expect(second.createRevision).toBe(second.modRevision);
        expect(second.createRevision).toBeGreaterThan(first.createRevision + 1);
      });

      it('returns undefined for a missing key', async () => {
        expect(await store.get('/missing')).toBeUndefined();
      });

      it('reads a key as of a past revision', async () => {
        const v1 = await store.create('/k', 'v1');
        const v2 = await store.update('/k', 'v2', v1.modRevision);
        const deleted = await store.delete('/k');
        await store.create('/other', 'x');
        expect(await store.get('/k', v1.modRevision)).toEqual(v1);
        expect(await store.get('/k', v2.modRevision)).toEqual(v2);
        expect(await store.get('/k', deleted.modRevision)).toBeUndefined();
        expect(await store.get('/k')).toBeUndefined();
        expect(await store.get('/other', v1.modRevision)).toBeUndefined();
      });

      it('refuses a read above the current revision with FutureRevision', async () => {
        await store.create('/k', 'v');
        const current = await store.currentRevision();
        const error = await rejectsWith(store.get('/k', current + 1), 'FutureRevision');
        expect(error.revision).toBe(current + 1);
        expect(error.bound).toBe(current);
        await rejectsWith(store.list('/', { revision: current + 5 }), 'FutureRevision');
      });
    });

    describe('update', () => {
      it('replaces the value when the mod revision matches, keeping createRevision', async () => {
        const created = await store.create('/k', 'v1');
        const updated = await store.update('/k', 'v2', created.modRevision);
        expect(updated).toEqual({ key: '/k', value: 'v2', createRevision: created.createRevision, modRevision: created.modRevision + 1 });
        expect(await store.get('/k')).toEqual(updated);
      });

      it('refuses a stale mod revision with Conflict carrying the current value', async () => {
        const created = await store.create('/k', 'v1');
        const updated = await store.update('/k', 'v2', created.modRevision);
        const revision = await store.currentRevision();
        const error = await rejectsWith(store.update('/k', 'v3', created.modRevision), 'Conflict');
        expect(error.current).toEqual(updated);
        expect(await store.currentRevision()).toBe(revision);
        expect((await store.get('/k'))?.value).toBe('v2');
      });

      it('refuses to update a missing or deleted key with KeyNotFound', async () => {
        await rejectsWith(store.update('/missing', 'v', 1), 'KeyNotFound');
        const created = await store.create('/k', 'v1');
        await store.delete('/k');
        await rejectsWith(store.update('/k', 'v2', created.modRevision), 'KeyNotFound');
      });
    });

    describe('delete', () => {
      it('deletes conditionally, returning the last value at the deletion revision', async () => {
        const created = await store.create('/k', 'v1');
        const deleted = await store.delete('/k', created.modRevision);
        expect(deleted).toEqual({ key: '/k', value: 'v1', createRevision: created.createRevision, modRevision: created.modRevision + 1 });
        expect(await store.currentRevision()).toBe(deleted.modRevision);
        expect(await store.get('/k')).toBeUndefined();
      });

      it('refuses a stale expected revision with Conflict carrying the current value', async () => {
        const created = await store.create('/k', 'v1');
        const updated = await store.update('/k', 'v2', created.modRevision);
        const error = await rejectsWith(store.delete('/k', created.modRevision), 'Conflict');
        expect(error.current).toEqual(updated);
        expect(await store.get('/k')).toEqual(updated);
      });

      it('deletes unconditionally when no revision is given', async () => {
        const created = await store.create('/k', 'v1');
        await store.update('/k', 'v2', created.modRevision);
        const deleted = await store.delete('/k');
        expect(deleted.value).toBe('v2');
      });

      it('refuses to delete a missing key with KeyNotFound', async () => {
        await rejectsWith(store.delete('/missing'), 'KeyNotFound');
        await store.create('/k', 'v');
        await store.delete('/k');
        await rejectsWith(store.delete('/k'), 'KeyNotFound');
      });
    });

    describe('list and count', () => {
      const fill = async () => {
        for (const key of ['/registry/cm/a/3', '/registry/cm/a/1', '/registry/cm/ab/1', '/registry/cm/a/2', '/registry/cm/b/1']) {
          await store.create(key, key);
        }
      };

      it('lists the keys under a prefix in key order, and only those', async () => {
        await fill();
        const result = await store.list('/registry/cm/a/');
        expect(result.items.map((kv) => kv.key)).toEqual(['/registry/cm/a/1', '/registry/cm/a/2', '/registry/cm/a/3']);
        expect(result.items[0]!.value).toBe('/registry/cm/a/1');
        expect(result.revision).toBe(await store.currentRevision());
        expect(result.more).toBe(false);
        expect((await store.list('/registry/cm/')).items).toHaveLength(5);
        expect((await store.list('/registry/none/')).items).toEqual([]);
      });

      it('pages with limit and startKey, reporting more and remaining', async () => {
        await fill();
        const first = await store.list('/registry/cm/', { limit: 2 });
        expect(first.items.map((kv) => kv.key)).toEqual(['/registry/cm/a/1', '/registry/cm/a/2']);
        expect(first).toMatchObject({ more: true, remaining: 3 });
        const second = await store.list('/registry/cm/', { limit: 2, revision: first.revision, startKey: '/registry/cm/a/2\x00' });
        expect(second.items.map((kv) => kv.key)).toEqual(['/registry/cm/a/3', '/registry/cm/ab/1']);
        expect(second).toMatchObject({ more: true, remaining: 1, revision: first.revision });
        const last = await store.list('/registry/cm/', { limit: 2, revision: first.revision, startKey: '/registry/cm/ab/1\x00' });
        expect(last.items.map((kv) => kv.key)).toEqual(['/registry/cm/b/1']);
        expect(last.more).toBe(false);
        const inclusive = await store.list('/registry/cm/', { startKey: '/registry/cm/ab/1' });
        expect(inclusive.items.map((kv) => kv.key)).toEqual(['/registry/cm/ab/1', '/registry/cm/b/1']);
        const exact = await store.list('/registry/cm/', { limit: 5 });
        expect(exact).toMatchObject({ more: false });
        expect(exact.items).toHaveLength(5);
      });

      it('pages a consistent snapshot at a fixed revision while writes happen', async () => {
        const keys = Array.from({ length: 10 }, (_, i) => `/registry/cm/ns/k${String(i).padStart(2, '0')}`);
        for (const key of keys) await store.create(key, 'old');
        const snapshot = await store.list('/registry/cm/ns/');
        const pages = [];
        let page = await store.list('/registry/cm/ns/', { limit: 3 });
        pages.push(...page.items);
        let round = 0;
        while (page.more) {
          // Change the store between pages: updates, deletes and creates on both sides of the cursor.
          const victim = keys[round]!;
          const current = await store.get(victim);
          if (current) await store.update(victim, `new${round}`, current.modRevision);
          await store.delete(keys[9 - round]!);
          await store.create(`/registry/cm/ns/k${round}x`, 'added');
          round++;
          const lastKey = page.items[page.items.length - 1]!.key;
          page = await store.list('/registry/cm/ns/', { limit: 3, revision: snapshot.revision, startKey: `${lastKey}\x00` });
          expect(page.revision).toBe(snapshot.revision);
          pages.push(...page.items);
        }
        expect(pages).toEqual(snapshot.items);
        expect((await store.list('/registry/cm/ns/')).items).not.toEqual(snapshot.items);
      });

      it('lists as of a past revision, including keys deleted since and excluding later ones', async () => {
        const a = await store.create('/p/a', 'a1');
        await store.create('/p/b', 'b1');
        const past = await store.currentRevision();
        await store.update('/p/a', 'a2', a.modRevision);
        await store.delete('/p/b');
        await store.create('/p/c', 'c1');
        const then = await store.list('/p/', { revision: past });
        expect(then.revision).toBe(past);
        expect(then.items.map((kv) => [kv.key, kv.value])).toEqual([
          ['/p/a', 'a1'],
          ['/p/b', 'b1'],
        ]);
        const now = await store.list('/p/');
        expect(now.items.map((kv) => [kv.key, kv.value])).toEqual([
          ['/p/a', 'a2'],
          ['/p/c', 'c1'],
        ]);
      });

      it('counts the live keys under a prefix', async () => {
        await fill();
        expect(await store.count('/registry/cm/a/')).toBe(3);
        expect(await store.count('/registry/cm/')).toBe(5);
        await store.delete('/registry/cm/a/2');
        expect(await store.count('/registry/cm/a/')).toBe(2);
        expect(await store.count('/nothing/')).toBe(0);
      });
    });

    describe('compaction', () => {
      it('forgets history at or below the compacted revision but keeps current values', async () => {
        const a1 = await store.create('/c/a', 'a1');
        const b = await store.create('/c/b', 'b1');
        const a2 = await store.update('/c/a', 'a2', a1.modRevision);
        await store.create('/c/gone', 'x');
        await store.delete('/c/gone');
        const point = await store.currentRevision();
        const a3 = await store.update('/c/a', 'a3', a2.modRevision);

        expect(await store.oldestRevision()).toBeLessThanOrEqual(a1.modRevision);
        await store.compact(point);
        expect(await store.oldestRevision()).toBe(point + 1);
        expect(await store.currentRevision()).toBe(a3.modRevision);

        await rejectsWith(store.get('/c/a', a2.modRevision), 'Compacted');
        const error = await rejectsWith(store.list('/c/', { revision: point }), 'Compacted');
        expect(error.revision).toBe(point);
        expect(error.bound).toBe(point + 1);
        await rejectsWith(store.get('/c/b', point), 'Compacted');

        expect(await store.get('/c/a', point + 1)).toEqual(a3);
        expect(await store.get('/c/b')).toEqual(b);
        expect(await store.get('/c/gone')).toBeUndefined();
        expect((await store.list('/c/')).items.map((kv) => kv.value)).toEqual(['a3', 'b1']);
        expect(await store.count('/c/')).toBe(2);
      });

      it('keeps a value written before the compaction point readable at later revisions', async () => {
        const kept = await store.create('/c/kept', 'v');
        await store.create('/c/other', 'o');
        const point = await store.currentRevision();
        await store.create('/c/after', 'x');
        await store.compact(point);
        expect(await store.get('/c/kept', point + 1)).toEqual(kept);
        expect((await store.list('/c/', { revision: point + 1 })).items.map((kv) => kv.key)).toEqual(['/c/after', '/c/kept', '/c/other']);
      });

      it('keeps writing after compaction, with revisions still increasing', async () => {
        const created = await store.create('/c/k', 'v');
        await store.delete('/c/k');
        const point = await store.currentRevision();
        await store.compact(point);
        const again = await store.create('/c/k', 'v2');
        expect(again.modRevision).toBe(point + 1);
        expect(again.createRevision).toBeGreaterThan(created.createRevision);
      });

      it('treats compacting an already compacted revision as done, and refuses the future', async () => {
        await store.create('/c/a', '1');
        await store.create('/c/b', '2');
        const current = await store.currentRevision();
        await store.compact(current);
        await store.compact(current - 1);
        expect(await store.oldestRevision()).toBe(current + 1);
        await rejectsWith(store.compact(current + 10), 'FutureRevision');
      });
    });

    describe('concurrency', () => {
      it('loses no update when many writers read-modify-write with retry on Conflict', async () => {
        await store.create('/counter', '0');
        const writers = 8;
        const increments = 15;
        let conflicts = 0;
        const writer = async () => {
          for (let i = 0; i < increments; i++) {
            for (;;) {
              const current = (await store.get('/counter'))!;
              try {
                await store.update('/counter', String(Number(current.value) + 1), current.modRevision);
                break;
              } catch (e) {
                if (!isStorageError(e, 'Conflict')) throw e;
                conflicts++;
              }
            }
          }
        };
        await Promise.all(Array.from({ length: writers }, writer));
        expect((await store.get('/counter'))?.value).toBe(String(writers * increments));
        // The writers interleave, so the retry path is really exercised.
        expect(conflicts).toBeGreaterThan(0);
      });

      it('lets exactly one of many concurrent creates of a key win', async () => {
        const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => store.create('/race', String(i))));
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        for (const r of results) if (r.status === 'rejected') expect(isStorageError(r.reason, 'KeyExists')).toBe(true);
      });
    });

    it('reports Unavailable once closed', async () => {
      const closing = await makeStore();
      await closing.create('/k', 'v');
      await closing.close();
      await rejectsWith(closing.get('/k'), 'Unavailable');
      await rejectsWith(closing.create('/k2', 'v'), 'Unavailable');
    });

    runWatchConformance(() => store, makeStore);
  });
};
