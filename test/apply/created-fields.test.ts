// A create's managedFields entry is built in one walk of the object (addedFieldsV1); it must be
// exactly what the general set operations give: the added fields, less the dropped prefixes and
// the removed paths, written as FieldsV1 in its order.
import { describe, expect, it } from 'vitest';
import { stringifyJSON } from '../../runtime/machinery/deep-json.js';
import { generatedSchemaIndex } from '../../runtime/machinery/openapi-schema.js';
import { FieldSet, fieldElement } from '../../runtime/registry/apply/fieldpath.js';
import { DEDUCED, TypedSchema, type TypeNode } from '../../runtime/registry/apply/schema.js';
import { addedFields, addedFieldsV1 } from '../../runtime/registry/patch/typed-merge.js';

const typed = new TypedSchema(generatedSchemaIndex());
const f = fieldElement;

/** The server-owned metadata a create never records (the field manager's own list). */
const REMOVED = FieldSet.of(
  [f('apiVersion')],
  [f('kind')],
  [f('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'generation', 'managedFields', 'resourceVersion'].map((n) => [f('metadata'), f(n)]),
);
const STATUS = FieldSet.of([f('status')]);

/** What the set operations give, the reference for the one walk. */
function bySets(value: unknown, node: TypeNode, dropped: FieldSet, removed: FieldSet): Record<string, unknown> | undefined {
  const set = addedFields(value, node).withoutPrefixes(dropped).difference(removed);
  return set.empty() ? undefined : set.toFieldsV1();
}

/** Both as text, so that the order of every object's keys is compared too. */
function expectSame(value: unknown, node: TypeNode, dropped = new FieldSet(), removed = REMOVED): void {
  const oneWalk = addedFieldsV1(value, node, dropped, removed);
  const reference = bySets(value, node, dropped, removed);
  expect(oneWalk === undefined ? 'none' : stringifyJSON(oneWalk)).toBe(reference === undefined ? 'none' : stringifyJSON(reference));
}

const meta = (extra: Record<string, unknown> = {}) => ({ name: 'x', namespace: 'default', uid: 'u', creationTimestamp: '2026-01-01T00:00:00Z', ...extra });

describe('addedFieldsV1 against the set operations', () => {
  it('matches for a ConfigMap: string maps, labels, annotations, empty and null members', () => {
    const node = typed.forComponent('io.k8s.api.core.v1.ConfigMap');
    const cases: unknown[] = [
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta(), data: { k: '' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta() },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'only' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta({ labels: { b: '1', a: '2', 'Z/z': '3' }, annotations: {} }), data: { zz: 'a', a: 'b', 'a.b': 'c', '.': 'd' }, binaryData: { x: 'AA==' } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta({ finalizers: ['a/b', 'a/a'], ownerReferences: [{ uid: '1', apiVersion: 'v1', kind: 'X', name: 'o' }] }), immutable: true, data: {} },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta({ labels: null }), data: null },
      { metadata: meta({ generateName: 'g-' }), unknownField: { deep: [1, 2] } },
      { metadata: 'not an object', data: ['wrong', 'type'] },
      {},
    ];
    for (const value of cases) expectSame(value, node);
    expect(addedFieldsV1(cases[0], node, new FieldSet(), REMOVED)).toEqual({ 'f:data': { '.': {}, 'f:k': {} } });
  });

  it('matches for kinds with map lists, set lists, key defaults, duplicates and items without keys', () => {
    const pod = typed.forComponent('io.k8s.api.core.v1.Pod');
    expectSame(
      {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: meta({ labels: { app: 'a' } }),
        spec: {
          containers: [
            { name: 'b', image: 'i', ports: [{ containerPort: 80 }, { containerPort: 80, protocol: 'UDP' }, { containerPort: 80 }], env: [{ name: 'E', value: '1' }] },
            { name: 'a', image: 'j', args: ['x', 'y'], resources: {} },
            { name: 'b', image: 'duplicate' },
            { image: 'no name' },
            'not an object',
          ],
          tolerations: [{ key: 'k', operator: 'Exists' }],
          nodeSelector: {},
        },
        status: { phase: 'Pending' },
      },
      pod,
      STATUS,
    );
    const service = typed.forComponent('io.k8s.api.core.v1.Service');
    expectSame({ metadata: meta(), spec: { ports: [{ port: 443, targetPort: 'https' }, { port: 80, protocol: 'TCP', name: 'http' }], selector: { a: 'b' }, clusterIPs: ['10.0.0.1'] } }, service, STATUS);
    const role = typed.forComponent('io.k8s.api.rbac.v1.ClusterRole');
    expectSame({ metadata: meta(), rules: [{ verbs: ['get'], resources: ['pods'] }], aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } }, role);
  });

  it('matches under dropped prefixes that reach below the top level and removed paths that have children', () => {
    const node = typed.forComponent('io.k8s.api.apps.v1.Deployment');
    const value = { metadata: meta({ labels: { a: 'b' } }), spec: { replicas: 2, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c' }] } } }, status: { replicas: 1 } };
    expectSame(value, node, FieldSet.of([f('spec'), f('template')], [f('status')]));
    expectSame(value, node, FieldSet.of([f('metadata')]), FieldSet.of([f('spec')], [f('spec'), f('replicas')]));
    expectSame(value, node, FieldSet.of([f('metadata')], [f('spec')], [f('status')]));
  });

  it('matches for untyped values, and for values nested deeper than the walk recurses', () => {
    expectSame({ a: { b: [1, { c: 2 }], d: {} }, e: null }, DEDUCED, new FieldSet(), new FieldSet());
    for (const levels of [255, 256, 257, 300, 10_000]) {
      const root: Record<string, unknown> = {};
      let at = root;
      for (let i = 0; i < levels; i++) {
        const next: Record<string, unknown> = { leaf: i };
        at.nested = next;
        at = next;
      }
      expectSame({ metadata: meta(), spec: root }, DEDUCED);
    }
    // Every path of a value deeper than the walk recurses removed: none either way.
    const chain: string[] = [];
    const paths: string[][] = [];
    let deep: Record<string, unknown> = { leaf: 0 };
    for (let i = 0; i < 300; i++) deep = { nested: deep, leaf: i + 1 };
    for (let i = 0; i <= 300; i++) {
      paths.push([...chain, f('leaf')]);
      chain.push(f('nested'));
      if (i < 300) paths.push([...chain]);
    }
    expect(addedFieldsV1(deep, DEDUCED, new FieldSet(), FieldSet.of(...paths))).toBeUndefined();
    expectSame(deep, DEDUCED, new FieldSet(), FieldSet.of(...paths));
  });
});
