// CBOR bytes kept per stored version (as kept-json.test.ts for JSON): a CBOR list from the watch
// cache is assembled from its items' kept bytes, an object's document and a watch event's are
// encoded once per version; each must be exactly what encodeCBOR gives afresh ([]byte places
// included) and never outlive a version.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { decodeCBOR, encodeCBOR, encodeCBORWatchEvent } from '../../runtime/api/cbor.js';
import { negotiateOutput } from '../../runtime/api/negotiation.js';
import { responseEncoder } from '../../runtime/api/serializers.js';
import { cachedEncoding, decodeFromCache } from '../../runtime/registry/cacher/serialization-cache.js';
import { compilePredicate } from '../../runtime/registry/selection.js';
import { toWatchEvent } from '../../runtime/registry/watch-stream.js';
import { listObjects } from '../../runtime/registry/list.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import type { Store } from '../../runtime/registry/store.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';
import type { JsonObject } from '../../runtime/api/protobuf/index.js';

let registry: ResourceRegistry;
let store: Store;
const cbor = responseEncoder(negotiateOutput('application/cbor', { cbor: true }));
const hex = (bytes: string | Uint8Array) => Buffer.from(bytes).toString('hex');
/** The same value with no tie to the cache: a deep copy. */
const copyOf = <T>(value: T) => JSON.parse(JSON.stringify(value)) as T;
const BINARY = Buffer.from([0, 1, 0xfe, 0xff]).toString('base64');

beforeEach(async () => {
  registry = new ResourceRegistry(new MemoryStorage(), resources);
  await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'ns' } });
  store = registry.storeFor('', 'v1', 'configmaps')!;
  // Short and long strings, ASCII and not (the encoder copies short ASCII ones itself), and []byte values.
  const values: Array<[string, Record<string, string>]> = [
    ['a', { k: 'plain', k2: 'значение', long: 'x'.repeat(23), longer: `${'y'.repeat(23)}é` }],
    ['b', { k: 'caf\u00e9 \u2028 😀', k2: '\u007f\u0080' }],
    ['c', { k: '' }],
  ];
  for (const [name, data] of values) {
    await store.create('ns', { metadata: { name, labels: { app: 'x' } }, data, binaryData: { bin: BINARY } }, { fieldManager: 'test' });
  }
});
afterEach(() => registry.close());

const cachedList = async () => (await listObjects(store, 'ns', { resourceVersion: '0' })) as unknown as JsonObject;

describe('CBOR bytes kept per stored version', () => {
  it('encodes a list from the cache byte for byte as encodeCBOR, and keeps each item', async () => {
    const first = await cachedList();
    const fresh = encodeCBOR(copyOf(first));
    expect(hex(cbor.encode(first))).toBe(hex(fresh));
    for (const item of first.items as JsonObject[]) expect(cachedEncoding(item, 'cbor-item:v1/ConfigMapList')).toBeDefined();
    const second = await cachedList();
    expect(hex(cbor.encode(second))).toBe(hex(fresh));
    expect(decodeCBOR(cbor.encode(second) as Uint8Array, { apiVersion: 'v1', kind: 'ConfigMapList' })).toEqual(copyOf(first));
  });

  it('encodes the new version after an update, and a list not from the cache afresh', async () => {
    cbor.encode(await cachedList());
    const current = await store.get('ns', 'b');
    await store.update('ns', 'b', { ...current, data: { key: 'changed' } });
    const after = await cachedList();
    expect(hex(cbor.encode(after))).toBe(hex(encodeCBOR(copyOf(after))));
    const decoded = decodeCBOR(cbor.encode(after) as Uint8Array) as { items: { metadata: { name: string }; data: unknown }[] };
    expect(decoded.items.find((i) => i.metadata.name === 'b')!.data).toEqual({ key: 'changed' });
    // A copy has no origin: nothing kept is used for it, whatever its resourceVersion says.
    const copy = copyOf(after);
    ((copy.items as JsonObject[])[0].data as Record<string, string>).k = 'edited';
    expect(hex(cbor.encode(copy))).toBe(hex(encodeCBOR(copy)));
    expect((decodeCBOR(cbor.encode(copy) as Uint8Array) as typeof decoded).items[0].data).toMatchObject({ k: 'edited' });
  });

  it('keeps the items of two list types apart', async () => {
    const list = await cachedList();
    cbor.encode(list);
    // The same items under another list type: its own kept bytes, and its own []byte places
    // (a type without any writes binaryData as text).
    const other = { ...list, apiVersion: 'v1', kind: 'List' };
    expect(hex(cbor.encode(other))).toBe(hex(encodeCBOR(copyOf(other))));
    expect(cachedEncoding((list.items as JsonObject[])[0], 'cbor-item:v1/List')).toBeDefined();
    expect(hex(cbor.encode(list))).toBe(hex(encodeCBOR(copyOf(list))));
  });

  it('keeps an object of the cache as its document, and none for anything else', async () => {
    const kv = (await registry.storage.get(store.key('ns', 'a')))!;
    const tagged = decodeFromCache(store.storage.codec, kv);
    const document = cbor.encode(tagged as JsonObject);
    expect(hex(document)).toBe(hex(encodeCBOR(copyOf(tagged))));
    expect(cachedEncoding(tagged, 'cbor:v1/ConfigMap')).toBe(document);
    expect(cbor.encode(tagged as JsonObject)).toBe(document);
    const copy = { ...tagged, data: { k: 'edited' } };
    expect(decodeCBOR(cbor.encode(copy as JsonObject) as Uint8Array)).toMatchObject({ data: { k: 'edited' } });
    const read = await store.get('ns', 'a');
    expect(hex(cbor.encode(read as JsonObject))).toBe(hex(encodeCBOR(read)));
    expect(cachedEncoding(read, 'cbor:v1/ConfigMap')).toBeUndefined();
  });

  it('gives every watcher of a change the same event, as encodeCBORWatchEvent writes it', async () => {
    const kv = (await registry.storage.get(store.key('ns', 'a')))!;
    const predicate = compilePredicate(store.strategies.main, {});
    const event = { type: 'put' as const, kv, created: true };
    const one = toWatchEvent(store.storage.codec, event, predicate)!;
    const two = toWatchEvent(store.storage.codec, event, predicate)!;
    const fresh = encodeCBORWatchEvent(one.type, copyOf(one.object));
    const frameOne = cbor.encodeWatchEvent(one.type, one.object as JsonObject);
    expect(hex(frameOne)).toBe(hex(fresh));
    expect(cachedEncoding(two.object, `cbor-event:${one.type}:v1/ConfigMap`)).toBeDefined();
    expect(cbor.encodeWatchEvent(two.type, two.object as JsonObject)).toBe(frameOne);
    // Another event type of the same version is its own event.
    expect(hex(cbor.encodeWatchEvent('DELETED', two.object as JsonObject))).toBe(hex(encodeCBORWatchEvent('DELETED', copyOf(one.object))));
    // A copy of the object is encoded afresh.
    const copy = { ...(one.object as JsonObject), data: { k: 'edited' } };
    expect(hex(cbor.encodeWatchEvent('MODIFIED', copy))).toBe(hex(encodeCBORWatchEvent('MODIFIED', copy)));
  });
});
