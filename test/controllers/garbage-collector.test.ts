// The garbage collector end to end over HTTPS: each propagation policy, dangling references,
// cycles, self-references, scope rules and an owner of 1,000 dependents, then kubectl --cascade.
import { describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

const server = useMemoryServer();
const CM = '/api/v1/namespaces/default/configmaps';

async function eventually(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

type Obj = { metadata: { name: string; uid: string; finalizers?: string[]; deletionTimestamp?: string; ownerReferences?: unknown[] } };

async function configMap(name: string, owners: { name: string; uid: string; block?: boolean }[] = []): Promise<Obj> {
  const ownerReferences = owners.map((o) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: o.name, uid: o.uid, ...(o.block ? { blockOwnerDeletion: true } : {}) }));
  const res = await server.send<Obj>('POST', CM, { metadata: { name, ...(ownerReferences.length ? { ownerReferences } : {}) } });
  expect(res.status).toBe(201);
  return res.body;
}

const gone = (name: string) => async () => (await server.send('GET', `${CM}/${name}`)).status === 404;
const get = async (name: string) => (await server.send<Obj>('GET', `${CM}/${name}`)).body;

describe('garbage collector', () => {
  it('Background: the owner goes at once, its dependents after', async () => {
    const owner = await configMap('bg-owner');
    await configMap('bg-dep-1', [owner.metadata]);
    await configMap('bg-dep-2', [owner.metadata]);
    const res = await server.send('DELETE', `${CM}/bg-owner`, { propagationPolicy: 'Background' });
    expect(res.status).toBe(200);
    expect((await server.send('GET', `${CM}/bg-owner`)).status).toBe(404);
    await eventually(gone('bg-dep-1'), 'bg-dep-1 collected');
    await eventually(gone('bg-dep-2'), 'bg-dep-2 collected');
  });

  it('Foreground: the owner waits with foregroundDeletion until blocking dependents are gone', async () => {
    const owner = await configMap('fg-owner');
    await configMap('fg-dep', [{ ...owner.metadata, block: true }]);
    const res = await server.send<Obj>('DELETE', `${CM}/fg-owner`, { propagationPolicy: 'Foreground' });
    expect(res.status).toBe(200);
    expect(res.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(res.body.metadata.deletionTimestamp).toBeTruthy();
    await eventually(gone('fg-dep'), 'fg-dep collected');
    await eventually(gone('fg-owner'), 'fg-owner deleted after its dependent');
  });

  it('Foreground keeps a dependent with another live owner, dropping only the waiting reference', async () => {
    const owner = await configMap('fg2-owner');
    const other = await configMap('fg2-other');
    await configMap('fg2-dep', [{ ...owner.metadata, block: true }, other.metadata]);
    await server.send('DELETE', `${CM}/fg2-owner`, { propagationPolicy: 'Foreground' });
    await eventually(gone('fg2-owner'), 'fg2-owner deleted');
    const dep = await get('fg2-dep');
    expect(dep.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'ConfigMap', name: 'fg2-other', uid: other.metadata.uid }]);
  });

  it('Orphan: dependents are released, then the owner goes', async () => {
    const owner = await configMap('or-owner');
    await configMap('or-dep', [owner.metadata]);
    const res = await server.send<Obj>('DELETE', `${CM}/or-owner`, { propagationPolicy: 'Orphan' });
    expect(res.body.metadata.finalizers).toEqual(['orphan']);
    await eventually(gone('or-owner'), 'or-owner deleted');
    await eventually(async () => (await get('or-dep')).metadata.ownerReferences === undefined, 'or-dep released');
  });

  it('collects dependents whose owner never existed (absent, or a uid mismatch) and keeps those with a live owner', async () => {
    const live = await configMap('dg-live');
    await configMap('dg-absent', [{ name: 'dg-never', uid: '00000000-0000-0000-0000-000000000001' }]);
    await configMap('dg-mismatch', [{ name: 'dg-live', uid: '00000000-0000-0000-0000-000000000002' }]);
    await configMap('dg-kept', [live.metadata, { name: 'dg-never', uid: '00000000-0000-0000-0000-000000000001' }]);
    await eventually(gone('dg-absent'), 'dg-absent collected');
    await eventually(gone('dg-mismatch'), 'dg-mismatch collected');
    await eventually(async () => (await get('dg-kept')).metadata.ownerReferences?.length === 1, 'dangling reference removed');
    expect((await server.send('GET', `${CM}/dg-live`)).status).toBe(200);
  });

  it('leaves references to kinds not served alone, and the server answers', async () => {
    const res = await server.send('POST', CM, {
      metadata: { name: 'unk-dep', ownerReferences: [{ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: '00000000-0000-0000-0000-000000000003' }] },
    });
    expect(res.status).toBe(201);
    await new Promise((r) => setTimeout(r, 300));
    expect((await server.send('GET', `${CM}/unk-dep`)).status).toBe(200);
  });

  it('owner cycles and self-references neither stall nor survive their deletion', async () => {
    const a = await configMap('cy-a');
    const b = await configMap('cy-b', [{ ...a.metadata, block: true }]);
    const patched = await server.raw('PATCH', `${CM}/cy-a`, JSON.stringify({ metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cy-b', uid: b.metadata.uid, blockOwnerDeletion: true }] } }), {
      'content-type': 'application/merge-patch+json',
    });
    expect(patched.status).toBe(200);
    await server.send('DELETE', `${CM}/cy-a`, { propagationPolicy: 'Foreground' });
    await eventually(gone('cy-a'), 'cy-a deleted');
    await eventually(gone('cy-b'), 'cy-b deleted');

    const self = await configMap('self');
    await server.raw('PATCH', `${CM}/self`, JSON.stringify({ metadata: { ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'self', uid: self.metadata.uid, blockOwnerDeletion: true }] } }), {
      'content-type': 'application/merge-patch+json',
    });
    await server.send('DELETE', `${CM}/self`, { propagationPolicy: 'Foreground' });
    await eventually(gone('self'), 'self-owner deleted');
  });

  it('namespace-scoped dependents of a cluster-scoped owner are collected; a cluster-scoped dependent of a namespaced owner is left alone', async () => {
    const ns = (await server.send<Obj>('POST', '/api/v1/namespaces', { metadata: { name: 'gc-owner-ns' } })).body;
    const cr = (await server.send<Obj>('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', { metadata: { name: 'gc-owner-role' } })).body;
    await server.send('POST', CM, { metadata: { name: 'cs-dep', ownerReferences: [{ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', name: 'gc-owner-role', uid: cr.metadata.uid }] } });
    expect(ns.metadata.uid).toBeTruthy();
    await server.send('DELETE', '/apis/rbac.authorization.k8s.io/v1/clusterroles/gc-owner-role');
    await eventually(gone('cs-dep'), 'cs-dep collected');

    const holder = await configMap('ns-owner');
    const res = await server.send('POST', '/apis/rbac.authorization.k8s.io/v1/clusterroles', {
      metadata: { name: 'gc-cluster-dep', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'ns-owner', uid: holder.metadata.uid }] },
    });
    expect(res.status).toBe(201);
    await server.send('DELETE', `${CM}/ns-owner`);
    await new Promise((r) => setTimeout(r, 300));
    expect((await server.send('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/gc-cluster-dep')).status).toBe(200);
  });

  it('a dependent naming an owner seen in another namespace earns OwnerRefInvalidNamespace and is collected', async () => {
    expect((await server.send('POST', '/api/v1/namespaces', { metadata: { name: 'gc-elsewhere' } })).status).toBe(201);
    const OTHER = '/api/v1/namespaces/gc-elsewhere/configmaps';
    const owner = (await server.send<Obj>('POST', OTHER, { metadata: { name: 'far-owner' } })).body;
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'far-owner', uid: owner.metadata.uid };
    expect((await server.send('POST', OTHER, { metadata: { name: 'near-dep', ownerReferences: [ref] } })).status).toBe(201);
    // The owner is known to the graph (through its dependent in its own namespace) before the stray one comes.
    await new Promise((r) => setTimeout(r, 300));
    expect((await server.send('POST', CM, { metadata: { name: 'stray-dep', ownerReferences: [ref] } })).status).toBe(201);
    await eventually(gone('stray-dep'), 'stray-dep collected');
    type Event = { reason: string; message: string; type: string; involvedObject: { name: string } };
    await eventually(async () => {
      const events = await server.send<{ items: Event[] }>('GET', '/api/v1/namespaces/default/events');
      return events.body.items.some((e) => e.reason === 'OwnerRefInvalidNamespace' && e.involvedObject.name === 'stray-dep');
    }, 'the OwnerRefInvalidNamespace event');
    const events = await server.send<{ items: Event[] }>('GET', '/api/v1/namespaces/default/events');
    const event = events.body.items.find((e) => e.reason === 'OwnerRefInvalidNamespace')!;
    expect(event.type).toBe('Warning');
    expect(event.message).toBe(`ownerRef [v1/ConfigMap, namespace: default, name: far-owner, uid: ${owner.metadata.uid}] does not exist in namespace "default"`);
    expect((await server.send('GET', `${OTHER}/near-dep`)).status).toBe(200);
  });

  it('deletes all 1,000 dependents of one owner', async () => {
    const owner = await configMap('many-owner');
    for (let i = 0; i < 1000; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => configMap(`many-${i + j}`, [owner.metadata])));
    }
    await server.send('DELETE', `${CM}/many-owner`, { propagationPolicy: 'Background' });
    await eventually(async () => {
      const list = await server.send<{ items: Obj[] }>('GET', CM);
      return !list.body.items.some((o) => o.metadata.name.startsWith('many-'));
    }, 'all dependents collected', 120_000);
    expect((await server.send('GET', '/api/v1/namespaces')).status).toBe(200);
  }, 240_000);
});
