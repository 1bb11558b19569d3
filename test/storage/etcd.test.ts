// The etcd backend against a real etcd: the shared conformance suite (each store under a key
// prefix of its own, so tests never see each other's keys), then what only etcd has: the key
// layout under --etcd-prefix, several servers on one etcd, compaction done by someone else,
// connection failures and an etcd restart under a live watch.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Etcd3 } from 'etcd3';
import { EtcdStorage } from '../../runtime/storage/etcd.js';
import type { EtcdWatch } from '../../runtime/storage/etcd-watch.js';
import type { EtcdStorageOptions } from '../../runtime/storage/etcd.js';
import { openStorage } from '../../runtime/storage/index.js';
import type { Storage } from '../../runtime/storage/interface.js';
import { etcdBinary, freePort, startEtcd } from '../support/etcd.js';
import type { EtcdProcess } from '../support/etcd.js';
import { rejectsWith, runStorageConformance } from './conformance.js';
import { recordWatch } from './watch-recorder.js';

const binary = etcdBinary();
let etcd: EtcdProcess;
let stores = 0;

/** A store under a fresh prefix; the conformance suite's keys are used as they are. */
const isolatedStore = (options: Partial<EtcdStorageOptions> = {}): EtcdStorage =>
  new EtcdStorage({ endpoints: etcd.endpoints, prefix: `/test-${++stores}`, keyRoot: '', historyWindowMs: 0, ...options });

