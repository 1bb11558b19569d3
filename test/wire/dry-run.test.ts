// dryRun=All on every write over HTTPS: each answers as the real write would (kube-apiserver runs
// the whole flow and only skips the storage write, see DryRunnableStorage upstream), and nothing
// is persisted: a GET afterwards sees the object as before, and a watch from before the dry run
// sees no event of it (only the ADDED of a marker created after it, which proves the watch caught up).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWireServer, type WireResult, type WireServer } from '../support/wire-client.js';

let wire: WireServer;
const NS = 'dry-run';
const CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;
const NAMESPACES = '/api/v1/namespaces';
const JSON_BODY = { 'content-type': 'application/json' };

type Obj = { kind: string; metadata: Record<string, unknown> & { name: string; resourceVersion?: string; uid?: string }; [key: string]: unknown };

beforeAll(async () => {
  wire = await startWireServer();
  await create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
});
afterAll(async () => {
  await wire?.close();
});

async function create(collection: string, obj: unknown): Promise<Obj> {
  const r = await wire.call('POST', collection, { headers: JSON_BODY, body: JSON.stringify(obj) });
  expect(r.status).toBe(201);
  return r.json<Obj>();
}

const configMap = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { set: 'dry' }, ...extra }, data: { k: 'v' } });

const get = async (path: string): Promise<WireResult> => wire.call('GET', path);

