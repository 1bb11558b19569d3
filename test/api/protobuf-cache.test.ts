// Protobuf bytes kept per stored version (kube-apiserver's cachingObject): objects the watch cache
// hands out are encoded once per version, and lists and watch events reuse those bytes. The bytes
// must be exactly what encoding the object afresh gives, and never outlive the version.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { decodeObject, decodeWatchEvent, encodeObject, encodeWatchEventFrame, loadDescriptorRoot, messageNameResolver, type JsonObject } from '../../runtime/api/protobuf/index.js';
import { generatedPath } from '../../runtime/generated-files.js';
import { cachedEncoding, decodeFromCache } from '../../runtime/registry/cacher/serialization-cache.js';
import { listObjects } from '../../runtime/registry/list.js';
import type { KubeObject } from '../../runtime/machinery/object.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import type { Store } from '../../runtime/registry/store.js';
import { toWatchEvent } from '../../runtime/registry/watch-stream.js';
import { compilePredicate } from '../../runtime/registry/selection.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';

const root = loadDescriptorRoot(generatedPath('protobuf/descriptors.json'));
const names = messageNameResolver(root);
const CM = 'k8s.io.api.core.v1.ConfigMap';
const CM_LIST = 'k8s.io.api.core.v1.ConfigMapList';

let registry: ResourceRegistry;
let store: Store;

beforeEach(async () => {
  registry = new ResourceRegistry(new MemoryStorage(), resources);
  await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'ns' } });
  store = registry.storeFor('', 'v1', 'configmaps')!;
  for (const name of ['a', 'b', 'c']) {
    await store.create('ns', { metadata: { name, labels: { app: 'x' } }, data: { key: name } }, { fieldManager: 'test' });
  }
});
afterEach(() => registry.close());