describe.runIf(binary)('etcd storage', () => {
  beforeAll(async () => {
    etcd = await startEtcd(binary!);
  });
  afterAll(async () => {
    await etcd?.stop();
  });

  runStorageConformance('etcd', async () => isolatedStore());

  describe('key layout', () => {
    let raw: Etcd3;
    beforeAll(() => {
      raw = new Etcd3({ hosts: etcd.endpoints });
    });
    afterAll(() => raw.close());

    it('keeps registry keys as they are under the default prefix /registry', async () => {
      const store = new EtcdStorage({ endpoints: etcd.endpoints, historyWindowMs: 0 });
      const key = `/registry/configmaps/layout-${++stores}/app`;
      await store.create(key, '{"kind":"ConfigMap"}');
      expect(await raw.get(key).string()).toBe('{"kind":"ConfigMap"}');
      await store.delete(key);
      await store.close();
    });

    it('puts /registry/<resource>/... at <etcd-prefix>/<resource>/..., as kube-apiserver lays it out', async () => {
      const prefix = `/tenant-${++stores}`;
      // A trailing slash is joined away, as Go's path.Join does in kube-apiserver.
      const store = openStorage({ kind: 'etcd', etcdServers: etcd.endpoints, etcdPrefix: `${prefix}/`, historyWindowMs: 0 });
      const created = await store.create('/registry/configmaps/ns/app', 'v1');
      expect(await raw.get(`${prefix}/configmaps/ns/app`).string()).toBe('v1');
      expect(await raw.get('/registry/configmaps/ns/app').string()).toBeNull();

      // Keys written by anyone else under the prefix read back as registry keys.
      await raw.put(`${prefix}/configmaps/ns/other`).value('v2');
      const list = await store.list('/registry/configmaps/ns/');
      expect(list.items.map((kv) => [kv.key, kv.value])).toEqual([
        ['/registry/configmaps/ns/app', 'v1'],
        ['/registry/configmaps/ns/other', 'v2'],
      ]);
      const rec = recordWatch(store, '/registry/configmaps/', { afterRevision: created.modRevision, prefix: true });
      const [event] = await rec.untilEvents(1);
      rec.watcher.stop();
      expect(event).toMatchObject({ type: 'put', created: true, kv: { key: '/registry/configmaps/ns/other', value: 'v2' } });
      await expect(store.get('/elsewhere/x')).rejects.toThrow(/outside the storage root/);
      await store.close();
    });
  });

  describe('several servers on one etcd', () => {
    const pair = (): [Storage, Storage] => {
      const prefix = `/shared-${++stores}`;
      return [isolatedStore({ prefix }), isolatedStore({ prefix })];
    };

    it('share revisions, values, conflicts and watches', async () => {
      const [a, b] = pair();
      const watch = recordWatch(b, '/cm/', { afterRevision: 0, prefix: true });
      // b's own requests wait for the watch's "now" (its barrier); a's do not, so one read on b
      // fixes that point before a writes.
      expect(await b.get('/cm/x')).toBeUndefined();
      const created = await a.create('/cm/x', 'from a');
      expect(await b.get('/cm/x')).toEqual(created);
      const updated = await b.update('/cm/x', 'from b', created.modRevision);
      const conflict = await rejectsWith(a.update('/cm/x', 'stale', created.modRevision), 'Conflict');
      expect(conflict.current).toEqual(updated);
      await rejectsWith(b.create('/cm/x', 'again'), 'KeyExists');
      const events = await watch.untilEvents(2);
      watch.watcher.stop();
      expect(events.map((e) => e.kv)).toEqual([created, updated]);
      await Promise.all([a.close(), b.close()]);
    });

    it('learn of a compaction another server did: reads, watches and oldestRevision', async () => {
      const [a, b] = pair();
      const first = await a.create('/c/k', '1');
      const second = await a.update('/c/k', '2', first.modRevision);
      const point = (await a.update('/c/k', '3', second.modRevision)).modRevision;
      const after = await a.create('/c/later', 'x');
      await a.compact(point);

      // b never compacted; etcd tells it, and it finds the exact point.
      const watch = recordWatch(b, '/c/', { afterRevision: second.modRevision, prefix: true });
      expect(await watch.untilError()).toMatchObject({ code: 'Compacted', revision: second.modRevision, bound: point + 1 });
      expect(watch.events).toEqual([]);
      const read = await rejectsWith(b.list('/c/', { revision: first.modRevision }), 'Compacted');
      expect(read).toMatchObject({ revision: first.modRevision, bound: point + 1 });
      expect(await b.oldestRevision()).toBe(point + 1);
      // The compaction point itself is gone for b too, though etcd would still serve it.
      await rejectsWith(b.get('/c/k', point), 'Compacted');
      expect(await b.get('/c/later', after.modRevision)).toEqual(after);
      // Compacting behind someone else's compaction is done already, not an error, even for a
      // server that has not heard of it (etcd refuses, and it looks the point up).
      await b.compact(first.modRevision);
      const c = isolatedStore();
      await c.compact(second.modRevision);
      expect(await c.oldestRevision()).toBe(point + 1);
      await c.close();

      const fromPoint = recordWatch(b, '/c/', { afterRevision: point, prefix: true });
      const [event] = await fromPoint.untilEvents(1);
      fromPoint.watcher.stop();
      expect(event!.kv).toEqual(after);
      await Promise.all([a.close(), b.close()]);
    });

    it('finds a compaction made before the store started', async () => {
      const [a] = pair();
      const v1 = await a.create('/p/k', '1');
      await a.update('/p/k', '2', v1.modRevision);
      const point = await a.currentRevision();
      await a.compact(point);
      await a.close();
      const late = isolatedStore();
      expect(await late.oldestRevision()).toBe(point + 1);
      await late.close();
    });
  });

  it('compacts history older than its window on its own', async () => {
    const store = isolatedStore({ historyWindowMs: 50 });
    const a = await store.create('/h/a', '1');
    const b = await store.update('/h/a', '2', a.modRevision);
    while ((await store.oldestRevision()) <= b.modRevision) await new Promise((resolve) => setTimeout(resolve, 20));
    await rejectsWith(store.get('/h/a', a.modRevision), 'Compacted');
    expect(await store.get('/h/a')).toEqual(b);
    await store.close();
  });

  it('lists more than gRPC\'s default 4 MiB message limit in one page', async () => {
    const store = isolatedStore();
    const value = 'x'.repeat(512 * 1024);
    for (let i = 0; i < 12; i++) await store.create(`/big/${String(i).padStart(2, '0')}`, value);
    const list = await store.list('/big/');
    expect(list.items).toHaveLength(12);
    expect(list.items.every((kv) => kv.value === value)).toBe(true);
    await store.close();
  });

  it('reports Unavailable when no etcd answers', async () => {
    const store = new EtcdStorage({ endpoints: [`http://127.0.0.1:${await freePort()}`], historyWindowMs: 0 });
    await rejectsWith(store.get('/registry/configmaps/ns/a'), 'Unavailable');
    await rejectsWith(store.create('/registry/configmaps/ns/a', 'v'), 'Unavailable');
    await rejectsWith(store.currentRevision(), 'Unavailable');
    await store.close();
  });

  it('keeps watches going across an etcd restart, without gaps, even an idle one behind a compaction', async () => {
    const own = await startEtcd(binary!);
    const store = new EtcdStorage({ endpoints: own.endpoints, prefix: '/restart', keyRoot: '', historyWindowMs: 0 });
    const writeWhenBack = async (key: string): Promise<void> => {
      // etcd may take a moment to answer again; a create that was never sent may be tried again.
      for (;;) {
        try {
          await store.create(key, 'v');
          return;
        } catch (error) {
          expect(error).toMatchObject({ code: 'Unavailable' });
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    };
    try {
      const before = await store.create('/r/0', '0');
      const busy = recordWatch(store, '/r/', { afterRevision: before.modRevision, prefix: true });
      const idle = recordWatch(store, '/idle/', { afterRevision: before.modRevision, prefix: true });
      await store.create('/r/1', '1');
      await busy.untilEvents(1);
      // Nothing under /idle/ changes, yet etcd's progress notifications carry the idle watch's
      // resume point past the compaction below; without them it would resume from `before`,
      // which is compacted, and fail.
      const point = await store.currentRevision();
      while ((idle.watcher as EtcdWatch).deliveredRevision < point) await new Promise((resolve) => setTimeout(resolve, 50));
      await store.compact(point);

      await own.stop({ keepData: true });
      // The read meets the connection etcd dropped and is retried; the write then is never sent.
      await rejectsWith(store.get('/r/0'), 'Unavailable');
      await rejectsWith(store.create('/r/down', 'x'), 'Unavailable');
      await own.restart();
      await writeWhenBack('/r/2');
      await writeWhenBack('/r/3');
      await writeWhenBack('/idle/x');

      expect((await busy.untilEvents(3)).map((e) => e.kv.key)).toEqual(['/r/1', '/r/2', '/r/3']);
      expect((await idle.untilEvents(1)).map((e) => e.kv.key)).toEqual(['/idle/x']);
      busy.watcher.stop();
      idle.watcher.stop();
      expect([...busy.errors, ...idle.errors]).toEqual([]);
    } finally {
      await store.close();
      await own.stop();
    }
    // A real etcd stopped and started again, then the client's reconnect back-off: on a loaded CI
    // machine (the whole suite in parallel) that alone has taken most of the default 30 s.
  }, 90_000);

  it('refuses a write while etcd is down, never applies it later, and reads again as soon as etcd is back', async () => {
    const own = await startEtcd(binary!);
    const logged: string[] = [];
    const store = new EtcdStorage({ endpoints: own.endpoints, prefix: '/down', keyRoot: '', historyWindowMs: 0, onFailure: (d) => logged.push(d) });
    try {
      await store.create('/d/warm', 'v');
      await own.stop({ keepData: true });
      await rejectsWith(store.get('/d/warm'), 'Unavailable');
      const refused = await rejectsWith(store.create('/d/k', 'mine'), 'Unavailable');
      // What the client may be shown names no address, port or client class; the log has them.
      expect(refused.message).toBe('etcd is unavailable');
      expect(logged.join('\n')).toMatch(/ECONNREFUSED 127\.0\.0\.1|circuit breaker is open/);

      await own.restart();
      // No retry is left behind: the refused create stays undone once etcd is back.
      expect(await store.get('/d/warm')).toMatchObject({ value: 'v' });
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(await store.get('/d/k')).toBeUndefined();
      expect(await store.create('/d/k', 'again')).toMatchObject({ value: 'again' });
    } finally {
      await store.close();
      await own.stop();
    }
  });

  it('answers Timeout, never KeyExists, for a create etcd may have applied, and sends it only once', async () => {
    const own = await startEtcd(binary!);
    const raw = new Etcd3({ hosts: own.endpoints });
    const store = new EtcdStorage({ endpoints: own.endpoints, prefix: '/paused', keyRoot: '', historyWindowMs: 0, requestTimeoutMs: 1000 });
    try {
      await store.create('/p/warm', 'v');
      // etcd freezes with the connection open: the create is sent, and no answer comes in time.
      own.pause();
      const outcome = store.create('/p/k', 'mine').then(
        () => undefined,
        (error: unknown) => error,
      );
      // etcd wakes up after the first deadline, while a client that retries would try again. The
      // deadline runs from when the create goes out, which a loaded machine can delay by a second
      // or more (CI once woke etcd at 1.5 s before the create was sent, and it succeeded), so etcd
      // wakes when the create has failed, or after 5 s at most.
      await Promise.race([outcome, new Promise((resolve) => setTimeout(resolve, 5000))]);
      own.resume();
      expect(await outcome).toMatchObject({ name: 'StorageError', code: 'Timeout' });

      // Whatever etcd made of the create it read on waking, it got it once: the key is absent,
      // or holds this value, written once.
      expect(await store.get('/p/warm')).toMatchObject({ value: 'v' });
      const written = await raw.get('/paused/p/k').exec();
      for (const kv of written.kvs) expect([kv.value.toString(), kv.version]).toEqual(['mine', '1']);
    } finally {
      raw.close();
      await store.close();
      await own.stop();
    }
  });

  it("reports etcd's refusal of a write in etcd's own words (Internal)", async () => {
    const store = isolatedStore();
    // Past etcd's default --max-request-bytes (1.5 MiB), within its gRPC message limit (2 MiB).
    const refused = await rejectsWith(store.create('/huge', 'x'.repeat(1700 * 1024)), 'Internal');
    expect(refused.message).toBe('etcdserver: request is too large');
    expect(await store.get('/huge')).toBeUndefined();
    await store.close();
  });

  it('works through any of several endpoints', async () => {
    const dead = `http://127.0.0.1:${await freePort()}`;
    const store = new EtcdStorage({ endpoints: [dead, ...etcd.endpoints], prefix: `/multi-${++stores}`, keyRoot: '', historyWindowMs: 0 });
    const rec = recordWatch(store, '/m/', { afterRevision: 0, prefix: true });
    for (let i = 0; i < 6; i++) await store.create(`/m/${i}`, String(i));
    expect(await store.count('/m/')).toBe(6);
    expect((await rec.untilEvents(6)).map((e) => e.kv.key)).toEqual(['/m/0', '/m/1', '/m/2', '/m/3', '/m/4', '/m/5']);
    rec.watcher.stop();
    await store.close();
  });
});

if (!binary) {
  describe.skip('etcd storage (etcd not on PATH)', () => {
    it('needs the etcd binary; see the warning above', () => {});
  });
}

describe('openStorage for etcd', () => {
  it('needs at least one server', () => {
    expect(() => openStorage({ kind: 'etcd' })).toThrow(/etcdServers/);
    expect(() => openStorage({ kind: 'etcd', etcdServers: [' ', ''] })).toThrow(/etcdServers/);
  });
});
