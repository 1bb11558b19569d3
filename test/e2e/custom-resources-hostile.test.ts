// Custom resources among the rest of the server: the garbage collector follows them as owners and
// as dependents; deleting a namespace deletes the custom resources in it; writes racing a CRD's
// schema change each get an answer and never a 5xx; a CRD naming a built-in resource leaves the
// built-in served (kube-apiserver's own routes come before the CRD handler); YAML bodies work.

import { encode, Tag } from 'cbor2';
import { decodeCBOR } from '../../runtime/api/cbor.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCRD } from '../support/crds.js';
import { useMemoryServer } from '../support/memory-server.js';
import { startWireServer, type WireServer } from '../support/wire-client.js';

type Obj = Record<string, any>;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const server = useMemoryServer();

function widgets(group: string, properties: Obj = { size: { type: 'integer' } }, extra: Obj = {}): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `widgets.${group}`, ...extra },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } } } }],
    },
  };
}

async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Creates the CRD; the naming and establishing controllers make it Established and it is served. */
async function establish(crd: Obj, probePath?: string): Promise<void> {
  await createCRD(server, crd, probePath ?? `/apis/${crd.spec.group}/v1/namespaces/default/${crd.spec.names.plural}`);
}

describe('custom resources with the rest of the server', () => {
  it('the garbage collector deletes the dependents of a custom resource, and custom resources owned by a ConfigMap', async () => {
    const group = 'gc.example.com';
    await establish(widgets(group));
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    const owner = (await server.send<Obj>('POST', base, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'owner' } })).body;
    const ref = { apiVersion: `${group}/v1`, kind: 'Widget', name: 'owner', uid: owner.metadata.uid };
    const dependent = await server.send<Obj>('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'owned-by-widget', ownerReferences: [ref] } });
    expect(dependent.status).toBe(201);
    const cmOwner = (await server.send<Obj>('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'cm-owner' } })).body;
    const widgetDependent = await server.send<Obj>('POST', base, {
      apiVersion: `${group}/v1`,
      kind: 'Widget',
      metadata: { name: 'owned-by-cm', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'cm-owner', uid: cmOwner.metadata.uid }] },
    });
    expect(widgetDependent.status).toBe(201);

    expect((await server.send('DELETE', `${base}/owner`)).status).toBe(200);
    await until('the ConfigMap owned by the widget collected', async () => (await server.send('GET', '/api/v1/namespaces/default/configmaps/owned-by-widget')).status === 404);
    expect((await server.send('DELETE', '/api/v1/namespaces/default/configmaps/cm-owner')).status).toBe(200);
    await until('the widget owned by the ConfigMap collected', async () => (await server.send('GET', `${base}/owned-by-cm`)).status === 404);
  });

  it('deleting a namespace deletes the custom resources in it', async () => {
    const group = 'ns.example.com';
    await establish(widgets(group));
    expect((await server.send('POST', '/api/v1/namespaces', { metadata: { name: 'doomed' } })).status).toBe(201);
    const base = `/apis/${group}/v1/namespaces/doomed/widgets`;
    expect((await server.send('POST', base, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w' } })).status).toBe(201);
    expect((await server.send('DELETE', '/api/v1/namespaces/doomed')).status).toBe(200);
    await until('the namespace gone', async () => (await server.send('GET', '/api/v1/namespaces/doomed')).status === 404);
    expect((await server.send<Obj>('GET', base)).body.items).toEqual([]);
  });

  it('writes racing changes of the CRD\'s schema are each answered, never with a 5xx, and what is stored matches a schema', async () => {
    const group = 'race.example.com';
    await establish(widgets(group));
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    const writes = Array.from({ length: 40 }, (_, i) => server.send<Obj>('POST', base, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: `w${i}` }, spec: { size: i, color: 'red' } }));
    const updates = (async () => {
      for (let i = 0; i < 6; i++) {
        const current = (await server.send<Obj>('GET', `${CRDS}/widgets.${group}`)).body;
        const properties = i % 2 === 0 ? { size: { type: 'integer' }, color: { type: 'string' } } : { size: { type: 'integer' } };
        current.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties = properties;
        const res = await server.send('PUT', `${CRDS}/widgets.${group}`, current);
        expect([200, 409]).toContain(res.status);
      }
    })();
    const results = await Promise.all(writes);
    await updates;
    for (const r of results) {
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      // Either schema may have been the one in force: color kept or pruned, size always kept.
      expect(Object.keys(r.body.spec).every((k) => k === 'size' || k === 'color')).toBe(true);
      expect(r.body.spec.size).toBeTypeOf('number');
    }
    const list = await server.send<Obj>('GET', base);
    expect(list.body.items).toHaveLength(40);
    expect((await server.raw('GET', '/readyz')).status).toBe(200);
  });

  it('a CRD naming a built-in resource leaves the built-in served', async () => {
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'roles.rbac.authorization.k8s.io', annotations: { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/1' } },
      spec: {
        group: 'rbac.authorization.k8s.io',
        scope: 'Namespaced',
        names: { plural: 'roles', singular: 'role', kind: 'Role' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    };
    await establish(crd, '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles');
    // Still the built-in Role: its rules are validated, and a custom field is refused as unknown.
    const res = await server.send<Obj>('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles?fieldValidation=Strict', {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'r' },
      custom: true,
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('unknown field "custom"');
    const discovery = await server.send<Obj>('GET', '/apis/rbac.authorization.k8s.io/v1');
    expect(discovery.body.resources.find((r: Obj) => r.name === 'roles').storageVersionHash).not.toBe('');
    const groups = (await server.send<Obj>('GET', '/apis')).body.groups.filter((g: Obj) => g.name === 'rbac.authorization.k8s.io');
    expect(groups).toHaveLength(1);
  });

  it('takes YAML bodies', async () => {
    const group = 'yaml.example.com';
    await establish(widgets(group));
    const yaml = `apiVersion: ${group}/v1\nkind: Widget\nmetadata:\n  name: from-yaml\nspec:\n  size: 3\n`;
    const res = await server.raw('POST', `/apis/${group}/v1/namespaces/default/widgets`, yaml, { 'content-type': 'application/yaml' });
    expect(res.status, res.body.toString()).toBe(201);
    expect(res.json<Obj>().spec).toEqual({ size: 3 });
  });
});

describe('custom resources across a restart', () => {
  it('are served again once /readyz passes (crd-informer-synced)', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { startServer } = await import('../../runtime/index.js');
    const { call, kubeconfigCredentials } = await import('../support/https-client.js');
    const dir = mkdtempSync(join(tmpdir(), 'crd-restart-'));
    try {
      const group = 'restart.example.com';
      let server = await startServer({ port: 0, dataDir: dir, storage: 'sqlite' });
      const send = async (method: string, path: string, body?: unknown) => {
        const creds = kubeconfigCredentials(server.kubeconfig);
        const res = await call(server.url, path, creds, { method, headers: body ? { 'content-type': 'application/json' } : {}, ...(body ? { body: JSON.stringify(body) } : {}) });
        return { status: res.status, body: res.body.length ? (() => { try { return res.json<Obj>(); } catch { return {}; } })() : {} };
      };
      expect((await send('POST', CRDS, widgets(group))).status).toBe(201);
      const base = `/apis/${group}/v1/namespaces/default/widgets`;
      await until('served', async () => (await send('GET', base)).status === 200);
      expect((await send('POST', base, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'kept' }, spec: { size: 1 } })).status).toBe(201);
      await server.close();

      server = await startServer({ port: 0, dataDir: dir, storage: 'sqlite' });
      await until('ready', async () => (await send('GET', '/readyz')).status === 200);
      const got = await send('GET', `${base}/kept`);
      expect(got.status).toBe(200);
      expect(got.body.spec).toEqual({ size: 1 });
      await server.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('custom resources as CBOR (CBORServingAndStorage on)', () => {
  let wire: WireServer;
  beforeAll(async () => {
    wire = await startWireServer({ featureGates: { CBORServingAndStorage: true } });
  });
  afterAll(() => wire?.close());

  it('takes a CBOR body and answers in CBOR', async () => {
    const group = 'cbor.example.com';
    const json = { 'content-type': 'application/json' };
    expect((await wire.call('POST', CRDS, { headers: json, body: JSON.stringify(widgets(group)) })).status).toBe(201);
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    await until('served', async () => (await wire.call('GET', base)).status === 200);
    // kube's CBOR bodies start with the self-described tag 55799.
    const body = encode(new Tag(55799, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'c' }, spec: { size: 2 } }));
    const res = await wire.call('POST', base, { headers: { 'content-type': 'application/cbor', accept: 'application/cbor' }, body });
    expect(res.status, res.text).toBe(201);
    expect(res.headers['content-type']).toBe('application/cbor');
    // The server's own decoder reads kube's encoding back (strings as byte strings).
    const obj = decodeCBOR(new Uint8Array(res.raw)) as Obj;
    expect(obj.spec).toEqual({ size: 2 });
    const read = await wire.call('GET', `${base}/c`, { headers: { accept: 'application/json' } });
    expect(read.json<Obj>().spec).toEqual({ size: 2 });
  });
});

describe('a CRD being deleted', () => {
  const server2 = useMemoryServer();

  it('refuses new instances while an instance held by its own finalizer keeps it terminating, and goes once that instance goes', async () => {
    const group = 'terminating.example.com';
    const crd = widgets(group);
    expect((await server2.send<Obj>('POST', CRDS, crd)).status).toBe(201);
    const base = `/apis/${group}/v1/namespaces/default/widgets`;
    await until('served', async () => (await server2.raw('GET', base)).status === 200);
    const held = await server2.send<Obj>('POST', base, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    expect(held.status).toBe(201);

    expect((await server2.send('DELETE', `${CRDS}/widgets.${group}`)).status).toBe(200);
    await until('creates refused', async () => (await server2.send('POST', base, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'late' } })).status === 405);
    const refused = await server2.send<Obj>('POST', base, { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'late' } });
    expect(refused.body).toMatchObject({ reason: 'MethodNotAllowed', message: 'create not allowed while custom resource definition is terminating' });
    // Reads still work, and the held instance is marked for deletion.
    const marked = await server2.send<Obj>('GET', `${base}/held`);
    expect(marked.body.metadata.deletionTimestamp).toBeDefined();
    const crdNow = (await server2.send<Obj>('GET', `${CRDS}/widgets.${group}`)).body;
    expect(crdNow.status.conditions.find((c: Obj) => c.type === 'Terminating')).toMatchObject({ status: 'True', reason: 'InstanceDeletionInProgress' });

    const released = await server2.raw('PATCH', `${base}/held`, JSON.stringify([{ op: 'remove', path: '/metadata/finalizers' }]), { 'content-type': 'application/json-patch+json' });
    expect([200, 404]).toContain(released.status);
    await until('the CRD gone', async () => (await server2.send('GET', `${CRDS}/widgets.${group}`)).status === 404, 20_000);
    expect((await server2.raw('GET', base)).status).toBe(404);
  }, 30_000);
});
