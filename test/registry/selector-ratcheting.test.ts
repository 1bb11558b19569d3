// Label selector ratcheting: an update is validated with AllowInvalidLabelValueInSelector when
// the stored object's selector already fails validation (ClusterRole's clusterRoleSelectors,
// CSIStorageCapacity's nodeTopology, as their kube 1.33 strategies do), so objects written before
// label values were checked stay updatable. The option skips only the per-value check; every
// other cause, and a bad value in an object stored valid, is still 422 Invalid.

import { afterEach, describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { isStatusError } from '../../runtime/errors/status-error.js';
import type { KubeObject } from '../../runtime/machinery/object.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';

let registry: ResourceRegistry | undefined;
afterEach(() => registry?.close());

const BAD_VALUE = 'not ok';
const expr = (values: string[], operator = 'In') => ({ key: 'tier', operator, values });

const clusterRole = (selectors: unknown[], labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'ClusterRole',
  metadata: { name: 'agg', labels },
  aggregationRule: { clusterRoleSelectors: selectors },
});
const capacity = (topology: unknown, labels: Record<string, string> = {}): KubeObject => ({
  apiVersion: 'storage.k8s.io/v1',
  kind: 'CSIStorageCapacity',
  metadata: { name: 'cap', namespace: 'default', labels },
  storageClassName: 'fast',
  nodeTopology: topology,
});

type Case = [name: string, plural: string, group: string, key: string, stored: KubeObject, update: KubeObject, want: { reason: string; field: string }[]];
const CR = ['clusterroles', 'rbac.authorization.k8s.io', '/registry/clusterroles/agg'] as const;
const CSC = ['csistoragecapacities', 'storage.k8s.io', '/registry/csistoragecapacities/default/cap'] as const;

const cases: Case[] = [
  ['ClusterRole: a stored bad value may stay', ...CR, clusterRole([{ matchExpressions: [expr([BAD_VALUE])] }]), clusterRole([{ matchExpressions: [expr([BAD_VALUE])] }], { a: 'b' }), []],
  ['ClusterRole: a new bad value beside a stored one is allowed too', ...CR, clusterRole([{ matchExpressions: [expr([BAD_VALUE])] }]), clusterRole([{ matchExpressions: [expr([BAD_VALUE])] }, { matchExpressions: [expr(['-x'])] }]), []],
  [
    'ClusterRole: a bad value in an object stored valid',
    ...CR,
    clusterRole([{ matchExpressions: [expr(['ok'])] }]),
    clusterRole([{ matchExpressions: [expr([BAD_VALUE])] }]),
    [{ reason: 'FieldValueInvalid', field: 'aggregationRule.clusterRoleSelectors[0].matchExpressions[0].values[0]' }],
  ],
  [
    'ClusterRole: other selector causes are still reported',
    ...CR,
    clusterRole([{ matchExpressions: [expr([BAD_VALUE])] }]),
    clusterRole([{ matchExpressions: [expr([BAD_VALUE]), expr(['x'], 'Exists')] }]),
    [{ reason: 'FieldValueForbidden', field: 'aggregationRule.clusterRoleSelectors[0].matchExpressions[1].values' }],
  ],
  ['CSIStorageCapacity: a stored bad value may stay', ...CSC, capacity({ matchExpressions: [expr([BAD_VALUE])] }), capacity({ matchExpressions: [expr([BAD_VALUE])] }, { a: 'b' }), []],
  [
    'CSIStorageCapacity: nodeTopology is still immutable',
    ...CSC,
    capacity({ matchExpressions: [expr([BAD_VALUE])] }),
    capacity({ matchExpressions: [expr([BAD_VALUE, 'also bad'])] }),
    [{ reason: 'FieldValueInvalid', field: 'nodeTopology' }],
  ],
  [
    'CSIStorageCapacity: a bad value in an object stored valid',
    ...CSC,
    capacity({ matchLabels: { tier: 'ok' } }),
    capacity({ matchExpressions: [expr([BAD_VALUE])] }),
    [
      { reason: 'FieldValueInvalid', field: 'nodeTopology.matchExpressions[0].values[0]' },
      { reason: 'FieldValueInvalid', field: 'nodeTopology' },
    ],
  ],
];

describe('label selector ratcheting on update', () => {
  it.each(cases)('%s', async (_name, plural, group, key, stored, update, want) => {
    const storage = new MemoryStorage();
    const written = await storage.create(key, JSON.stringify(stored));
    registry = new ResourceRegistry(storage, resources, { watchCache: false });
    const store = registry.storeFor(group, 'v1', plural)!;
    const namespace = (stored.metadata as { namespace?: string }).namespace;
    const name = (stored.metadata as { name: string }).name;
    const body = { ...update, metadata: { ...(update.metadata as object), resourceVersion: String(written.modRevision) } };
    const result = await store.update(namespace, name, body).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (want.length === 0) {
      expect(result).toBeUndefined();
      return;
    }
    expect(isStatusError(result) && result.code).toBe(422);
    const causes = isStatusError(result) ? (result.toStatus().details?.causes ?? []) : [];
    expect(causes.map((c) => ({ reason: c.reason, field: c.field }))).toEqual(want);
  });
});
