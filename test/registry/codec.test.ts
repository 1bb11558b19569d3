// The stored JSON of an object: written as it is when it is already in its stored form (a
// create's object), else from copies with the stored type and without resourceVersion and
// selfLink; both ways give the same text. A write's stored text and its answer's JSON come from
// one stringify (encodeWrite, answer): each must be exactly what the plain ways give.
import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { stringifyJSON } from '../../runtime/machinery/deep-json.js';
import { Codec } from '../../runtime/registry/codec.js';
import { keepWrittenText, writtenText } from '../../runtime/registry/cacher/serialization-cache.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import { encodeJSON } from '../../runtime/api/serializers.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';
import type { ResourceDefinition } from '../../runtime/registry/definition.js';
import type { KubeObject } from '../../runtime/machinery/object.js';

const definition = (group: string, kind: string) => resources.find((d) => d.group === group && d.kind === kind) as ResourceDefinition;
const configMaps = new Codec(definition('', 'ConfigMap'));

describe('Codec.encode', () => {
  it('writes a create in stored form as the copies would, key order included', () => {
    const created = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default', uid: 'u', ['__proto__']: 'kept' /* computed: an own member, as JSON.parse makes it */ }, data: { k: 'v' }, immutable: false };
    expect(configMaps.encode(created)).toBe('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"default","uid":"u","__proto__":"kept"},"data":{"k":"v"},"immutable":false}');
  });

  it('leaves out resourceVersion and selfLink, and writes the stored type where it is missing or other', () => {
    const written = (obj: KubeObject) => JSON.parse(configMaps.encode(obj)) as KubeObject;
    const updated = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '7', selfLink: '/x', uid: 'u' }, data: {} };
    expect(configMaps.encode(updated)).toBe('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","uid":"u"},"data":{}}');
    expect(updated.metadata.resourceVersion).toBe('7');
    expect(configMaps.encode({ metadata: { name: 'b' }, data: { k: 'v' } })).toBe('{"metadata":{"name":"b"},"data":{"k":"v"},"apiVersion":"v1","kind":"ConfigMap"}');
    expect(written({ kind: 'Other', apiVersion: 'v2', metadata: { name: 'c' } })).toEqual({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'c' } });
    expect(configMaps.encode({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'd', resourceVersion: undefined } })).toBe('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d"}}');
  });

  it('writes a kind stored as another version in the stored form, even when it names its served type', () => {
    const events = new Codec(definition('events.k8s.io', 'Event'));
    const text = events.encode({ apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e', namespace: 'default' }, note: 'hello', regarding: { kind: 'Pod', name: 'p' } });
    expect(JSON.parse(text)).toEqual({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 'default' }, message: 'hello', involvedObject: { kind: 'Pod', name: 'p' } });
  });
});

describe('Codec.stored', () => {
  it('is the written object with type meta first, its resourceVersion in its place, no selfLink, and leaves the written object as it was', () => {
    const updated: KubeObject = JSON.parse(
      '{"data":{"k":"v"},"kind":"Other","metadata":{"name":"a","resourceVersion":"7","selfLink":"/x","uid":"u","__proto__":"kept"},"apiVersion":"v2","immutable":true}',
    );
    const before = JSON.stringify(updated);
    const stored = configMaps.stored(updated, 9);
    expect(JSON.stringify(stored)).toBe('{"kind":"ConfigMap","apiVersion":"v1","data":{"k":"v"},"metadata":{"name":"a","resourceVersion":"9","uid":"u","__proto__":"kept"},"immutable":true}');
    expect(Object.getPrototypeOf(stored.metadata)).toBe(Object.prototype);
    expect(JSON.stringify(updated)).toBe(before);
    // Created: the version it never had comes last.
    expect(JSON.stringify(configMaps.stored({ metadata: { name: 'b' } }, 3))).toBe('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"b","resourceVersion":"3"}}');
  });
});

