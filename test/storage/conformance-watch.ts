// The watch half of the storage conformance suite (see conformance.ts).

import { describe, expect, it } from 'vitest';
import type { Storage } from '../../runtime/storage/interface.js';
import { recordWatch } from './watch-recorder.js';

export const runWatchConformance = (current: () => Storage, makeStore: () => Promise<Storage>): void => {
  describe('watch', () => {
    it('from revision 0 delivers only events after the current revision', async () => {
      const store = current();
      await store.create('/w/old', 'old');
      const rec = recordWatch(store, '/w/', { afterRevision: 0, prefix: true });
      const created = await store.create('/w/a', 'a1');
      const updated = await store.update('/w/a', 'a2', created.modRevision);
      const deleted = await store.delete('/w/a');
      const events = await rec.untilEvents(3);
      rec.watcher.stop();

      expect(events[0]).toEqual({ type: 'put', kv: created, created: true });
      expect(events[1]).toEqual({ type: 'put', kv: updated, prevKv: created, created: false });
      expect(events[2]).toEqual({ type: 'delete', kv: deleted, prevKv: updated, created: false });
      expect(deleted).toEqual({ key: '/w/a', value: 'a2', createRevision: created.createRevision, modRevision: updated.modRevision + 1 });
    });

    it('from a past revision replays history, then goes live without gaps or duplicates', async () => {
      const store = current();
      const start = await store.currentRevision();
      const a = await store.create('/w/a', '1');
      await store.create('/w/b', '1');
      await store.update('/w/a', '2', a.modRevision);
      await store.delete('/w/b');
      const rec = recordWatch(store, '/w/', { afterRevision: a.modRevision, prefix: true });
      await store.create('/w/c', '1');
      await store.delete('/w/a');
      const events = await rec.untilEvents(5);
      rec.watcher.stop();

      expect(events.map((e) => e.kv.modRevision)).toEqual([start + 2, start + 3, start + 4, start + 5, start + 6]);
      expect(events.map((e) => [e.type, e.kv.key, e.created])).toEqual([
        ['put', '/w/b', true],
        ['put', '/w/a', false],
        ['delete', '/w/b', false],
        ['put', '/w/c', true],
        ['delete', '/w/a', false],
      ]);
      expect(events[1]!.prevKv).toEqual(a);
      expect(events[2]!.prevKv).toMatchObject({ key: '/w/b', value: '1', modRevision: start + 2 });
    });

    it('replays and streams every event exactly once while writes race with the watch start', async () => {
      const store = current();
      // afterRevision 0 would mean "from now"; make sure the replay starts from a real revision.
      await store.create('/seed', 'x');
      const base = await store.currentRevision();
      const writes = (async () => {
        for (let i = 0; i < 40; i++) await store.create(`/w/k${i}`, String(i));
      })();
      // Start the watch while the writer is half way through. Yield a whole event-loop turn while
      // waiting: writes may commit in a later macrotask (group commit, network I/O).
      while ((await store.currentRevision()) < base + 20) await new Promise((resolve) => setImmediate(resolve));
      const rec = recordWatch(store, '/w/', { afterRevision: base, prefix: true });
      await writes;
      const events = await rec.untilEvents(40);
      rec.watcher.stop();
      expect(events.map((e) => e.kv.modRevision)).toEqual(Array.from({ length: 40 }, (_, i) => base + 1 + i));
      expect(events.map((e) => e.kv.key)).toEqual(Array.from({ length: 40 }, (_, i) => `/w/k${i}`));
    });

    it('from a compacted revision fails with Compacted and delivers nothing', async () => {
      const store = current();
      const first = await store.create('/w/a', '1');
      await store.update('/w/a', '2', first.modRevision);
      const point = await store.currentRevision();
      await store.create('/w/b', '1');
      await store.compact(point);
      const rec = recordWatch(store, '/w/', { afterRevision: first.modRevision, prefix: true });
      const error = await rec.untilError();
      expect(error).toMatchObject({ code: 'Compacted', revision: first.modRevision, bound: point + 1 });
      expect(rec.events).toEqual([]);
      expect(rec.errors).toHaveLength(1);

      // Watching from the compaction point itself still works: every later revision is kept.
      const ok = recordWatch(store, '/w/', { afterRevision: point, prefix: true });
      const [event] = await ok.untilEvents(1);
      ok.watcher.stop();
      expect(event).toMatchObject({ type: 'put', created: true, kv: { key: '/w/b', modRevision: point + 1 } });
    });

    it('after compaction, replays from the compaction point with prevKv from before it', async () => {
      const store = current();
      const a1 = await store.create('/w/a', 'a1');
      const b1 = await store.create('/w/b', 'b1');
      const a2 = await store.update('/w/a', 'a2', a1.modRevision);
      const point = await store.currentRevision();
      const a3 = await store.update('/w/a', 'a3', a2.modRevision);
      const gone = await store.delete('/w/b');
      await store.compact(point);
      const rec = recordWatch(store, '/w/', { afterRevision: point, prefix: true });
      const events = await rec.untilEvents(2);
      rec.watcher.stop();
      expect(events).toEqual([
        { type: 'put', kv: a3, prevKv: a2, created: false },
        { type: 'delete', kv: gone, prevKv: b1, created: false },
      ]);
    });

    it('of one key sees only that key; of a prefix, only keys under it', async () => {
      const store = current();
      const exact = recordWatch(store, '/registry/configmaps/a/x', { afterRevision: 0, prefix: false });
      const prefix = recordWatch(store, '/registry/configmaps/a/', { afterRevision: 0, prefix: true });
      const all = recordWatch(store, '/registry/configmaps/', { afterRevision: 0, prefix: true });
      await store.create('/registry/configmaps/ab/x', 'no');
      await store.create('/registry/configmaps/a/xy', 'prefix only');
      await store.create('/registry/configmaps/a', 'no');
      await store.create('/registry/configmaps/a/x', 'both');
      await store.create('/registry/configmaps/b/x', 'no');

      const everything = await all.untilEvents(5);
      expect(everything.map((e) => e.kv.key)).toEqual([
        '/registry/configmaps/ab/x',
        '/registry/configmaps/a/xy',
        '/registry/configmaps/a',
        '/registry/configmaps/a/x',
        '/registry/configmaps/b/x',
      ]);
      expect((await prefix.untilEvents(2)).map((e) => e.kv.key)).toEqual(['/registry/configmaps/a/xy', '/registry/configmaps/a/x']);
      expect((await exact.untilEvents(1)).map((e) => e.kv.key)).toEqual(['/registry/configmaps/a/x']);
      // One more event each proves nothing else was queued before it.
      await store.create('/registry/configmaps/a/x/end', 'end');
      await store.delete('/registry/configmaps/a/x');
      expect((await prefix.untilEvents(4)).map((e) => e.kv.key).slice(2)).toEqual(['/registry/configmaps/a/x/end', '/registry/configmaps/a/x']);
      expect((await exact.untilEvents(2))[1]).toMatchObject({ type: 'delete', kv: { key: '/registry/configmaps/a/x' } });
      expect(exact.events).toHaveLength(2);
      for (const r of [exact, prefix, all]) r.watcher.stop();
    });

    it('delivers many writers\' events in revision order, with prevKv on every update and delete', async () => {
      const store = current();
      const start = await store.currentRevision();
      const rec = recordWatch(store, '/o/', { afterRevision: 0, prefix: true });
      const writer = async (w: number) => {
        for (let i = 0; i < 10; i++) {
          const key = `/o/${w}/${i % 3}`;
          const existing = await store.get(key);
          if (!existing) await store.create(key, `${w}-${i}`);
          else if (i % 2 === 0) await store.delete(key, existing.modRevision).catch(() => undefined);
          else await store.update(key, `${w}-${i}`, existing.modRevision).catch(() => undefined);
        }
      };
      await Promise.all([0, 1, 2, 3].map(writer));
      const total = (await store.currentRevision()) - start;
      const events = await rec.untilEvents(total);
      rec.watcher.stop();
      const revisions = events.map((e) => e.kv.modRevision);
      expect(revisions).toEqual([...revisions].sort((x, y) => x - y));
      expect(new Set(revisions).size).toBe(revisions.length);
      for (const e of events) {
        if (e.created) expect(e.prevKv).toBeUndefined();
        else {
          expect(e.prevKv?.key).toBe(e.kv.key);
          expect(e.prevKv!.modRevision).toBeLessThan(e.kv.modRevision);
        }
        if (e.type === 'delete') expect(e.kv.value).toBe(e.prevKv!.value);
      }
    });

    it('from a future revision waits for it', async () => {
      const store = current();
      const now = await store.currentRevision();
      const rec = recordWatch(store, '/f/', { afterRevision: now + 2, prefix: true });
      await store.create('/f/1', '1');
      await store.create('/f/2', '2');
      await store.create('/f/3', '3');
      const [event] = await rec.untilEvents(1);
      rec.watcher.stop();
      expect(event!.kv).toMatchObject({ key: '/f/3', modRevision: now + 3 });
    });

    it('stops delivering after stop(), idempotently', async () => {
      const store = current();
      const stopped = recordWatch(store, '/s/', { afterRevision: 0, prefix: true });
      const witness = recordWatch(store, '/s/', { afterRevision: 0, prefix: true });
      await store.create('/s/1', '1');
      await stopped.untilEvents(1);
      stopped.watcher.stop();
      stopped.watcher.stop();
      await store.create('/s/2', '2');
      await store.create('/s/3', '3');
      await witness.untilEvents(3);
      witness.watcher.stop();
      expect(stopped.events.map((e) => e.kv.key)).toEqual(['/s/1']);
      expect(stopped.errors).toEqual([]);
    });

    it('ends open watches with an error when the store closes', async () => {
      const store = await makeStore();
      const rec = recordWatch(store, '/', { afterRevision: 0, prefix: true });
      await store.close();
      expect((await rec.untilError()).code).toBe('Unavailable');
    });
  });
};
