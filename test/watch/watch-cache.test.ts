// Unit tests of the watch cache (one resource's objects and event history) and of the cacher that
// feeds every cache from one storage watch, over the real in-memory store.
import { afterEach, describe, expect, it } from 'vitest';
import { Cacher } from '../../runtime/registry/cacher/cacher.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import { watchObjects } from '../../runtime/registry/watch.js';
import { definitions } from '../support/registry-fixtures.js';
import { WatchCache } from '../../runtime/registry/cacher/watch-cache.js';
import type { KeyValue, StorageWatchEvent } from '../../runtime/storage/interface.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';

const kv = (key: string, rev: number, value = '{}'): KeyValue => ({ key, value, createRevision: rev, modRevision: rev });
const put = (key: string, rev: number): StorageWatchEvent => ({ type: 'put', kv: kv(key, rev), created: true });
const del = (key: string, rev: number): StorageWatchEvent => ({ type: 'delete', kv: kv(key, rev), created: false });

describe('WatchCache', () => {
  const P = '/registry/configmaps/';

  it('keeps objects in key order and ranges over a namespace from a start key', () => {
    const cache = new WatchCache(P, { windowMs: 60_000, capacity: 100 });
    cache.reset(10);
    for (const k of ['b/x', 'a/z', 'a/y', 'c/w']) cache.load(kv(P + k, 5));
    cache.apply(put(P + 'a/a', 11));
    cache.apply(del(P + 'c/w', 12));
    expect([...cache.range(P)].map((o) => o.key.slice(P.length))).toEqual(['a/a', 'a/y', 'a/z', 'b/x']);
    expect([...cache.range(P + 'a/', P + 'a/y')].map((o) => o.key.slice(P.length))).toEqual(['a/y', 'a/z']);
    expect(cache.countAfter(P, P + 'a/y')).toBe(2);
    expect(cache.get(P + 'c/w')).toBeUndefined();
  });

  it('keeps thousands of keys in order through creates, updates and deletes in any order', () => {
    const cache = new WatchCache(P, { windowMs: 60_000, capacity: 100 });
    cache.reset(0);
    const live = new Set<string>();
    // A fixed pseudo-random order, so the keys land all over the index (and its runs split and empty).
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    let rev = 0;
    for (let i = 0; i < 6000; i++) {
      const key = `${P}ns${next() % 3}/k${next() % 4000}`;
      if (live.has(key) && next() % 3 === 0) {
        cache.apply(del(key, ++rev));
        live.delete(key);
      } else {
        cache.apply(put(key, ++rev));
        live.add(key);
      }
    }
    const sorted = [...live].sort();
    expect([...cache.range(P)].map((o) => o.key)).toEqual(sorted);
    expect(cache.size).toBe(sorted.length);
    const ns1 = sorted.filter((k) => k.startsWith(`${P}ns1/`));
    const start = ns1[Math.floor(ns1.length / 2)]!;
    expect([...cache.range(`${P}ns1/`, start)].map((o) => o.key)).toEqual(ns1.filter((k) => k >= start));
    expect(cache.countAfter(`${P}ns1/`, start)).toBe(ns1.filter((k) => k > start).length);
    // A start key that is absent (a continue token's key + "\0") starts at the next key.
    expect([...cache.range(`${P}ns1/`, `${start}\u0000`)].map((o) => o.key)).toEqual(ns1.filter((k) => k > start));
    expect([...cache.range(`${P}ns9/`)]).toEqual([]);
    for (const key of sorted) cache.apply(del(key, ++rev));
    expect([...cache.range(P)]).toEqual([]);
    expect(cache.countAfter(P, P)).toBe(0);
  });

  it('gives the events after a revision; before the horizon they are gone', () => {
    const cache = new WatchCache(P, { windowMs: 60_000, capacity: 100 });
    cache.reset(10);
    cache.apply(put(P + 'a', 11));
    cache.apply(put(P + 'b', 13));
    expect(cache.eventsAfter(10)!.map((e) => e.kv.modRevision)).toEqual([11, 13]);
    expect(cache.eventsAfter(12)!.map((e) => e.kv.modRevision)).toEqual([13]);
    expect(cache.eventsAfter(20)).toEqual([]);
    // The list the cache started from was at 10: nothing before it can be replayed.
    expect(cache.eventsAfter(9)).toBeUndefined();
  });

  it('forgets by count: the horizon moves to the last forgotten event', () => {
    const cache = new WatchCache(P, { windowMs: 60_000, capacity: 2 });
    cache.reset(0);
    for (let rev = 1; rev <= 5; rev++) cache.apply(put(P + `k${rev}`, rev));
    expect(cache.horizon).toBe(3);
    expect(cache.eventsAfter(2)).toBeUndefined();
    expect(cache.eventsAfter(3)!.map((e) => e.kv.modRevision)).toEqual([4, 5]);
  });

  it('forgets by age: events older than the window go when the history is next read', () => {
    const cache = new WatchCache(P, { windowMs: 1000, capacity: 100 });
    cache.reset(0);
    cache.apply(put(P + 'old', 1), 0);
    cache.apply(put(P + 'new', 2), 900);
    expect(cache.eventsAfter(0, 1500)).toBeUndefined();
    expect(cache.horizon).toBe(1);
    expect(cache.eventsAfter(1, 1500)!.map((e) => e.kv.key)).toEqual([P + 'new']);
  });

  it('fills in prevKv and created from its own state', () => {
    const cache = new WatchCache(P, { windowMs: 60_000, capacity: 100 });
    cache.reset(0);
    cache.apply(put(P + 'a', 1));
    cache.apply({ type: 'put', kv: kv(P + 'a', 2, '{"v":2}'), created: false });
    const [first, second] = cache.eventsAfter(0)!;
    expect(first.created).toBe(true);
    expect(second.created).toBe(false);
    expect(second.prevKv?.modRevision).toBe(1);
  });
});

