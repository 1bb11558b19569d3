import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import type { Store } from '../../runtime/registry/store.js';
import { watchObjects, type WatchEvent, type WatchStream } from '../../runtime/registry/watch.js';
import { listObjects } from '../../runtime/registry/list.js';
import type { Storage } from '../../runtime/storage/interface.js';
import { backends, definitions } from '../support/registry-fixtures.js';

async function take(stream: WatchStream, n: number): Promise<WatchEvent[]> {
  const out: WatchEvent[] = [];
  while (out.length < n) {
    const next = await stream.next();
    if (next.done) break;
    out.push(next.value);
  }
  return out;
}

const summary = (events: WatchEvent[]) =>
  events.map((e) => `${e.type} ${(e.object as { metadata?: { name?: string } }).metadata?.name ?? ''}`);

/** The shared cases run against both implementations of the resource storage: the cacher and the store directly. */
const cases = backends.flatMap(([name, makeStorage]) => [
  [name, 'the watch cache', makeStorage, {}] as const,
  [name, 'no watch cache', makeStorage, false] as const,
]);

describe.each(cases)('watch on %s storage through %s', (_n, _c, makeStorage, watchCache) => {
  let storage: Storage;
  let configmaps: Store;
  let registry: ResourceRegistry;
  const streams: WatchStream[] = [];

  beforeEach(async () => {
    storage = makeStorage();
    registry = new ResourceRegistry(storage, definitions, { watchCache });
    configmaps = registry.storeFor('', 'v1', 'configmaps')!;
    await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'default' } });
  });
  afterEach(async () => {
    for (const s of streams.splice(0)) s.stop();
    registry.close();
    await storage.close();
  });
  const open = async (...args: Parameters<typeof watchObjects> extends [unknown, ...infer R] ? R : never) => {
    const s = await watchObjects(configmaps, ...args);
    streams.push(s);
    return s;
  };

  it('from a resourceVersion: ADDED, MODIFIED, DELETED after it', async () => {
    const a = await configmaps.create('default', { metadata: { name: 'a' } });
    const stream = await open('default', { resourceVersion: a.metadata!.resourceVersion });
    const b = await configmaps.create('default', { metadata: { name: 'b' } });
    const b2 = await configmaps.update('default', 'b', { ...b, data: { x: 'y' } });
    await configmaps.delete('default', 'b');
    const events = await take(stream, 3);
    expect(summary(events)).toEqual(['ADDED b', 'MODIFIED b', 'DELETED b']);
    expect(events[1].object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { x: 'y' } });
    // DELETED carries the last state with the deletion's revision.
    const deleted = events[2].object as { data?: unknown; metadata: { resourceVersion: string } };
    expect(deleted.data).toEqual({ x: 'y' });
    expect(Number(deleted.metadata.resourceVersion)).toBeGreaterThan(Number(b2.metadata!.resourceVersion));
    expect(deleted.metadata.resourceVersion).toBe(String(await storage.currentRevision()));
  });

  it('unset resourceVersion: synthetic ADDED for existing objects, then live events', async () => {
    await configmaps.create('default', { metadata: { name: 'one' } });
    await configmaps.create('default', { metadata: { name: 'two' } });
    const stream = await open('default', {});
    await configmaps.create('default', { metadata: { name: 'three' } });
    expect(summary(await take(stream, 3))).toEqual(['ADDED one', 'ADDED two', 'ADDED three']);
  });

  it('selector transitions: starts matching -> ADDED, stops matching -> DELETED', async () => {
    const stream = await open('default', { resourceVersion: '0', labelSelector: 'app=web' });
    const x = await configmaps.create('default', { metadata: { name: 'x' } });
    const x2 = await configmaps.update('default', 'x', { ...x, metadata: { ...x.metadata, labels: { app: 'web' } } });
    const x3 = await configmaps.update('default', 'x', { ...x2, data: { a: 'b' } });
    await configmaps.update('default', 'x', { ...x3, metadata: { ...x3.metadata, labels: { app: 'db' } } });
    const events = await take(stream, 3);
    expect(summary(events)).toEqual(['ADDED x', 'MODIFIED x', 'DELETED x']);
    // The DELETED object is the last matching state.
    expect((events[2].object as { metadata: { labels: Record<string, string> } }).metadata.labels).toEqual({ app: 'web' });
  });

  it('field selector on the name (what a watch of one object becomes)', async () => {
    const stream = await open('default', { fieldSelector: 'metadata.name=pick' });
    await configmaps.create('default', { metadata: { name: 'skip' } });
    await configmaps.create('default', { metadata: { name: 'pick' } });
    expect(summary(await take(stream, 1))).toEqual(['ADDED pick']);
  });

  it('field selector on the name across namespaces: only that name, whatever ends like it or is a namespace of that name', async () => {
    await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'pick' } });
    const stream = await open(undefined, { fieldSelector: 'metadata.name=pick' });
    await configmaps.create('pick', { metadata: { name: 'other' } });
    await configmaps.create('default', { metadata: { name: 'xpick' } });
    const picked = await configmaps.create('pick', { metadata: { name: 'pick' } });
    await configmaps.update('pick', 'pick', { ...picked, data: { x: 'y' } });
    await configmaps.delete('default', 'xpick');
    await configmaps.create('default', { metadata: { name: 'pick' } });
    await configmaps.delete('pick', 'pick');
    const events = await take(stream, 4);
    expect(events.map((e) => `${summary([e])[0]} ${(e.object as { metadata: { namespace: string } }).metadata.namespace}`)).toEqual([
      'ADDED pick pick',
      'MODIFIED pick pick',
      'ADDED pick default',
      'DELETED pick pick',
    ]);
    const list = await listObjects(configmaps, undefined, { fieldSelector: 'metadata.name=pick' });
    expect(list.items.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`)).toEqual(['default/pick']);
    const none = await listObjects(configmaps, undefined, { fieldSelector: 'metadata.name=pick,metadata.namespace=pick' });
    expect(none.items).toEqual([]);
  });

  it('timeoutSeconds ends the stream', async () => {
    const stream = await open('default', { timeoutSeconds: 0.05 });
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });

  it('abort signal stops the watch', async () => {
    const controller = new AbortController();
    const stream = await open('default', { signal: controller.signal });
    const pending = stream.next();
    controller.abort();
    expect(await pending).toEqual({ value: undefined, done: true });
  });
});

describe.each(backends)('watch on %s storage, one implementation', (_n, makeStorage) => {
  let storage: Storage;
  const streams: WatchStream[] = [];

  beforeEach(async () => {
    storage = makeStorage();
    const registry = new ResourceRegistry(storage, definitions, { watchCache: false });
    await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'default' } });
    registry.close();
  });
  afterEach(async () => {
    for (const s of streams.splice(0)) s.stop();
    await storage.close();
  });

  it('a version older than the watch cache history gives an ERROR event with 410 Expired', async () => {
    const small = new ResourceRegistry(storage, definitions, { watchCache: { historyCapacity: 2 } });
    try {
      const cms = small.storeFor('', 'v1', 'configmaps')!;
      const first = await cms.create('default', { metadata: { name: 'c1' } });
      await cms.create('default', { metadata: { name: 'c2' } });
      await cms.create('default', { metadata: { name: 'c3' } });
      await cms.create('default', { metadata: { name: 'c4' } });
      const stream = await watchObjects(cms, 'default', { resourceVersion: first.metadata!.resourceVersion });
      streams.push(stream);
      const [event] = await take(stream, 1);
      expect(event.type).toBe('ERROR');
      expect(event.object).toMatchObject({ kind: 'Status', status: 'Failure', code: 410, reason: 'Expired' });
      expect((event.object as { message: string }).message).toMatch(new RegExp(`^too old resource version: ${first.metadata!.resourceVersion} \\(\\d+\\)$`));
      expect(await stream.next()).toEqual({ value: undefined, done: true });
    } finally {
      small.close();
    }
  });

  it('without watch caches, a compacted resourceVersion gives an ERROR event with 410 Expired', async () => {
    const uncached = new ResourceRegistry(storage, definitions, { watchCache: false }).storeFor('', 'v1', 'configmaps')!;
    await uncached.create('default', { metadata: { name: 'c1' } });
    await uncached.create('default', { metadata: { name: 'c2' } });
    const rev = await storage.currentRevision();
    await uncached.create('default', { metadata: { name: 'c3' } });
    await storage.compact(rev);
    const stream = await watchObjects(uncached, 'default', { resourceVersion: '1' });
    streams.push(stream);
    const [event] = await take(stream, 1);
    expect(event.type).toBe('ERROR');
    expect(event.object).toMatchObject({ kind: 'Status', status: 'Failure', code: 410, reason: 'Expired' });
    expect((event.object as { message: string }).message).toMatch(/^too old resource version: 1 \(\d+\)$/);
    expect(await stream.next()).toEqual({ value: undefined, done: true });
  });
});
