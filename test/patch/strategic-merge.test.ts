import { describe, expect, it } from 'vitest';
import { OpenAPIPatchSchemas, UNKNOWN_SCHEMA } from '../../runtime/registry/patch/patch-meta.js';
import { SchemaIndex } from '../../runtime/machinery/openapi-schema.js';
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
    // Without $setElementOrder the patch's items come before server-only items the original had later.
    ['puts a new merge-keyed element first', { spec: { containers: [{ name: 'new', image: 'x' }] } }, (r: any) => expect(r.spec.containers.map((c: any) => c.name)).toEqual(['new', 'web', 'side'])],
    ['merges nested merge-keyed lists', { spec: { containers: [{ name: 'web', env: [{ name: 'B', value: '2' }] }] } }, (r: any) => expect(r.spec.containers[0].env).toEqual([{ name: 'B', value: '2' }, { name: 'A', value: '1' }])],
    ['deletes an element with $patch: delete', { spec: { containers: [{ name: 'side', $patch: 'delete' }] } }, (r: any) => expect(r.spec.containers.map((c: any) => c.name)).toEqual(['web'])],
    ['replaces a list with a $patch: replace element', { spec: { containers: [{ name: 'only', image: 'i' }, { $patch: 'replace' }] } }, (r: any) => expect(r.spec.containers).toEqual([{ name: 'only', image: 'i' }])],
    ['replaces an atomic list', { spec: { args: ['three'] } }, (r: any) => expect(r.spec.args).toEqual(['three'])],
    ['unions a merge-strategy primitive list in the patch order', { metadata: { finalizers: ['y', 'x'] } }, (r: any) => expect(r.metadata.finalizers).toEqual(['y', 'x'])],
    ['removes values with $deleteFromPrimitiveList', { metadata: { '$deleteFromPrimitiveList/finalizers': ['x'] } }, (r: any) => expect(r.metadata.finalizers).toEqual([])],
    ['replaces a map with $patch: replace', { metadata: { labels: { z: '9', $patch: 'replace' } } }, (r: any) => expect(r.metadata.labels).toEqual({ z: '9' })],
    // kube leaves an existing map that the patch deletes empty rather than absent.
    ['empties a map with $patch: delete', { spec: { strategy: { $patch: 'delete' } } }, (r: any) => expect(r.spec.strategy).toEqual({})],
    ['drops a new map with $patch: delete', { spec: { newMap: { a: 1, $patch: 'delete' } } }, (r: any) => expect(r.spec).not.toHaveProperty('newMap')],
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

  it('leaves the object alone for a null patch', () => {
    expect(applyStrategicMergePatch(base(), null, pod)).toEqual(base());
  });

  it('behaves as a JSON merge patch without a schema', () => {
    const result = applyStrategicMergePatch({ a: [1, 2], b: { c: 1, d: 2 } }, { a: [3], b: { d: null } }, UNKNOWN_SCHEMA);
    expect(result).toEqual({ a: [3], b: { c: 1 } });
  });
});