describe('Cacher', () => {
  let storage: MemoryStorage;
  let cacher: Cacher;
  afterEach(async () => {
    cacher?.close();
    await storage?.close();
  });

  it('loads what the store holds, then follows every write; progress is the store revision', async () => {
    storage = new MemoryStorage();
    await storage.create('/registry/configmaps/ns/a', '{}');
    await storage.create('/registry/other/x', '{}');
    cacher = new Cacher(storage, ['/registry/configmaps/', '/registry/example.k8s.io/widgets/'], { freshnessWaitMs: 1000 });
    expect(await cacher.waitUntilReady()).toBe(true);
    expect(cacher.progress).toBe(2);
    const cms = cacher.cacheFor('/registry/configmaps/')!;
    expect(cms.size).toBe(1);
    await storage.create('/registry/example.k8s.io/widgets/w', '{}');
    // A write under no cached prefix still moves progress: the store's revision is reached.
    await storage.create('/registry/other/y', '{}');
    expect(await cacher.waitUntilFresh(await storage.currentRevision())).toBe(true);
    expect(cacher.progress).toBe(4);
    expect(cacher.cacheFor('/registry/example.k8s.io/widgets/')!.size).toBe(1);
    expect(cms.size).toBe(1);
  });

  it('routes each change to the cache of the longest prefix it lies under, and to none outside them', async () => {
    storage = new MemoryStorage();
    // kube keeps Services under services/specs/ and Endpoints under services/endpoints/: nested
    // prefixes, besides a cluster-scoped kind (no namespace segment) and a group's kind.
    const prefixes = ['/registry/services/', '/registry/services/specs/', '/registry/namespaces/', '/registry/example.k8s.io/widgets/'];
    cacher = new Cacher(storage, prefixes, { freshnessWaitMs: 1000 });
    expect(await cacher.waitUntilReady()).toBe(true);
    const keys = [
      // Outside the root the cacher watches: first, so that the writes after it bring progress past it.
      '/other/services/specs/ns/a',
      '/registry/services/specs/ns/a',
      '/registry/services/endpoints/ns/a',
      '/registry/services/x',
      '/registry/namespaces/ns',
      '/registry/example.k8s.io/widgets/ns/w',
      // Under no cached prefix, though each starts like one of them.
      '/registry/servicesx/ns/a',
      '/registry/example.k8s.io/widgetsx/ns/w',
      '/registry/namespaces',
    ];
    for (const key of keys) await storage.create(key, '{}');
    expect(await cacher.waitUntilFresh(await storage.currentRevision())).toBe(true);
    const held = (prefix: string) => [...cacher.cacheFor(prefix)!.range(prefix)].map((o) => o.key);
    expect(held('/registry/services/specs/')).toEqual(['/registry/services/specs/ns/a']);
    expect(held('/registry/services/')).toEqual(['/registry/services/endpoints/ns/a', '/registry/services/x']);
    expect(held('/registry/namespaces/')).toEqual(['/registry/namespaces/ns']);
    expect(held('/registry/example.k8s.io/widgets/')).toEqual(['/registry/example.k8s.io/widgets/ns/w']);
  });

  it('routes a key of a great many slashes without looking at heads longer than any prefix', async () => {
    storage = new MemoryStorage();
    cacher = new Cacher(storage, ['/registry/services/', '/registry/services/specs/'], { freshnessWaitMs: 1000 });
    expect(await cacher.waitUntilReady()).toBe(true);
    // Walked from the key's end, each head up to a slash would be a map lookup: 200,000 per
    // change (about 0.2 s each here). The prefixes bound the walk to their own length; the
    // routing must come out the same.
    const deep = `/registry/services/specs/${'/'.repeat(200_000)}x`;
    const outside = `/registry/other/${'/'.repeat(200_000)}x`;
    await storage.create(deep, '{}');
    await storage.create(outside, '{}');
    expect(await cacher.waitUntilFresh(await storage.currentRevision())).toBe(true);
    expect([...cacher.cacheFor('/registry/services/specs/')!.range('/registry/services/specs/')].map((o) => o.key)).toEqual([deep]);
    expect([...cacher.cacheFor('/registry/services/')!.range('/registry/services/')].map((o) => o.key)).toEqual([]);
  });

  it('refuses a prefix that does not end with a slash, which would cover other resources\' keys', async () => {
    storage = new MemoryStorage();
    expect(() => new Cacher(storage, ['/registry/services'])).toThrow(/does not end with '\/'/);
    cacher = new Cacher(storage, ['/registry/configmaps/'], { freshnessWaitMs: 1000 });
    await expect(cacher.addPrefix('/registry/example.k8s.io/widgets')).rejects.toThrow(/does not end with '\/'/);
  });

  it('waitUntilFresh: true once a write reaches the revision, false when none does in time', async () => {
    storage = new MemoryStorage();
    cacher = new Cacher(storage, ['/registry/configmaps/'], { freshnessWaitMs: 50 });
    await cacher.waitUntilReady();
    const waiting = cacher.waitUntilFresh(1, 10_000);
    await storage.create('/registry/configmaps/ns/a', '{}');
    expect(await waiting).toBe(true);
    expect(await cacher.waitUntilFresh(100)).toBe(false);
  });

  it('writes made while the initial list runs are not lost', async () => {
    storage = new MemoryStorage();
    cacher = new Cacher(storage, ['/registry/configmaps/']);
    const writes = Array.from({ length: 20 }, (_, i) => storage.create(`/registry/configmaps/ns/k${i}`, '{}'));
    await Promise.all(writes);
    expect(await cacher.waitUntilFresh(20)).toBe(true);
    expect(cacher.cacheFor('/registry/configmaps/')!.size).toBe(20);
  });

  it('a get without resourceVersion sees every write at once, whether or not the cache has applied it yet', async () => {
    storage = new MemoryStorage();
    const registry = new ResourceRegistry(storage, definitions, { watchCache: { freshnessWaitMs: 10_000 } });
    cacher = registry.cacher!;
    expect(await cacher.waitUntilReady()).toBe(true);
    await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'default' } });
    const configmaps = registry.storeFor('', 'v1', 'configmaps')!;
    const key = configmaps.key('default', 'a');
    const created = await configmaps.create('default', { metadata: { name: 'a' }, data: { n: '0' } });
    expect((await configmaps.get('default', 'a')).metadata!.resourceVersion).toBe(created.metadata!.resourceVersion);
    let revision = Number(created.metadata!.resourceVersion);
    for (let i = 1; i <= 5; i++) {
      // Written under the registry, straight to the store, and read in the same turn: the cache
      // has not applied the write yet (events reach it a microtask later) and must not answer.
      const value = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' }, data: { n: String(i) } });
      const writing = storage.update(key, value, revision);
      const reading = configmaps.get('default', 'a');
      revision = (await writing).modRevision;
      const read = await reading;
      expect(read.metadata!.resourceVersion).toBe(String(revision));
      expect(read.data).toEqual({ n: String(i) });
    }
    const deleting = storage.delete(key);
    const gone = configmaps.get('default', 'a');
    await deleting;
    await expect(gone).rejects.toMatchObject({ code: 404, reason: 'NotFound' });
    expect(await cacher.waitUntilFresh(await storage.currentRevision())).toBe(true);
    await expect(configmaps.get('default', 'a')).rejects.toMatchObject({ code: 404, reason: 'NotFound' });
    const again = await configmaps.create('default', { metadata: { name: 'a' } });
    expect(await cacher.waitUntilFresh(Number(again.metadata!.resourceVersion))).toBe(true);
    expect((await configmaps.get('default', 'a')).metadata!.uid).toBe(again.metadata!.uid);
  });

  it('a broken storage watch leaves the cacher unready and ends its watchers; close() ends waiting reads', async () => {
    storage = new MemoryStorage();
    const registry = new ResourceRegistry(storage, definitions, { watchCache: { freshnessWaitMs: 10_000 } });
    cacher = registry.cacher!;
    const stream = await watchObjects(registry.storeFor('', 'v1', 'configmaps')!, undefined, { resourceVersion: '0' });
    const pending = cacher.waitUntilFresh(50);
    await storage.close();
    expect(await stream.next()).toEqual({ value: undefined, done: true });
    await expect.poll(() => cacher.ready).toBe(false);
    cacher.close();
    expect(await pending).toBe(false);
  });
});