/** A list as a LIST request from the watch cache gets it. */
const cachedList = () => listObjects(store, 'ns', { resourceVersion: '0' }) as unknown as Promise<JsonObject>;
/** The same list with no tie to the cache: a deep copy. */
const copyOf = (list: JsonObject) => JSON.parse(JSON.stringify(list)) as JsonObject;
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('protobuf bytes kept per stored version', () => {
  it('encodes a list from the cache byte for byte as a fresh encode, and keeps each item', async () => {
    const first = await cachedList();
    const fresh = hex(encodeObject(root, CM_LIST, copyOf(first)));
    expect(hex(encodeObject(root, CM_LIST, first))).toBe(fresh);
    const items = first.items as JsonObject[];
    for (const item of items) expect(cachedEncoding(item, CM)).toBeDefined();
    // A later LIST hands out the same decoded versions (decoded once), with their kept bytes.
    const second = await cachedList();
    const nameOf = (i: JsonObject) => (i.metadata as { name: string }).name;
    for (const item of second.items as JsonObject[]) {
      expect(item).toBe(items.find((i) => nameOf(i) === nameOf(item)));
      expect(cachedEncoding(item, CM)).toBe(cachedEncoding(items.find((i) => nameOf(i) === nameOf(item))!, CM));
    }
    expect(hex(encodeObject(root, CM_LIST, second))).toBe(fresh);
    expect(decodeObject(root, encodeObject(root, CM_LIST, second), names).object).toEqual({ ...copyOf(first) });
  });

  it('encodes a long list of kept and new items byte for byte as a fresh encode', async () => {
    // Items past 127 bytes (two-byte lengths) and a body far past the writer's first buffer, some
    // items kept by an earlier list and some not yet: the kept ones are reserved at once.
    const filler = 'x'.repeat(300);
    for (let i = 0; i < 40; i++) await store.create('ns', { metadata: { name: `early-${i}` }, data: { k: filler } }, { fieldManager: 'test' });
    encodeObject(root, CM_LIST, await cachedList());
    for (let i = 0; i < 40; i++) await store.create('ns', { metadata: { name: `late-${i}` }, data: { k: filler } }, { fieldManager: 'test' });
    const list = (await listObjects(store, 'ns', {})) as unknown as JsonObject;
    const items = list.items as JsonObject[];
    expect(items).toHaveLength(83);
    expect(items.filter((item) => cachedEncoding(item, CM) !== undefined).length).toBe(43);
    const fresh = hex(encodeObject(root, CM_LIST, copyOf(list)));
    expect(hex(encodeObject(root, CM_LIST, list))).toBe(fresh);
    for (const item of items) expect(cachedEncoding(item, CM)).toBeDefined();
    expect(hex(encodeObject(root, CM_LIST, list))).toBe(fresh);
    expect(decodeObject(root, encodeObject(root, CM_LIST, list), names).object).toEqual(copyOf(list));
  });

  it('encodes the new version after an update', async () => {
    await encodeObject(root, CM_LIST, await cachedList());
    const live = await store.get('ns', 'b');
    await store.update('ns', 'b', { ...live, data: { key: 'changed' } }, { fieldManager: 'test' });
    // The cache catches up asynchronously; a Most Recent list waits for it.
    const list = (await listObjects(store, 'ns', {})) as unknown as JsonObject;
    const decoded = decodeObject(root, encodeObject(root, CM_LIST, list), names).object as { items: { metadata: { name: string }; data: unknown }[] };
    expect(decoded.items.find((i) => i.metadata.name === 'b')!.data).toEqual({ key: 'changed' });
    expect(hex(encodeObject(root, CM_LIST, list))).toBe(hex(encodeObject(root, CM_LIST, copyOf(list))));
  });

  it('hands out frozen objects, and encodes a changed copy afresh', async () => {
    const list = await cachedList();
    encodeObject(root, CM_LIST, list);
    const shared = (list.items as KubeObject[])[0];
    // Shared by every reader of the version: a write to it throws instead of changing what others are sent.
    expect(() => {
      shared.metadata!.resourceVersion = '1';
    }).toThrow(TypeError);
    const item = structuredClone(shared);
    item.metadata!.resourceVersion = '999999';
    item.data = { key: 'edited' };
    // Type meta of its own, so it can be sent as one object (the message does not carry it).
    item.apiVersion = 'v1';
    item.kind = 'ConfigMap';
    const decoded = decodeObject(root, encodeObject(root, CM, item as JsonObject), names).object as KubeObject;
    expect(decoded.data).toEqual({ key: 'edited' });
    expect(decoded.metadata?.resourceVersion).toBe('999999');
  });

  it('gives every watcher of a change the same bytes', async () => {
    const kv = (await registry.storage.get(store.key('ns', 'a')))!;
    const predicate = compilePredicate(store.strategies.main, {});
    const event = { type: 'put' as const, kv, created: true };
    const one = toWatchEvent(store.storage.codec, event, predicate)!;
    const two = toWatchEvent(store.storage.codec, event, predicate)!;
    expect(one.object).toBe(two.object);
    const frameOne = encodeWatchEventFrame(root, one.type, CM, one.object as JsonObject);
    expect(cachedEncoding(two.object as JsonObject, CM)).toBeDefined();
    const frameTwo = encodeWatchEventFrame(root, two.type, CM, two.object as JsonObject);
    expect(hex(frameTwo)).toBe(hex(frameOne));
    expect(decodeWatchEvent(root, frameTwo.subarray(4), names).object).toEqual(JSON.parse(JSON.stringify(one.object)));
  });

  it('keeps nothing for objects that did not come from the cache', async () => {
    const obj = await store.get('ns', 'a');
    encodeObject(root, CM, obj as JsonObject);
    expect(cachedEncoding(obj, CM)).toBeUndefined();
    const kv = (await registry.storage.get(store.key('ns', 'a')))!;
    const tagged = decodeFromCache(store.storage.codec, kv);
    expect(cachedEncoding(tagged, CM)).toBeUndefined();
    encodeObject(root, CM, tagged as JsonObject);
    expect(cachedEncoding({ ...tagged }, CM)).toBeUndefined();
  });
});
