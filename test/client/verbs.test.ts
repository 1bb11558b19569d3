// The typed client against a real server: every verb of a namespaced and a cluster-scoped
// resource, subresources, virtual kinds, pagination, and failures as StatusError with the
// server's code, reason, message and causes.
import { describe, expect, it } from 'vitest';
import { StatusError } from '../../client/index.js';
import type { ConfigMap, Pod } from '../../generated/types/core.v1.js';
import { useClientServer } from './support.js';

const env = useClientServer();

async function failure(p: Promise<unknown>): Promise<StatusError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StatusError);
  return err as StatusError;
}

describe('typed client verbs', () => {
  it('creates, gets, lists, updates and deletes a ConfigMap', async () => {
    const cms = env.client.coreV1.configMaps('default');
    const created = await cms.create({ metadata: { name: 'one', labels: { app: 'a' } }, data: { k: 'v' } });
    expect(created.metadata?.uid).toBeTruthy();
    expect(created.apiVersion).toBe('v1');
    const got = await cms.get('one');
    const data: Record<string, string> | undefined = got.data;
    expect(data).toEqual({ k: 'v' });

    const listed = await cms.list({ labelSelector: 'app=a' });
    expect(listed.items.map((c) => c.metadata?.name)).toEqual(['one']);
    expect(listed.metadata?.resourceVersion).toBeTruthy();

    const updated = await cms.update({ ...got, data: { k: 'w' } });
    expect(updated.data).toEqual({ k: 'w' });
    // The version the update was made against is gone: 409 Conflict, as kube answers.
    const stale = await failure(cms.update({ ...got, data: { k: 'x' } }));
    expect(stale.code).toBe(409);
    expect(stale.reason).toBe('Conflict');
    expect((await cms.get('one')).data).toEqual({ k: 'w' });

    const deleted = await cms.delete('one');
    expect(deleted).toMatchObject({ kind: 'Status', status: 'Success' });
    const gone = await failure(cms.get('one'));
    expect(gone.code).toBe(404);
    expect(gone.reason).toBe('NotFound');
    expect(gone.message).toBe('configmaps "one" not found');
    expect(gone.details).toMatchObject({ name: 'one', kind: 'configmaps' });
  });

  it('patches with merge, JSON and strategic merge patches', async () => {
    const cms = env.client.coreV1.configMaps('default');
    await cms.create({ metadata: { name: 'patched' }, data: { a: '1' } });
    expect((await cms.patch('patched', { data: { b: '2' } }, { type: 'merge' })).data).toEqual({ a: '1', b: '2' });
    expect((await cms.patch('patched', [{ op: 'remove', path: '/data/a' }], { type: 'json' })).data).toEqual({ b: '2' });
    expect((await cms.patch('patched', { data: { c: '3' } }, { type: 'strategic' })).data).toEqual({ b: '2', c: '3' });
    const bad = await failure(cms.patch('patched', [{ op: 'test', path: '/data/b', value: 'nope' }], { type: 'json' }));
    expect(bad.code).toBe(422);
    expect((await cms.get('patched')).data).toEqual({ b: '2', c: '3' });
  });

  it('applies server-side: a second manager conflicts (409 with causes) until it forces', async () => {
    const cms = env.client.coreV1.configMaps('default');
    const applied = await cms.apply({ metadata: { name: 'applied' }, data: { owned: 'by-a' } }, { fieldManager: 'manager-a' });
    expect(applied.metadata?.managedFields?.map((f) => f.manager)).toEqual(['manager-a']);
    const conflict = await failure(cms.apply({ metadata: { name: 'applied' }, data: { owned: 'by-b' } }, { fieldManager: 'manager-b' }));
    expect(conflict.code).toBe(409);
    expect(conflict.reason).toBe('Conflict');
    expect(conflict.details.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "manager-a"', field: '.data.owned' }]);
    expect((await cms.get('applied')).data).toEqual({ owned: 'by-a' });
    const forced = await cms.apply({ metadata: { name: 'applied' }, data: { owned: 'by-b' } }, { fieldManager: 'manager-b', force: true });
    expect(forced.data).toEqual({ owned: 'by-b' });
  });

  it('reports invalid objects as 422 Invalid with the causes', async () => {
    const cms = env.client.coreV1.configMaps('default');
    const invalid = await failure(cms.create({ metadata: { name: 'Not_Valid' } }));
    expect(invalid.code).toBe(422);
    expect(invalid.reason).toBe('Invalid');
    expect(invalid.details.causes?.map((c) => c.field)).toEqual(['metadata.name']);
    expect(invalid.details.causes?.[0].reason).toBe('FieldValueInvalid');
  });

  it('dry-runs a create without storing it', async () => {
    const cms = env.client.coreV1.configMaps('default');
    const dry = await cms.create({ metadata: { name: 'dry' } }, { dryRun: true, fieldManager: 'tester' });
    expect(dry.metadata?.name).toBe('dry');
    expect((await failure(cms.get('dry'))).code).toBe(404);
  });

  it('deletes a collection by label selector', async () => {
    const cms = env.client.coreV1.configMaps('collection');
    await env.client.coreV1.namespaces().create({ metadata: { name: 'collection' } });
    for (const [name, tier] of [['x', 'drop'], ['y', 'drop'], ['z', 'keep']]) await cms.create({ metadata: { name, labels: { tier } } });
    await cms.deleteCollection({ labelSelector: 'tier=drop' });
    expect((await cms.list({ labelSelector: 'tier' })).items.map((c) => c.metadata?.name)).toEqual(['z']);
  });

  it('follows continue tokens in listAll', async () => {
    await env.client.coreV1.namespaces().create({ metadata: { name: 'pages' } });
    const cms = env.client.coreV1.configMaps('pages');
    const names = ['p1', 'p2', 'p3', 'p4', 'p5'];
    for (const name of names) await cms.create({ metadata: { name, labels: { page: 'yes' } } });
    const first = await cms.list({ limit: 2, labelSelector: 'page' });
    expect(first.items).toHaveLength(2);
    expect(first.metadata?.continue).toBeTruthy();
    const seen: string[] = [];
    for await (const cm of cms.listAll({ limit: 2, labelSelector: 'page' })) seen.push(cm.metadata?.name as string);
    expect(seen).toEqual(names);
    // Across all namespaces: the '' namespace lists the cluster-wide path.
    const all: ConfigMap[] = [];
    for await (const cm of env.client.coreV1.configMaps('').listAll({ limit: 3, labelSelector: 'page' })) all.push(cm);
    expect(all.filter((c) => c.metadata?.namespace === 'pages')).toHaveLength(5);
  });

  it('serves cluster-scoped resources without a namespace', async () => {
    const rbac = env.client.rbacV1;
    const binding = await rbac.clusterRoleBindings().get('cluster-admin');
    expect(binding.roleRef?.name).toBe('cluster-admin');
    await rbac.clusterRoles().create({ metadata: { name: 'reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] });
    expect((await rbac.clusterRoles().get('reader')).rules?.[0].verbs).toEqual(['get']);
    const namespaces = await env.client.coreV1.namespaces().list();
    expect(namespaces.items.map((n) => n.metadata?.name)).toContain('default');
  });

  it('writes status through the status subresource and evicts through eviction', async () => {
    const pods = env.client.coreV1.pods('default');
    const pod: Pod = { metadata: { name: 'runner' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
    await pods.create(pod);
    // The main resource ignores status; the subresource writes only status.
    const viaMain = await pods.patch('runner', { status: { phase: 'Running' } }, { type: 'merge' });
    expect(viaMain.status?.phase).not.toBe('Running');
    const viaStatus = await pods.status.patch('runner', { status: { phase: 'Running' } }, { type: 'merge' });
    expect(viaStatus.status?.phase).toBe('Running');
    expect((await pods.status.get('runner')).status?.phase).toBe('Running');

    const eviction = await pods.eviction.create('runner', { metadata: { name: 'runner', namespace: 'default' } });
    expect(eviction).toMatchObject({ kind: 'Status', status: 'Success' });
    expect((await failure(pods.get('runner'))).code).toBe(404);
  });

  it('requests a service account token through the token subresource', async () => {
    const sas = env.client.coreV1.serviceAccounts('default');
    await sas.create({ metadata: { name: 'robot' } });
    const request = await sas.token.create('robot', { spec: { audiences: ['api'], expirationSeconds: 3600 } });
    expect(request.kind).toBe('TokenRequest');
    expect(request.status?.token?.split('.')).toHaveLength(3);
  });

  it('creates virtual kinds: a SelfSubjectReview names the caller', async () => {
    const review = await env.client.authenticationV1.selfSubjectReviews().create({});
    expect(review.status?.userInfo?.groups).toContain('system:masters');
  });

  it('honours an AbortSignal', async () => {
    const controller = new AbortController();
    controller.abort(new Error('stopped by the caller'));
    await expect(env.client.coreV1.configMaps('default').list({ signal: controller.signal })).rejects.toThrow('stopped by the caller');
  });
});
