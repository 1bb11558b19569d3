// A RoleBinding rejected over HTTPS: 422 Invalid whose causes, and the message that joins them,
// follow ValidateRoleBinding's order (roleRef.apiGroup, roleRef.kind, roleRef.name, subjects).
import { expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

const api = useMemoryServer();

it('reports roleRef before subjects in the causes and the message', async () => {
  const res = await api.send<{ reason: string; message: string; details: { causes: { field: string }[] } }>('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'b' },
    subjects: [{ kind: 'Robot', name: 'r' }],
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: '' },
  });
  expect(res.status).toBe(422);
  const body = res.body;
  expect(body.reason).toBe('Invalid');
  expect(body.details.causes.map((c) => c.field)).toEqual(['roleRef.name', 'subjects[0].kind']);
  expect(body.message).toBe(
    'RoleBinding.rbac.authorization.k8s.io "b" is invalid: [roleRef.name: Required value, subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"]',
  );
});
