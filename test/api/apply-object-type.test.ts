// Server-side apply of a body whose apiVersion or kind is not the URL's, over the real server.
// kube-apiserver's field manager checks the group, version and kind first (its outermost
// versionCheckManager) and answers 400 BadRequest `invalid object type: <group>/<version>,
// Kind=<kind>` naming what the body said, before creating or merging anything.

import { describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

type Obj = Record<string, unknown>;

const server = useMemoryServer();
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const ROLES = '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles';
const APPLY = { 'content-type': 'application/apply-patch+yaml' };

const apply = (path: string, body: Obj) => server.raw('PATCH', `${path}?fieldManager=tester`, JSON.stringify(body), APPLY);

async function refused(path: string, body: Obj, message: string): Promise<void> {
  const res = await apply(path, body);
  expect(res.status).toBe(400);
  expect(res.json<Obj>()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400, message });
}

describe('apply with another apiVersion or kind than the URL', () => {
  it('refuses it on create, naming what the body said, and creates nothing', async () => {
    const path = `${CONFIGMAPS}/fresh`;
    await refused(path, { apiVersion: 'apps/v1', kind: 'ConfigMap', metadata: { name: 'fresh' } }, 'invalid object type: apps/v1, Kind=ConfigMap');
    await refused(path, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'fresh' } }, 'invalid object type: /v1, Kind=Secret');
    await refused(path, { kind: 'ConfigMap', metadata: { name: 'fresh' } }, 'invalid object type: /, Kind=ConfigMap');
    await refused(path, { apiVersion: 'a/b/c', kind: 'ConfigMap', metadata: { name: 'fresh' } }, 'invalid object type: /, Kind=ConfigMap');
    await refused(path, { apiVersion: 'v1', metadata: { name: 'fresh' } }, 'invalid object type: /v1, Kind=');
    expect((await server.send('GET', path)).status).toBe(404);
  });

  it('refuses it on an existing object and leaves the object as it was', async () => {
    const path = `${ROLES}/reader`;
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] };
    expect((await apply(path, role)).status).toBe(201);
    const before = (await server.send<Obj>('GET', path)).body;
    await refused(path, { ...role, apiVersion: 'rbac.authorization.k8s.io/v1beta1' }, 'invalid object type: rbac.authorization.k8s.io/v1beta1, Kind=Role');
    await refused(path, { ...role, apiVersion: 'v1' }, 'invalid object type: /v1, Kind=Role');
    await refused(path, { ...role, kind: 'ClusterRole' }, 'invalid object type: rbac.authorization.k8s.io/v1, Kind=ClusterRole');
    expect((await server.send<Obj>('GET', path)).body).toEqual(before);
  });

  it('takes an apiVersion that parses to the URL group version, and stores its usual form', async () => {
    const res = await apply(`${CONFIGMAPS}/slash`, { apiVersion: '/v1', kind: 'ConfigMap', metadata: { name: 'slash' }, data: { a: '1' } });
    expect(res.status).toBe(201);
    const stored = (await server.send<Obj>('GET', `${CONFIGMAPS}/slash`)).body;
    expect(stored).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } });
  });
});
