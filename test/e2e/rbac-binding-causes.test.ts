// A RoleBinding rejected over HTTPS: 422 Invalid whose causes, and the message that joins them,
// follow ValidateRoleBinding's order (roleRef.apiGroup, roleRef.kind, roleRef.name, subjects).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials } from '../server/https-client.js';

let server: RunningServer;
let creds: ReturnType<typeof kubeconfigCredentials>;
beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  creds = kubeconfigCredentials(server.kubeconfig);
});
afterAll(() => server?.close());

it('reports roleRef before subjects in the causes and the message', async () => {
  const res = await call(server.url, '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings', creds, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'b' },
      subjects: [{ kind: 'Robot', name: 'r' }],
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: '' },
    }),
  });
  expect(res.status).toBe(422);
  const body = await res.json<{ reason: string; message: string; details: { causes: { field: string }[] } }>();
  expect(body.reason).toBe('Invalid');
  expect(body.details.causes.map((c) => c.field)).toEqual(['roleRef.name', 'subjects[0].kind']);
  expect(body.message).toBe(
    'RoleBinding.rbac.authorization.k8s.io "b" is invalid: [roleRef.name: Required value, subjects[0].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"]',
  );
});