describe('Codec.encode of an unstructured kind', () => {
  // An unstructured ConfigMap stands in for a custom resource: the codec reads only the definition's names and flags.
  const codec = new Codec({ ...definition('', 'ConfigMap'), unstructured: true });

  it('writes every level sorted, answers with the sorted object, and leaves the written object as it was', () => {
    const fieldsV1 = { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } };
    const created: KubeObject = {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'a', uid: 'u', managedFields: [{ manager: 'm', fieldsV1 }], resourceVersion: '3' },
      data: { b: 'x', a: 'y' },
      list: [{ z: 1, y: [{ d: 1, c: 2 }] }, 'in order'],
    };
    const before = JSON.stringify(created);
    const text = codec.encode(created);
    expect(text).toBe(
      '{"apiVersion":"v1","data":{"a":"y","b":"x"},"kind":"ConfigMap","list":[{"y":[{"c":2,"d":1}],"z":1},"in order"],' +
        '"metadata":{"managedFields":[{"fieldsV1":{"f:data":{".":{},"f:a":{},"f:b":{}}},"manager":"m"}],"name":"a","uid":"u"}}',
    );
    expect(JSON.stringify(created)).toBe(before);
    const stored = codec.stored(created, 9);
    expect(JSON.stringify(stored)).toBe(JSON.stringify(codec.decode(text, 9)));
    expect(stored.metadata?.resourceVersion).toBe('9');
  });
});