/** The collection's resourceVersion now: a watch from it sees every later write. */
async function currentRV(collection: string): Promise<string> {
  return (await get(collection)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
}

let markers = 0;
/** Creates a marker in `collection`, then watches from `rv`: the marker's ADDED must be the only event. */
async function expectNoEventsSince(collection: string, rv: string, marker: (name: string) => unknown): Promise<void> {
  const name = `marker-${++markers}`;
  await create(collection, marker(name));
  const r = await wire.call('GET', `${collection}?watch=1&resourceVersion=${rv}&timeoutSeconds=1`);
  expect(r.status).toBe(200);
  const events = r.text.trim().split('\n').map((line) => JSON.parse(line) as { type: string; object: Obj });
  expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([['ADDED', name]]);
}
const noConfigMapEventsSince = (rv: string) => expectNoEventsSince(CONFIGMAPS, rv, (name) => configMap(name));
const noNamespaceEventsSince = (rv: string) => expectNoEventsSince(NAMESPACES, rv, (name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));

describe('dryRun=All', () => {
  it('PUT answers 200 with the updated object and keeps the stored one', async () => {
    const stored = await create(CONFIGMAPS, configMap('put'));
    const rv = await currentRV(CONFIGMAPS);
    const r = await wire.call('PUT', `${CONFIGMAPS}/put?dryRun=All`, { headers: JSON_BODY, body: JSON.stringify({ ...stored, data: { k: 'changed' } }) });
    expect(r.status).toBe(200);
    const body = r.json<Obj>();
    expect(body.data).toEqual({ k: 'changed' });
    // Nothing was written, so the object keeps the resourceVersion it was read at.
    expect(body.metadata).toMatchObject({ uid: stored.metadata.uid, resourceVersion: stored.metadata.resourceVersion });
    expect((await get(`${CONFIGMAPS}/put`)).json()).toEqual(stored);
    await noConfigMapEventsSince(rv);
  });

  it('a merge PATCH answers 200 with the patched object and keeps the stored one', async () => {
    const stored = await create(CONFIGMAPS, configMap('merge'));
    const rv = await currentRV(CONFIGMAPS);
    const r = await wire.call('PATCH', `${CONFIGMAPS}/merge?dryRun=All`, { headers: { 'content-type': 'application/merge-patch+json' }, body: '{"data":{"added":"1"}}' });
    expect(r.status).toBe(200);
    const body = r.json<Obj>();
    expect(body.data).toEqual({ k: 'v', added: '1' });
    expect(body.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
    expect((await get(`${CONFIGMAPS}/merge`)).json()).toEqual(stored);
    await noConfigMapEventsSince(rv);
  });

  it('an apply PATCH of an existing object answers 200 with the applied fields and their manager', async () => {
    const stored = await create(CONFIGMAPS, configMap('applied'));
    const rv = await currentRV(CONFIGMAPS);
    const intent = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { owned: 'yes' } };
    const r = await wire.call('PATCH', `${CONFIGMAPS}/applied?dryRun=All&fieldManager=dry-applier`, { headers: { 'content-type': 'application/apply-patch+yaml' }, body: JSON.stringify(intent) });
    expect(r.status).toBe(200);
    const body = r.json<Obj & { metadata: { managedFields: { manager: string; operation: string }[] } }>();
    expect(body.data).toEqual({ k: 'v', owned: 'yes' });
    expect(body.metadata.managedFields.map((m) => [m.manager, m.operation])).toContainEqual(['dry-applier', 'Apply']);
    expect(body.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
    expect((await get(`${CONFIGMAPS}/applied`)).json()).toEqual(stored);
    await noConfigMapEventsSince(rv);
  });

  it('an apply PATCH that creates answers 201 with an object that has no resourceVersion', async () => {
    const rv = await currentRV(CONFIGMAPS);
    const intent = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'apply-created' }, data: { a: 'b' } };
    const r = await wire.call('PATCH', `${CONFIGMAPS}/apply-created?dryRun=All&fieldManager=dry-applier`, { headers: { 'content-type': 'application/apply-patch+yaml' }, body: JSON.stringify(intent) });
    expect(r.status).toBe(201);
    const body = r.json<Obj>();
    expect(body.data).toEqual({ a: 'b' });
    // The create flow ran (uid, creationTimestamp, managedFields) but no revision was ever assigned.
    expect(body.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(body.metadata.creationTimestamp).toEqual(expect.any(String));
    expect(body.metadata.resourceVersion).toBeUndefined();
    expect((await get(`${CONFIGMAPS}/apply-created`)).status).toBe(404);
    await noConfigMapEventsSince(rv);
  });

  it('DELETE of an object without finalizers answers the Success Status and keeps the object', async () => {
    const stored = await create(CONFIGMAPS, configMap('deleted'));
    const rv = await currentRV(CONFIGMAPS);
    const r = await wire.call('DELETE', `${CONFIGMAPS}/deleted?dryRun=All`);
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'deleted', kind: 'configmaps', uid: stored.metadata.uid } });
    expect((await get(`${CONFIGMAPS}/deleted`)).json()).toEqual(stored);
    await noConfigMapEventsSince(rv);
  });

  it('DELETE of an object with finalizers answers the object marked for deletion and keeps it unmarked', async () => {
    const stored = await create(CONFIGMAPS, configMap('finalized', { finalizers: ['example.com/hold'] }));
    const rv = await currentRV(CONFIGMAPS);
    const r = await wire.call('DELETE', `${CONFIGMAPS}/finalized?dryRun=All`);
    expect(r.status).toBe(200);
    const body = r.json<Obj>();
    expect(body.kind).toBe('ConfigMap');
    expect(body.metadata).toMatchObject({ finalizers: ['example.com/hold'], deletionGracePeriodSeconds: 0, deletionTimestamp: expect.any(String), resourceVersion: stored.metadata.resourceVersion });
    const after = (await get(`${CONFIGMAPS}/finalized`)).json<Obj>();
    expect(after).toEqual(stored);
    expect(after.metadata.deletionTimestamp).toBeUndefined();
    await noConfigMapEventsSince(rv);
  });

  it('deletecollection answers the list of what it would delete and deletes nothing', async () => {
    const a = await create(CONFIGMAPS, configMap('coll-a', { labels: { set: 'coll' } }));
    const b = await create(CONFIGMAPS, configMap('coll-b', { labels: { set: 'coll' } }));
    const rv = await currentRV(CONFIGMAPS);
    const r = await wire.call('DELETE', `${CONFIGMAPS}?dryRun=All&labelSelector=set%3Dcoll`);
    expect(r.status).toBe(200);
    const body = r.json<{ kind: string; items: Obj[] }>();
    expect(body.kind).toBe('ConfigMapList');
    expect(body.items.map((i) => i.metadata.name).sort()).toEqual(['coll-a', 'coll-b']);
    // Items of a typed list carry no apiVersion and kind, as kube-apiserver's lists encode them.
    const left = (await get(`${CONFIGMAPS}?labelSelector=set%3Dcoll`)).json<{ items: Obj[] }>().items;
    expect(left).toEqual([a, b].map(({ apiVersion: _v, kind: _k, ...item }) => item));
    await noConfigMapEventsSince(rv);
  });

  it('a PUT of namespaces/<name>/status answers the new status and keeps the stored one', async () => {
    const stored = await create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dry-status' } });
    const rv = await currentRV(NAMESPACES);
    const condition = { type: 'NamespaceContentRemaining', status: 'False', reason: 'ContentRemoved', message: 'dry' };
    const r = await wire.call('PUT', `${NAMESPACES}/dry-status/status?dryRun=All`, { headers: JSON_BODY, body: JSON.stringify({ ...stored, status: { phase: 'Active', conditions: [condition] } }) });
    expect(r.status).toBe(200);
    const body = r.json<Obj>();
    expect(body.status).toMatchObject({ phase: 'Active', conditions: [expect.objectContaining(condition)] });
    expect(body.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
    expect((await get(`${NAMESPACES}/dry-status`)).json()).toEqual(stored);
    await noNamespaceEventsSince(rv);
  });

  it('a PUT of namespaces/<name>/finalize answers the finalizers removed and keeps the stored ones', async () => {
    const stored = await create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dry-finalize' } });
    expect(stored.spec).toEqual({ finalizers: ['kubernetes'] });
    const rv = await currentRV(NAMESPACES);
    const r = await wire.call('PUT', `${NAMESPACES}/dry-finalize/finalize?dryRun=All`, { headers: JSON_BODY, body: JSON.stringify({ ...stored, spec: { finalizers: [] } }) });
    expect(r.status).toBe(200);
    const body = r.json<Obj & { spec?: { finalizers?: string[] } }>();
    expect(body.spec?.finalizers ?? []).toEqual([]);
    expect(body.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
    expect((await get(`${NAMESPACES}/dry-finalize`)).json()).toEqual(stored);
    await noNamespaceEventsSince(rv);
  });
});