// Where kube takes a patch value instead of merging it, strategicpatch cleans it one of three ways:
// a field the original lacks loses its null members (at any depth, list items aside) and its
// `$patch` maps, nothing else; a list added beside `$setElementOrder` loses only its `$patch` maps;
// everything else (a `$patch: replace` map, a replace-strategy field, an appended element, the
// rest of a `$patch: replace` list) is kept exactly as written, nulls and directive keys included.
describe('strategic merge patch: values taken as the patch wrote them', () => {
  it.each([
    // A field the original lacks.
    ['new field: null members dropped at every depth', { spec: { newField: { a: null, b: { c: null, d: 1 } } } }, ['spec', 'newField'], { b: { d: 1 } }],
    ['new field: null list items kept, null members inside items dropped', { spec: { newList: [1, null, { a: null, b: 2 }] } }, ['spec', 'newList'], [1, null, { b: 2 }]],
    ['new field: nested $patch maps dropped', { spec: { newField: { keep: 1, gone: { $patch: 'delete', x: 1 }, l: [{ $patch: 'replace' }, { y: 1 }] } } }, ['spec', 'newField'], { keep: 1, l: [{ y: 1 }] }],
    ['new field: a null $patch is discarded before directives are looked for', { spec: { newField: { $patch: null, a: 1 } } }, ['spec', 'newField'], { a: 1 }],
    ['new field: $retainKeys and $setElementOrder stay as keys', { spec: { newField: { $retainKeys: ['a'], '$setElementOrder/l': [1], a: 1 } } }, ['spec', 'newField'], { $retainKeys: ['a'], '$setElementOrder/l': [1], a: 1 }],
    ['field of another type: same cleaning', { spec: { args: { a: null, b: 1 } } }, ['spec', 'args'], { b: 1 }],
    // Values kept as written.
    ['$patch: replace map keeps nulls and nested directives', { metadata: { labels: { $patch: 'replace', z: '9', y: null, n: { $patch: 'delete' } } } }, ['metadata', 'labels'], { z: '9', y: null, n: { $patch: 'delete' } }],
    ['replace-strategy map keeps nulls', { spec: { selector: { app: 'z', tier: null } } }, ['spec', 'selector'], { app: 'z', tier: null }],
    ['atomic list keeps null items, null members and directives', { spec: { args: ['a', null, { k: null, $patch: 'delete' }] } }, ['spec', 'args'], ['a', null, { k: null, $patch: 'delete' }]],
    ['appended element keeps nulls and nested directives', { spec: { containers: [{ name: 'new', image: null, env: [{ name: 'E', value: null, $retainKeys: [] }] }] } }, ['spec', 'containers', 0], { name: 'new', image: null, env: [{ name: 'E', value: null, $retainKeys: [] }] }],
    ['rest of a $patch: replace list keeps nulls', { spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: null }] } }, ['spec', 'containers'], [{ name: 'only', image: null }]],
  ])('%s', (_name, patch, path, want) => {
    const original = base();
    let got: any = applyStrategicMergePatch(original, patch, pod);
    for (const step of path) got = got[step];
    expect(got).toEqual(want);
    expect(original).toEqual(base());
  });

  it('keeps the nulls of a list added beside $setElementOrder, dropping only its $patch maps', () => {
    const original: any = base();
    delete original.spec.containers;
    const patch = { spec: { '$setElementOrder/containers': [{ name: 'a' }], containers: [{ name: 'a', image: null, env: [{ $patch: 'delete', name: 'X' }, { name: 'Y', value: null }] }] } };
    const result: any = applyStrategicMergePatch(original, patch, pod);
    expect(result.spec.containers).toEqual([{ name: 'a', image: null, env: [{ name: 'Y', value: null }] }]);
  });

  it('still merges an existing element of a merged list, deleting its null members', () => {
    const result: any = applyStrategicMergePatch(base(), { spec: { containers: [{ name: 'web', image: null }] } }, pod);
    expect(result.spec.containers[0]).toEqual({ name: 'web', env: [{ name: 'A', value: '1' }] });
  });
});

// Lists where the server has items the patch does not name: kube interleaves the two runs by
// the server's order instead of putting the named items first.
describe('strategic merge patch: $setElementOrder and list order', () => {
  const withList = (finalizers: string[], containers: string[]) => ({
    metadata: { finalizers },
    spec: { containers: containers.map((name) => ({ name })) },
  });
  const names = (r: any) => r.spec.containers.map((c: any) => c.name);

  it.each([
    ['keeps a server-only primitive between the listed ones', withList(['a', 'x', 'b'], []), { metadata: { '$setElementOrder/finalizers': ['a', 'b'] } }, (r: any) => expect(r.metadata.finalizers).toEqual(['a', 'x', 'b'])],
    ['reorders listed primitives around a server-only one', withList(['a', 'x', 'b'], []), { metadata: { '$setElementOrder/finalizers': ['b', 'a'] } }, (r: any) => expect(r.metadata.finalizers).toEqual(['x', 'b', 'a'])],
    ['adds a primitive at its place in the order', withList(['a', 'x', 'b'], []), { metadata: { '$setElementOrder/finalizers': ['a', 'c', 'b'], finalizers: ['c'] } }, (r: any) => expect(r.metadata.finalizers).toEqual(['a', 'c', 'x', 'b'])],
    ['keeps a server-only map between the listed ones', withList([], ['a', 'x', 'b']), { spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }] } }, (r: any) => expect(names(r)).toEqual(['a', 'x', 'b'])],
    ['reorders listed maps, server-only last when it was last', withList([], ['a', 'b', 'x']), { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }] } }, (r: any) => expect(names(r)).toEqual(['b', 'a', 'x'])],
    ['adds a map and deletes another in one order', withList([], ['a', 'b', 'x']), { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'c' }], containers: [{ name: 'c' }, { name: 'a', $patch: 'delete' }] } }, (r: any) => expect(names(r)).toEqual(['b', 'x', 'c'])],
    ['merges the listed map it also patches', withList([], ['a', 'b']), { spec: { '$setElementOrder/containers': [{ name: 'b' }, { name: 'a' }], containers: [{ name: 'a', image: 'i' }] } }, (r: any) => expect(r.spec.containers).toEqual([{ name: 'b' }, { name: 'a', image: 'i' }])],
  ])('%s', (_name, original, patch, check) => {
    check(applyStrategicMergePatch(original, patch, pod));
  });

  it.each([
    ['a patch list out of the order list', { spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }], containers: [{ name: 'b' }, { name: 'a' }] } }, /^The order in patch list:\n\[map\[name:b\] map\[name:a\]\]\n doesn't match \$setElementOrder list:\n/],
    ['an order list element without the merge key', { spec: { '$setElementOrder/containers': [{ image: 'a' }], containers: [{ name: 'a' }] } }, /^map: map\[image:a\] does not contain declared merge key: name$/],
  ])('fails on %s with a plain 500', (_name, patch, message) => {
    const err = catchError(() => applyStrategicMergePatch(withList([], ['a', 'b']), patch, pod));
    expect([err.code, err.reason]).toEqual([500, '']);
    expect(err.message).toMatch(message);
  });

  it('refuses a $setElementOrder key without its field with a 400', () => {
    const err = catchError(() => applyStrategicMergePatch(withList(['a'], []), { metadata: { $setElementOrder: ['a'] } }, pod));
    expect([err.code, err.reason, err.message]).toEqual([400, 'BadRequest', 'invalid patch format of setElementOrder list']);
  });
});

