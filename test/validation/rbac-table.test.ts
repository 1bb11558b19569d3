// The Table kubectl prints for RBAC kinds (`kubectl get clusterrolebindings -o wide`): the
// columns of printer-columns.json, computed from the generated printer columns.

import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { cellFunction } from '../../runtime/api/table-cells.js';

const columnsOf = (plural: string) => {
  const def = resources.find((r) => r.group === 'rbac.authorization.k8s.io' && r.plural === plural);
  if (!def) throw new Error(`${plural} is not served`);
  return def.printerColumns;
};
const now = new Date('2024-01-01T00:10:00Z');
const row = (plural: string, obj: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(columnsOf(plural).map((c) => [c.name, cellFunction(c)(obj, now)]));

describe('RBAC printer columns', () => {
  it('shows a binding with Role as Kind/name and subjects by kind (wide)', () => {
    const crb = {
      metadata: { name: 'admins', creationTimestamp: '2024-01-01T00:05:00Z' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'Group', name: 'system:masters' },
        { kind: 'User', name: 'bob' },
        { kind: 'ServiceAccount', name: 'default', namespace: 'kube-system' },
      ],
    };
    expect(row('clusterrolebindings', crb)).toEqual({
      Name: 'admins',
      Role: 'ClusterRole/cluster-admin',
      Age: '5m',
      Users: 'alice, bob',
      Groups: 'system:masters',
      // rbac.SubjectsStrings writes a service account as namespace/name.
      ServiceAccounts: 'kube-system/default',
    });
    expect(columnsOf('clusterrolebindings').filter((c) => c.priority === 1).map((c) => c.name)).toEqual(['Users', 'Groups', 'ServiceAccounts']);
  });

  it('shows empty subject columns for a binding without subjects', () => {
    const rb = { metadata: { name: 'r', namespace: 'd', creationTimestamp: '2024-01-01T00:09:00Z' }, roleRef: { kind: 'Role', name: 'reader' } };
    expect(row('rolebindings', rb)).toMatchObject({ Role: 'Role/reader', Users: '', Groups: '', ServiceAccounts: '' });
  });

  it('shows roles with their creation time', () => {
    const role = { metadata: { name: 'reader', namespace: 'd', creationTimestamp: '2024-01-01T00:09:00Z' } };
    expect(row('roles', role)).toEqual({ Name: 'reader', 'Created At': '2024-01-01T00:09:00Z' });
    expect(row('clusterroles', { ...role, metadata: { name: 'view', creationTimestamp: '2024-01-01T00:00:00Z' } })).toEqual({ Name: 'view', 'Created At': '2024-01-01T00:00:00Z' });
  });
});
