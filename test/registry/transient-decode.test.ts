// A create's watch event, read by a transient watcher (the garbage collector's informer), is
// handed the created object's members instead of a parse of the bytes just stored (codec.ts,
// decodeTransient): it must read exactly as a decode of those bytes, be handed out once, be
// forgotten when the create fails, and never touch what the cache shares with other watchers.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { Codec } from '../../runtime/registry/codec.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import type { Store } from '../../runtime/registry/store.js';
import { watchObjects, type WatchStream } from '../../runtime/registry/watch.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';
import type { KubeObject } from '../../runtime/machinery/object.js';

const definition = (plural: string, group = '') => resources.find((r) => r.group === group && r.plural === plural)!;
const KEY = '/registry/configmaps/ns/a';
const kvOf = (value: string, modRevision: number, key = KEY) => ({ key, value, createRevision: modRevision, modRevision });
const plain = () => ({ metadata: { name: 'a', namespace: 'ns', uid: 'u-1', creationTimestamp: '2026-11-26T00:00:00Z' }, data: { k: 'v' } });

async function next(stream: WatchStream): Promise<{ type: string; object: KubeObject }> {
  const { value } = await stream[Symbol.asyncIterator]().next();
  return value as { type: string; object: KubeObject };
}

describe('Codec.decodeTransient', () => {
  it('hands a remembered create back once, reading as a decode of its bytes', () => {
    const codec = new Codec(definition('configmaps'));
    const obj: KubeObject = plain();
    const value = codec.encode(obj);
    codec.rememberCreate(KEY, value, obj);
    const view = codec.decodeTransient(kvOf(value, 12));
    expect(view).toEqual(codec.decode(value, 12));
    expect(Object.keys(view)).toEqual(Object.keys(codec.decode(value, 12)));
    // The view's own metadata carries the revision; the written object is left as it was.
    expect(view.metadata).not.toBe(obj.metadata);
    expect(obj.metadata).not.toHaveProperty('resourceVersion');
    // Handed out once: the next reader of the same bytes gets a decode of its own.
    const again = codec.decodeTransient(kvOf(value, 12));
    expect(again).toEqual(view);
    expect(again.data).not.toBe(obj.data);
  });

  it('decodes a failed create, and kinds whose stored form or read defaults differ, from their bytes', () => {
    const codec = new Codec(definition('configmaps'));
    const obj: KubeObject = plain();
    const value = codec.encode(obj);
    codec.rememberCreate(KEY, value, obj);
    codec.forgetCreate(KEY, value);
    expect(codec.decodeTransient(kvOf(value, 3)).data).not.toBe(obj.data);

    // Other bytes under the same key (a later write of the name) are decoded from those bytes.
    const other: KubeObject = { ...plain(), data: { k: 'other' } };
    codec.rememberCreate(KEY, codec.encode(obj), obj);
    const otherValue = codec.encode(other);
    expect(codec.decodeTransient(kvOf(otherValue, 4))).toEqual(codec.decode(otherValue, 4));

    const withDefaults = new Codec(definition('configmaps'), (o) => ((o as { immutable?: boolean }).immutable = false));
    const defaulted: KubeObject = plain();
    const defaultedValue = withDefaults.encode(defaulted);
    withDefaults.rememberCreate(KEY, defaultedValue, defaulted);
    const read = withDefaults.decodeTransient(kvOf(defaultedValue, 3));
    expect(read).toMatchObject({ immutable: false });
    expect(defaulted).not.toHaveProperty('immutable');
  });

  it('forgets the oldest remembered creates past its bound', () => {
    const codec = new Codec(definition('configmaps'));
    const written = Array.from({ length: 300 }, (_, i) => {
      const obj: KubeObject = { metadata: { name: `n-${i}`, namespace: 'ns' }, data: { i: String(i) } };
      const value = codec.encode(obj);
      codec.rememberCreate(`/registry/configmaps/ns/n-${i}`, value, obj);
      return { obj, value, key: `/registry/configmaps/ns/n-${i}` };
    });
    // The first ones were forgotten (decoded afresh), the last are handed back.
    expect(codec.decodeTransient(kvOf(written[0].value, 1, written[0].key)).data).not.toBe(written[0].obj.data);
    expect(codec.decodeTransient(kvOf(written[299].value, 1, written[299].key)).data).toBe(written[299].obj.data);
  });
});

describe('a transient watch of creates', () => {
  let registry: ResourceRegistry;
  let store: Store;
  beforeEach(async () => {
    registry = new ResourceRegistry(new MemoryStorage(), resources);
    await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'ns' } });
    store = registry.storeFor('', 'v1', 'configmaps')!;
  });
  afterEach(() => registry.close());

  it('sees each create as a watcher that decodes does, and shares nothing frozen with it', async () => {
    const transient = await watchObjects(store, 'ns', { resourceVersion: '0', transient: true });
    const plainWatch = await watchObjects(store, 'ns', { resourceVersion: '0' });
    const created = await store.create('ns', { metadata: { name: 'x', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'o', uid: 'o-1' }] }, data: { k: 'v' } });
    const seen = await next(transient);
    const decoded = await next(plainWatch);
    expect(seen.type).toBe('ADDED');
    expect(seen.object).toEqual(decoded.object);
    expect(seen.object).toEqual(created);
    // Handed the created object's members, not a parse of its bytes.
    expect(seen.object.data).toBe(created.data);
    expect(Object.isFrozen(seen.object)).toBe(false);
    // The cache's decoded version is frozen, and the transient reader's object is not it.
    expect(Object.isFrozen(decoded.object)).toBe(true);
    expect(seen.object).not.toBe(decoded.object);
    transient.stop();
    plainWatch.stop();
    // What the store holds is what was created.
    expect(await store.get('ns', 'x')).toEqual(created);
  });

  it('hands nothing for a create that failed: the next event is the next create', async () => {
    const first = await store.create('ns', { metadata: { name: 'dup' }, data: { k: 'first' } });
    const transient = await watchObjects(store, 'ns', { resourceVersion: (first.metadata as { resourceVersion: string }).resourceVersion, transient: true });
    await expect(store.create('ns', { metadata: { name: 'dup' }, data: { k: 'second' } })).rejects.toMatchObject({ reason: 'AlreadyExists' });
    const after = await store.create('ns', { metadata: { name: 'after' }, data: { k: 'third' } });
    const seen = await next(transient);
    expect(seen).toMatchObject({ type: 'ADDED', object: after });
    transient.stop();
    expect(await store.get('ns', 'dup')).toMatchObject({ data: { k: 'first' } });
  });
});
