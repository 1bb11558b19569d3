// The stored JSON of an object: written as it is when it is already in its stored form (a
// create's object), else from copies with the stored type and without resourceVersion and
// selfLink; both ways give the same text.
import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { Codec } from '../../runtime/registry/codec.js';
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