describe('Codec.encodeWrite and answer', () => {
  const unstructured = new Codec({ ...definition('', 'ConfigMap'), unstructured: true });
  const MARK = '\u0000resourceVersion\u0000';

  /** The write's stored text reads back as its answer, whose kept text is the answer's JSON, once. */
  const roundTrip = (codec: Codec, obj: KubeObject, revision: number) => {
    const before = JSON.stringify(obj);
    const encoded = codec.encodeWrite(obj);
    const answer = codec.answer(encoded, revision);
    expect(JSON.stringify(obj)).toBe(before);
    expect(stringifyJSON(answer)).toBe(stringifyJSON(codec.stored(obj, revision)));
    expect(stringifyJSON(codec.decode(encoded.value, revision))).toBe(stringifyJSON(answer));
    expect(JSON.parse(encoded.value)).toEqual(JSON.parse(codec.encode(obj)));
    const text = writtenText(answer);
    return { value: encoded.value, answer, text, again: writtenText(answer) };
  };

  it('stores a typed create with kind first, as Go writes TypeMeta, and keeps its answer text for one encoding', () => {
    const created = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default', uid: 'u', ['__proto__']: 'kept' }, data: { k: '<v>' } };
    const { value, answer, text, again } = roundTrip(configMaps, created, 12);
    expect(value).toBe('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"u","__proto__":"kept"},"data":{"k":"<v>"}}');
    expect(text).toBe(JSON.stringify(answer));
    expect(text).toBe('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"default","uid":"u","__proto__":"kept","resourceVersion":"12"},"data":{"k":"<v>"}}');
    expect(again).toBeUndefined();
  });

  it('parts the resourceVersion from its neighbours whatever its place: alone, first, between, last', () => {
    expect(roundTrip(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: {} }, 3).value).toBe('{"kind":"ConfigMap","apiVersion":"v1","metadata":{}}');
    expect(roundTrip(configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: undefined } }, 3).value).toBe('{"kind":"ConfigMap","apiVersion":"v1","metadata":{}}');
    // Sorted metadata: before uid, after name, or alone.
    for (const metadata of [{ uid: 'u' }, { name: 'n' }, { name: 'n', uid: 'u' }, {}]) {
      const { value, answer, text } = roundTrip(unstructured, { apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { b: '1', a: '2' } }, 5);
      expect(value).toBe(unstructured.encode({ apiVersion: 'v1', kind: 'ConfigMap', metadata, data: { b: '1', a: '2' } }));
      expect(text).toBe(JSON.stringify(answer));
    }
  });

  it('answers a custom resource stored as its own version with its text, and one stored as another afresh', () => {
    const custom = (storedApiVersion: string) =>
      new Codec({ ...definition('', 'ConfigMap'), group: 'example.com', version: 'v1', unstructured: true, storedAs: { apiVersion: storedApiVersion, fieldRenames: {} } });
    const created = { apiVersion: 'example.com/v1', kind: 'ConfigMap', metadata: { name: 'a' }, spec: { b: 1, a: 2 } };
    const own = roundTrip(custom('example.com/v1'), created, 6);
    expect(own.value).toBe('{"apiVersion":"example.com/v1","kind":"ConfigMap","metadata":{"name":"a"},"spec":{"a":2,"b":1}}');
    expect(own.text).toBe(JSON.stringify(own.answer));
    const other = roundTrip(custom('example.com/v2'), created, 6);
    expect(other.value).toBe('{"apiVersion":"example.com/v2","kind":"ConfigMap","metadata":{"name":"a"},"spec":{"a":2,"b":1}}');
    expect(other.text).toBeUndefined();
  });

  it('stores an unstructured write exactly as encode does, sorted, and answers with its text', () => {
    const created: KubeObject = {
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { uid: 'u', name: 'a', managedFields: [{ manager: 'm', fieldsV1: { 'f:data': { 'f:b': {}, '.': {} } } }], resourceVersion: '3', selfLink: '/x' },
      data: { b: 'x', a: 'y' },
    };
    const { value, answer, text } = roundTrip(unstructured, created, 9);
    expect(value).toBe(unstructured.encode(created));
    expect(text).toBe(JSON.stringify(answer));
    expect(answer.metadata?.resourceVersion).toBe('9');
  });

  it('makes the answer afresh when a member of the object reads as the mark, or the object is not in its stored form', () => {
    const marked = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { resourceVersion: MARK } };
    const typed = roundTrip(configMaps, marked, 4);
    expect(typed.text).toBeUndefined();
    expect(typed.value).toBe(configMaps.encode(marked));
    expect(roundTrip(unstructured, { ...marked, metadata: { name: 'a' } }, 4).text).toBeUndefined();
    // An update carries the version it read: typed, encode's copy keeps the writer's order.
    const updated = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '3' }, data: {} };
    expect(roundTrip(configMaps, updated, 4)).toMatchObject({ value: configMaps.encode(updated), text: undefined });
    const events = new Codec(definition('events.k8s.io', 'Event'));
    const event = { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e', namespace: 'default' }, note: 'hello' };
    const encoded = events.encodeWrite(event);
    expect(encoded.value).toBe(events.encode(event));
    expect(writtenText(events.answer(encoded, 2))).toBeUndefined();
  });

  it('drops the kept text of an answer changed since', () => {
    const created = () => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } });
    const changes: Array<(answer: KubeObject) => void> = [
      (a) => (a.metadata = { ...a.metadata }),
      (a) => (a.metadata!.resourceVersion = '1'),
      (a) => (a.apiVersion = 'v2'),
      (a) => (a.kind = 'Other'),
    ];
    for (const change of changes) {
      const answer = configMaps.answer(configMaps.encodeWrite(created()), 7);
      change(answer);
      expect(writtenText(answer)).toBeUndefined();
    }
    const kept = { kind: 'ConfigMap', metadata: { name: 'b' } } as KubeObject;
    keepWrittenText(kept, 'text');
    expect(writtenText(kept)).toBe('text');
    expect(writtenText('not an object')).toBeUndefined();
  });
});

describe('a create through the store', () => {
  it('stores a typed object kind first and answers with the text made from the stored one, taken by the first JSON encoding', async () => {
    const storage = new MemoryStorage();
    const registry = new ResourceRegistry(storage, resources, { watchCache: false });
    try {
      await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      const answer = await registry.storeFor('', 'v1', 'configmaps')!.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: '<v>' } });
      const stored = (await storage.get('/registry/configmaps/default/a'))!.value;
      expect(stored.startsWith('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a",')).toBe(true);
      expect(stored).not.toContain('resourceVersion');
      const response = encodeJSON(answer);
      expect(response).toBe(`${JSON.stringify(answer).replace('<', '\\u003c').replace('>', '\\u003e')}\n`);
      // The first encoding took the kept text; a second one stringifies, to the same text.
      expect(writtenText(answer)).toBeUndefined();
      expect(encodeJSON(answer)).toBe(response);
      const again = await registry.storeFor('', 'v1', 'configmaps')!.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b' } });
      expect(writtenText(again)).toBe(JSON.stringify(again));
    } finally {
      registry.close();
    }
  });
});
