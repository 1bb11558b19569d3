// JSON bytes kept per stored version (as protobuf-cache.test.ts for protobuf): a JSON list from
// the watch cache is assembled from its items' kept bytes, and a watch event's frame is encoded
// once for all its watchers; both must be exactly what encoding afresh gives, escapes and all,
// and never outlive a version.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { negotiateOutput } from '../../runtime/api/negotiation.js';
import { encodeJSON, responseEncoder } from '../../runtime/api/serializers.js';
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
const json = responseEncoder(negotiateOutput('application/json'));
const pretty = responseEncoder(negotiateOutput('application/json', { pretty: true }));
const text = (body: string | Uint8Array) => (typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));

beforeEach(async () => {
  registry = new ResourceRegistry(new MemoryStorage(), resources);
  await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'ns' } });
  store = registry.storeFor('', 'v1', 'configmaps')!;
  // Go escapes <, > and & and U+2028/2029; é is plain UTF-8.
  for (const [name, value] of [['a', '<b>&amp;'], ['b', 'caf\u00e9 \u2028 \u2029'], ['c', 'plain']]) {
    await store.create('ns', { metadata: { name, labels: { app: 'x' } }, data: { key: value } }, { fieldManager: 'test' });
  }
});
afterEach(() => registry.close());

const cachedList = async () => (await listObjects(store, 'ns', { resourceVersion: '0' })) as unknown as JsonObject;
/** The same list with no tie to the cache: a deep copy. */
const copyOf = (list: JsonObject) => JSON.parse(JSON.stringify(list)) as JsonObject;

describe('JSON bytes kept per stored version', () => {
  it('encodes a list from the cache byte for byte as encodeJSON, and keeps each item', async () => {
    const first = await cachedList();
    const fresh = encodeJSON(copyOf(first));
    expect(fresh).toContain('\\u003cb\\u003e\\u0026amp;');
    expect(fresh).toContain('caf\u00e9 \\u2028 \\u2029');
    expect(text(json.encode(first))).toBe(fresh);
    for (const item of first.items as JsonObject[]) expect(cachedEncoding(item, 'json-item:v1/ConfigMapList')).toBeDefined();
    const second = await cachedList();
    expect(text(json.encode(second))).toBe(fresh);
    expect(JSON.parse(text(json.encode(second)))).toEqual(copyOf(first));
  });

  it('encodes the new version after an update, and a list not from the cache afresh', async () => {
    json.encode(await cachedList());
    const current = await store.get('ns', 'b');
    await store.update('ns', 'b', { ...current, data: { key: 'changed' } });
    const after = await cachedList();
    expect(text(json.encode(after))).toBe(encodeJSON(copyOf(after)));
    expect(text(json.encode(after))).toContain('"key":"changed"');
    // A copy has no origin: nothing kept is used for it, whatever its resourceVersion says.
    const copy = copyOf(after);
    ((copy.items as JsonObject[])[0].data as Record<string, string>).key = 'edited';
    expect(text(json.encode(copy))).toBe(encodeJSON(copy));
    expect(text(json.encode(copy))).toContain('"key":"edited"');
  });

  it('leaves pretty output to encodeJSON', async () => {
    const list = await cachedList();
    expect(pretty.encode(list)).toBe(encodeJSON(copyOf(list), true));
  });

  it('gives every watcher of a change the same frame, as encodeJSON writes it', async () => {
    const kv = (await registry.storage.get(store.key('ns', 'a')))!;
    const predicate = compilePredicate(store.strategies.main, {});
    const event = { type: 'put' as const, kv, created: true };
    const one = toWatchEvent(store.storage.codec, event, predicate)!;
    const two = toWatchEvent(store.storage.codec, event, predicate)!;
    const fresh = encodeJSON({ type: one.type, object: JSON.parse(JSON.stringify(one.object)) });
    expect(fresh).toContain('\\u003cb\\u003e');
    const frameOne = json.encodeWatchEvent(one.type, one.object as JsonObject);
    expect(text(frameOne)).toBe(fresh);
    expect(cachedEncoding(two.object, `json-event:${one.type}:v1/ConfigMap`)).toBeDefined();
    expect(json.encodeWatchEvent(two.type, two.object as JsonObject)).toBe(frameOne);
    // Another event type of the same version is its own frame.
    expect(text(json.encodeWatchEvent('DELETED', two.object as JsonObject))).toBe(encodeJSON({ type: 'DELETED', object: JSON.parse(JSON.stringify(one.object)) }));
  });

  it('keeps no frame for objects that did not come from the cache', async () => {
    const obj = await store.get('ns', 'a');
    expect(text(json.encodeWatchEvent('ADDED', obj as JsonObject))).toBe(encodeJSON({ type: 'ADDED', object: obj }));
    expect(cachedEncoding(obj, 'json-event:ADDED:v1/ConfigMap')).toBeUndefined();
    const kv = (await registry.storage.get(store.key('ns', 'a')))!;
    const tagged = decodeFromCache(store.storage.codec, kv);
    const copy = { ...tagged, data: { key: 'edited' } };
    json.encodeWatchEvent('ADDED', tagged as JsonObject);
    expect(text(json.encodeWatchEvent('ADDED', copy as JsonObject))).toContain('"key":"edited"');
  });
});
