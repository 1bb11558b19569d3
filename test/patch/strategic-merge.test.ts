import { describe, expect, it } from 'vitest';
import { OpenAPIPatchSchemas, UNKNOWN_SCHEMA } from '../../runtime/registry/patch/patch-meta.js';
import { SchemaIndex } from '../../runtime/registry/openapi-schema.js';
import { applyStrategicMergePatch } from '../../runtime/registry/patch/strategic-merge.js';
import { StatusError } from '../../runtime/errors/status-error.js';

// A tiny schema in the shape kube-openapi publishes: a pod-like object with a merge-keyed list,
// a merge-strategy primitive list, a retainKeys struct and a plain (atomic) list.
const schemas = new OpenAPIPatchSchemas(new SchemaIndex({
  'test.Pod': {
    properties: {
      metadata: { allOf: [{ $ref: '#/components/schemas/test.Meta' }] },
      spec: { allOf: [{ $ref: '#/components/schemas/test.PodSpec' }] },
    },
  },
  'test.Meta': {
    properties: {
      labels: { additionalProperties: { type: 'string' } },
      finalizers: { items: { type: 'string' }, 'x-kubernetes-patch-strategy': 'merge' },
    },
  },
  'test.PodSpec': {
    properties: {
      containers: {
        items: { allOf: [{ $ref: '#/components/schemas/test.Container' }] },
        'x-kubernetes-patch-strategy': 'merge',
        'x-kubernetes-patch-merge-key': 'name',
      },
      args: { items: { type: 'string' } },
      strategy: {
        allOf: [{ $ref: '#/components/schemas/test.Strategy' }],
        'x-kubernetes-patch-strategy': 'retainKeys',
      },
      selector: { additionalProperties: { type: 'string' }, 'x-kubernetes-patch-strategy': 'replace' },
    },
  },
  'test.Container': {
    properties: {
      name: { type: 'string' },
      image: { type: 'string' },
      env: {
        items: { properties: { name: {}, value: {} } },
        'x-kubernetes-patch-strategy': 'merge',
        'x-kubernetes-patch-merge-key': 'name',
      },
    },
  },
  'test.Strategy': { properties: { type: {}, rollingUpdate: {} } },
}));
const pod = schemas.forComponent('test.Pod');

const base = () => ({
  metadata: { labels: { a: '1', b: '2' }, finalizers: ['x'] },
  spec: {
    containers: [
      { name: 'web', image: 'nginx:1', env: [{ name: 'A', value: '1' }] },
      { name: 'side', image: 'busybox' },
    ],
    args: ['one', 'two'],
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1 } },
    selector: { app: 'x', tier: 'y' },
  },
});

describe('strategic merge patch', () => {
  it.each([
    ['merges maps and deletes keys set to null', { metadata: { labels: { b: null, c: '3' } } }, (r: any) => expect(r.metadata.labels).toEqual({ a: '1', c: '3' })],
    ['merges a merge-keyed list by key, keeping other elements', { spec: { containers: [{ name: 'web', image: 'nginx:2' }] } }, (r: any) => expect(r.spec.containers).toEqual([{ name: 'web', image: 'nginx:2', env: [{ name: 'A', value: '1' }] }, { name: 'side', image: 'busybox' }])],
    ['appends list elements with a new key', { spec: { containers: [{ name: 'new', image: 'x' }] } }, (r: any) => expect(r.spec.containers.map((c: any) => c.name)).toEqual(['web', 'side', 'new'])],
    ['merges nested merge-keyed lists', { spec: { containers: [{ name: 'web', env: [{ name: 'B', value: '2' }] }] } }, (r: any) => expect(r.spec.containers[0].env).toEqual([{ name: 'A', value: '1' }, { name: 'B', value: '2' }])],
    ['deletes an element with $patch: delete', { spec: { containers: [{ name: 'side', $patch: 'delete' }] } }, (r: any) => expect(r.spec.containers.map((c: any) => c.name)).toEqual(['web'])],
    ['replaces a list with a $patch: replace element', { spec: { containers: [{ name: 'only', image: 'i' }, { $patch: 'replace' }] } }, (r: any) => expect(r.spec.containers).toEqual([{ name: 'only', image: 'i' }])],
    ['replaces an atomic list', { spec: { args: ['three'] } }, (r: any) => expect(r.spec.args).toEqual(['three'])],
    ['unions a merge-strategy primitive list', { metadata: { finalizers: ['y', 'x'] } }, (r: any) => expect(r.metadata.finalizers).toEqual(['x', 'y'])],
    ['removes values with $deleteFromPrimitiveList', { metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } }, (r: any) => expect(r.metadata.finalizers).toEqual([])],
    ['replaces a map with $patch: replace', { metadata: { labels: { z: '9', $patch: 'replace' } } }, (r: any) => expect(r.metadata.labels).toEqual({ z: '9' })],
    ['deletes a map with $patch: delete', { spec: { strategy: { $patch: 'delete' } } }, (r: any) => expect(r.spec.strategy).toBeUndefined()],
    ['keeps only $retainKeys', { spec: { strategy: { type: 'Recreate', $retainKeys: ['type'] } } }, (r: any) => expect(r.spec.strategy).toEqual({ type: 'Recreate' })],
    ['replaces a field whose strategy is replace', { spec: { selector: { app: 'z' } } }, (r: any) => expect(r.spec.selector).toEqual({ app: 'z' })],
    ['orders a list with $setElementOrder', { spec: { '$setElementOrder/containers': [{ name: 'side' }, { name: 'web' }] } }, (r: any) => expect(r.spec.containers.map((c: any) => c.name)).toEqual(['side', 'web'])],
    ['drops nulls inside a new subtree', { spec: { newField: { a: null, b: 1 } } }, (r: any) => expect(r.spec.newField).toEqual({ b: 1 })],
  ])('%s', (_name, patch, check) => {
    const original = base();
    const result = applyStrategicMergePatch(original, patch, pod);
    check(result);
    expect(original).toEqual(base());
  });

  it('rejects a merge-keyed list element without its key', () => {
    expect(() => applyStrategicMergePatch(base(), { spec: { containers: [{ image: 'x' }] } }, pod)).toThrowError(StatusError);
  });

  it('rejects an unknown $patch directive', () => {
    expect(() => applyStrategicMergePatch(base(), { metadata: { $patch: 'frobnicate' } }, pod)).toThrowError(/Unknown patch type/);
  });

  it('rejects a patch that is not an object', () => {
    expect(() => applyStrategicMergePatch(base(), ['x'], pod)).toThrowError(StatusError);
  });

  it('behaves as a JSON merge patch without a schema', () => {
    const result = applyStrategicMergePatch({ a: [1, 2], b: { c: 1, d: 2 } }, { a: [3], b: { d: null } }, UNKNOWN_SCHEMA);
    expect(result).toEqual({ a: [3], b: { c: 1 } });
  });
});
