// A create that names no managedFields gets its writer's entry without the general Update
// bookkeeping (field-manager.ts, createdBy). That shortcut must give exactly what the general
// path gives: checked here over the served kinds' generated schemas with hand-written objects
// (every list and map type the kinds use), the upstream round-trip fixtures of every kind when
// they are present, and the widget kind of the apply tests (atomic, set and map lists, a
// preserve-unknown-fields subtree, a status the main resource may not own).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { fieldManagerFor } from '../../runtime/registry/apply/field-managers.js';
import type { FieldManager } from '../../runtime/registry/apply/field-manager.js';
import type { ManagedFieldsEntry } from '../../runtime/registry/apply/managed-fields.js';
import type { KubeObject } from '../../runtime/machinery/object.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../support/upstream.js';
import { widget, widgetManager } from './widget-schema.js';

const definitionOf = (group: string, version: string, kind: string) => {
  const found = resources.find((d) => d.group === group && d.version === version && d.kind === kind && !d.virtual);
  if (!found) throw new Error(`no served definition for ${group}/${version} ${kind}`);
  return found;
};

const withoutTimes = (entries: unknown): ManagedFieldsEntry[] | undefined =>
  (entries as ManagedFieldsEntry[] | undefined)?.map(({ time, ...rest }) => {
    expect(time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    return rest;
  });

/** The entries of the create shortcut and of the general Update path, which must agree. */
function bothWays(fm: FieldManager, obj: KubeObject, manager: string): { shortcut?: ManagedFieldsEntry[]; general?: ManagedFieldsEntry[] } {
  const shortcut = withoutTimes(fm.managedFieldsAfterUpdate(undefined, structuredClone(obj), manager));
  const general = withoutTimes(fm.update(undefined, structuredClone(obj), manager).metadata?.managedFields);
  return { shortcut, general };
}

const pod: KubeObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'ns', labels: { app: 'a' }, annotations: {}, finalizers: ['x/y'], uid: 'u', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: {
    containers: [
      { name: 'c', image: 'i', ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 53, protocol: 'UDP', name: 'dns' }], env: [{ name: 'A', value: '1' }], args: [] },
      { name: 'd', image: 'j', resources: { limits: { cpu: '1' } }, volumeMounts: [{ name: 'v', mountPath: '/v' }] },
    ],
    volumes: [{ name: 'v', emptyDir: {} }],
    tolerations: [{ key: 'k', operator: 'Exists' }],
    nodeSelector: { disk: 'ssd' },
    securityContext: {},
  },
  status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] },
};

const handWritten: Array<[string, string, string, KubeObject]> = [
  ['', 'v1', 'ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default', uid: 'u' }, data: { k: '' } }],
  ['', 'v1', 'ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: {}, binaryData: { b: 'AA==' }, immutable: true }],
  ['', 'v1', 'ConfigMap', { metadata: { name: 'only-server-fields', namespace: 'ns', uid: 'u', creationTimestamp: '2026-01-01T00:00:00Z' } }],
  ['', 'v1', 'Pod', pod],
  [
    'discovery.k8s.io',
    'v1',
    'EndpointSlice',
    { metadata: { name: 'e' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
  ],
  ['', 'v1', 'Node', { metadata: { name: 'n' }, spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] }, status: { addresses: [{ type: 'InternalIP', address: '10.0.0.2' }], capacity: { cpu: '2' } } }],
  ['rbac.authorization.k8s.io', 'v1', 'ClusterRole', { metadata: { name: 'r' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: 'b' } }] } }],
  // Fields the schema does not know, and a list item without its key fields, as stored objects may hold.
  ['', 'v1', 'Pod', { metadata: { name: 'p', unknownMeta: { x: 1 } }, spec: { containers: [{ image: 'no-name' }, { name: 'c' }, { name: 'c', image: 'twice' }], unknownList: [1] }, extra: [1, 2] }],
];

describe('managedFields of a create without managedFields of its own', () => {
  it.each(handWritten.map(([g, v, k, o], i) => [`${k} #${i}`, g, v, k, o] as const))('%s: the shortcut gives the general entry', (_, group, version, kind, obj) => {
    const fm = fieldManagerFor(definitionOf(group, version, kind));
    for (const manager of ['kubectl-create', '']) {
      const { shortcut, general } = bothWays(fm, obj, manager);
      expect(shortcut).toEqual(general);
    }
  });

  it('the writer owns what it set, never the server-owned metadata or the status it may not write', () => {
    const fm = fieldManagerFor(definitionOf('', 'v1', 'Pod'));
    const [entry] = bothWays(fm, pod, 'me').shortcut!;
    expect(entry).toMatchObject({ manager: 'me', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1' });
    const fields = entry!.fieldsV1 as Record<string, Record<string, unknown>>;
    expect(Object.keys(fields).sort()).toEqual(['f:metadata', 'f:spec']);
    expect(Object.keys(fields['f:metadata']!).sort()).toEqual(['f:annotations', 'f:finalizers', 'f:labels']);
    expect(fields['f:spec']!['f:containers']).toHaveProperty(['k:{"name":"c"}', 'f:ports', 'k:{"containerPort":53,"protocol":"UDP"}', 'f:name']);
  });

  it('an object that sets only server-owned fields gets no entry, either way', () => {
    const fm = fieldManagerFor(definitionOf('', 'v1', 'ConfigMap'));
    const { shortcut, general } = bothWays(fm, { metadata: { name: 'n', namespace: 'ns' } }, 'me');
    expect(shortcut).toBeUndefined();
    expect(general).toBeUndefined();
  });

  it('widget kind: atomic, set and map lists, unknown-preserving subtrees', () => {
    const fm = widgetManager();
    const obj = widget({
      metadata: { name: 'w', namespace: 'ns', labels: { a: 'b' }, finalizers: ['f'] },
      spec: { replicas: 1, tags: ['a'], flags: ['x', 'y'], ports: [{ port: 80 }, { port: 80, protocol: 'UDP' }], containers: [{ name: 'c', args: [] }], selector: { a: 'b' }, extra: { any: { deep: [1] } } },
      data: { a: '1' },
    });
    const { shortcut, general } = bothWays(fm, obj, 'w');
    expect(shortcut).toEqual(general);
    expect(shortcut).toHaveLength(1);
  });

  it('every upstream round-trip fixture of a served kind', () => {
    if (!upstreamAvailable()) return;
    const dir = join(UPSTREAM_DIR, 'testdata');
    let compared = 0;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
      const [, group, version, kind] = /^(.*)\.(v[^.]+)\.([^.]+)\.json$/.exec(file)!;
      const def = resources.find((d) => d.group === (group === 'core' ? '' : group) && d.version === version && d.kind === kind && !d.virtual);
      if (!def) continue;
      const obj = JSON.parse(readFileSync(join(dir, file), 'utf8')) as KubeObject;
      // The fixtures carry managedFields of their own; a create without them is what is compared.
      delete obj.metadata?.managedFields;
      const { shortcut, general } = bothWays(fieldManagerFor(def), obj, 'fixture');
      expect(shortcut, file).toEqual(general);
      compared++;
    }
    expect(compared).toBeGreaterThan(20);
  });
});
