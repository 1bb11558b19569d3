// A transient reader (the garbage collector's informers) is served from the watch cache like any
// other, but what it alone made the cache decode is not kept: following every kind must not hold
// every object decoded in memory. Objects others decoded are shared with it as before, and a
// change this process wrote is the object it wrote, without a parse of its bytes.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import { listObjects } from '../../runtime/registry/list.js';
import { watchObjects } from '../../runtime/registry/watch.js';
import type { Store } from '../../runtime/registry/store.js';
import type { KubeObject } from '../../runtime/machinery/object.js';
import type { Storage } from '../../runtime/storage/interface.js';
import { backends, definitions } from '../support/registry-fixtures.js';

const [, makeStorage] = backends[0]!;
let storage: Storage;
let registry: ResourceRegistry;
let configmaps: Store;

beforeEach(async () => {
  storage = makeStorage();
  registry = new ResourceRegistry(storage, definitions);
  configmaps = registry.storeFor('', 'v1', 'configmaps')!;
  await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'default' } });
  await configmaps.create('default', { metadata: { name: 'a' }, data: { k: 'v' } });
});
afterEach(async () => {
  registry.close();
  await storage.close();
});

it('a transient list decodes for itself; a normal list keeps and shares its decode', async () => {
  const transient = (await listObjects(configmaps, 'default', { resourceVersion: '0', transient: true })).items[0];
  const first = (await listObjects(configmaps, 'default', { resourceVersion: '0' })).items[0];
  const second = (await listObjects(configmaps, 'default', { resourceVersion: '0' })).items[0];
  expect(transient).toEqual(first);
  expect(transient).not.toBe(first);
  expect(second).toBe(first);
  const afterwards = (await listObjects(configmaps, 'default', { resourceVersion: '0', transient: true })).items[0];
  expect(afterwards).toBe(first);
});

it("a transient reader's own decode is its own: changing it changes nothing another reader is sent", async () => {
  const transient = (await listObjects(configmaps, 'default', { resourceVersion: '0', transient: true })).items[0]!;
  (transient.data as Record<string, string>).k = 'changed by the reader';
  transient.metadata!.labels = { added: 'too' };
  const normal = (await listObjects(configmaps, 'default', { resourceVersion: '0' })).items[0]!;
  expect(normal.data).toEqual({ k: 'v' });
  expect(normal.metadata!.labels).toBeUndefined();
  expect((await configmaps.get('default', 'a')).data).toEqual({ k: 'v' });
});

it('a transient watch sees every change, with the same content as a normal one', async () => {
  const list = await listObjects(configmaps, 'default', { resourceVersion: '0' });
  const watch = await watchObjects(configmaps, 'default', { resourceVersion: list.metadata.resourceVersion, transient: true });
  await configmaps.create('default', { metadata: { name: 'b' } });
  const events: string[] = [];
  for await (const event of watch) {
    events.push(`${event.type}:${(event.object as { metadata: { name: string } }).metadata.name}`);
    break;
  }
  watch.stop();
  expect(events).toEqual(['ADDED:b']);
});

/** The first event of a watch from `resourceVersion`, then the watch stopped. */
async function firstEvent(store: Store, resourceVersion: string, transient: boolean): Promise<{ type: string; object: KubeObject }> {
  const watch = await watchObjects(store, 'default', { resourceVersion, transient });
  try {
    for await (const event of watch) return event as { type: string; object: KubeObject };
    throw new Error('the watch ended without an event');
  } finally {
    watch.stop();
  }
}

it('a transient watch is sent the object a write made, as a normal watch decodes it', async () => {
  const from = (await listObjects(configmaps, 'default', { resourceVersion: '0' })).metadata.resourceVersion;
  const created = await configmaps.create('default', { metadata: { name: 'b', labels: { l: 'v' } }, data: { k: 'v' } });
  const transient = await firstEvent(configmaps, from, true);
  const normal = await firstEvent(configmaps, from, false);
  expect(transient.type).toBe('ADDED');
  expect(transient.object).toEqual(normal.object);
  expect(transient.object).toEqual(created);
  // Not parsed again: its parts are the write's own (a decode has parts of its own).
  expect(transient.object.data).toBe(created.data);
  expect(normal.object.data).not.toBe(created.data);
  expect(Object.isFrozen(normal.object)).toBe(true);

  // An update too, and only for the reader that takes it first: the next transient reader decodes.
  const updated = await configmaps.update('default', 'b', { ...created, data: { k: 'changed' } });
  const afterCreate = created.metadata!.resourceVersion!;
  const update = await firstEvent(configmaps, afterCreate, true);
  expect(update.type).toBe('MODIFIED');
  expect(update.object).toEqual(updated);
  expect(update.object.data).toBe(updated.data);
  const again = await firstEvent(configmaps, afterCreate, true);
  expect(again.object).toEqual(updated);
  expect(again.object.data).not.toBe(updated.data);
});

it('a transient watch of another registry on the same storage decodes what this one wrote', async () => {
  const other = new ResourceRegistry(storage, definitions);
  try {
    const theirs = other.storeFor('', 'v1', 'configmaps')!;
    const from = (await listObjects(theirs, 'default', { resourceVersion: '0' })).metadata.resourceVersion;
    const created = await configmaps.create('default', { metadata: { name: 'c' }, data: { k: 'v' } });
    const seen = await firstEvent(theirs, from, true);
    expect(seen.object).toEqual(created);
    expect(seen.object.data).not.toBe(created.data);
  } finally {
    other.close();
  }
});
