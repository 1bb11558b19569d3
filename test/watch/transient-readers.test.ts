// A transient reader (the garbage collector's informers) is served from the watch cache like any
// other, but what it alone made the cache decode is not kept: following every kind must not hold
// every object decoded in memory. Objects others decoded are shared with it as before.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import { listObjects } from '../../runtime/registry/list.js';
import { watchObjects } from '../../runtime/registry/watch.js';
import type { Store } from '../../runtime/registry/store.js';
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