function catchError(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

describe('strategic merge patch: directive errors', () => {
  it('refuses a list of lists with a 422', () => {
    const original = { metadata: { finalizers: [] as unknown[] } };
    const err = catchError(() => applyStrategicMergePatch(original, { metadata: { finalizers: [['a']] } }, pod));
    expect([err.code, err.reason, err.details?.causes]).toEqual([422, 'Invalid', [{ reason: 'UnexpectedServerResponse', message: 'lists of lists are not supported' }]]);
  });

  it.each([
    // Accepted: $retainKeys naming every key the patch sets; nulls and parallel lists need no entry.
    ['$retainKeys listing the set keys', { spec: { strategy: { type: 'Recreate', rollingUpdate: null, $retainKeys: ['type'] } } }, (r: any) => expect(r.spec.strategy).toEqual({ type: 'Recreate' })],
    ['$patch: delete removing every element with the key', { spec: { containers: [{ name: 'web', $patch: 'delete' }] } }, (r: any) => expect(r.spec.containers.map((c: any) => c.name)).toEqual(['side'])],
    // kube skips a deletion list whose value is not a list: the list is left as it was.
    ['a $deleteFromPrimitiveList that is not a list', { metadata: { '$deleteFromPrimitiveList/finalizers': 'x' } }, (r: any) => expect(r.metadata.finalizers).toEqual(['x'])],
  ])('accepts %s', (_name, patch, check) => {
    const original = base();
    original.spec.containers.push({ name: 'web', image: 'dup' });
    check(applyStrategicMergePatch(original, patch, pod));
  });

  it.each([
    ['$retainKeys missing a key the patch sets', { spec: { strategy: { type: 'Recreate', rollingUpdate: {}, $retainKeys: ['type'] } } }, 400, 'BadRequest', 'invalid patch format of retainKeys'],
    ['$retainKeys that is not a list', { spec: { strategy: { type: 'Recreate', $retainKeys: 'type' } } }, 400, 'BadRequest', 'invalid patch format of retainKeys'],
    ['$deleteFromPrimitiveList without a field', { metadata: { $deleteFromPrimitiveList: ['x'] } }, 400, 'BadRequest', 'invalid patch format of primitive list'],
    ['$patch: merge in a map', { metadata: { labels: { z: '1', $patch: 'merge' } } }, 500, '', 'unknown patch type: merge in map: map[$patch:merge z:1]'],
    ['an unknown $patch in a map', { metadata: { $patch: 'frobnicate' } }, 500, '', 'unknown patch type: frobnicate in map: map[$patch:frobnicate]'],
    ['$patch: merge in a list', { spec: { containers: [{ name: 'web', $patch: 'merge' }] } }, 500, '', 'merging lists cannot yet be specified in the patch'],
    ['an unknown $patch in a list', { spec: { containers: [{ name: 'web', $patch: 'keep' }] } }, 500, '', 'unknown patch type: keep in map: map[$patch:keep name:web]'],
    ['a list element without its merge key', { spec: { containers: [{ image: 'x' }] } }, 500, '', 'map: map[image:x] does not contain declared merge key: name'],
    ['a deletion without the merge key', { spec: { containers: [{ $patch: 'delete' }] } }, 500, '', 'map: map[$patch:delete] does not contain declared merge key: name'],
    ['list elements of two types', { metadata: { finalizers: [['a']] } }, 500, '', 'list element types are not identical: [[x] [[a]]]'],
    ['a patch that is not an object', ['x'], 400, 'BadRequest', 'json: cannot unmarshal array into Go value of type map[string]interface {}'],
  ])('refuses %s', (_name, patch, code, reason, message) => {
    const err = catchError(() => applyStrategicMergePatch(base(), patch, pod));
    expect([err.code, err.reason, err.message]).toEqual([code, reason, message]);
  });
});
