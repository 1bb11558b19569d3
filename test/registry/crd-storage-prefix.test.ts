// Where CustomResourceDefinitions and their instances are stored, as kube-apiserver lays them out:
// CRDs at /registry/apiextensions.k8s.io/customresourcedefinitions/<name> (the apiextensions
// server stores under <group>/<resource>), custom resources at /registry/<group>/<plural>/<ns>/<name>.
// A data directory written with the old CRD prefix (/registry/customresourcedefinitions/) is moved
// to kube's at start, and its custom resources are served again.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { openStorage } from '../../runtime/storage/index.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON bodies

const NAME = 'widgets.prefix.example.com';
const NEW_KEY = `/registry/apiextensions.k8s.io/customresourcedefinitions/${NAME}`;
const OLD_KEY = `/registry/customresourcedefinitions/${NAME}`;
const CR_KEY = '/registry/prefix.example.com/widgets/default/w';
const widgets = '/apis/prefix.example.com/v1/namespaces/default/widgets';

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: NAME },
  spec: {
    group: 'prefix.example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', kind: 'Widget' },
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
};

describe('the storage keys of CRDs and custom resources', () => {
  const dir = mkdtempSync(join(tmpdir(), 'crd-prefix-'));
  const dataDir = join(dir, 'data');
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = async () => {
    server = await startServer({ port: 0, storage: 'sqlite', dataDir });
    const creds = kubeconfigCredentials(server.kubeconfig);
    return async (method: string, path: string, body?: unknown) => {
      const res = await call(server!.url, path, creds, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      // Until the custom resource is served its path answers kube's plain-text 404, not JSON.
      const json = String(res.headers['content-type'] ?? '').startsWith('application/json');
      return { status: res.status, body: json ? res.json<Obj>() : ({} as Obj) };
    };
  };
  const stop = async () => {
    await server!.close();
    server = undefined;
  };
  const keys = async () => {
    const storage = openStorage({ kind: 'sqlite', dataDir });
    try {
      return (await storage.list('/registry/')).items.map((kv) => kv.key).filter((k) => k.includes('prefix.example.com'));
    } finally {
      await storage.close();
    }
  };
  const served = async (send: Awaited<ReturnType<typeof start>>) => {
    for (let i = 0; i < 200; i++) {
      const got = await send('GET', `${widgets}/w`);
      if (got.status === 200) return got.body;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the custom resource was never served');
  };

  it('stores a CRD under apiextensions.k8s.io and its instances under their group and plural', async () => {
    const send = await start();
    expect((await send('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(201);
    let created = { status: 0 };
    for (let i = 0; i < 200 && created.status !== 201; i++) {
      created = await send('POST', widgets, { apiVersion: 'prefix.example.com/v1', kind: 'Widget', metadata: { name: 'w' }, size: 3 });
      if (created.status !== 201) await new Promise((r) => setTimeout(r, 25));
    }
    expect(created.status).toBe(201);
    await stop();
    expect((await keys()).sort()).toEqual([NEW_KEY, CR_KEY]);
  });

  it('moves CRDs of a data directory written with the old prefix, and serves their instances again', async () => {
    const storage = openStorage({ kind: 'sqlite', dataDir });
    const kv = (await storage.get(NEW_KEY))!;
    await storage.create(OLD_KEY, kv.value);
    await storage.delete(NEW_KEY);
    await storage.close();
    expect((await keys()).sort()).toEqual([OLD_KEY, CR_KEY]);

    const send = await start();
    expect((await served(send)).size).toBe(3);
    const listed = await send('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${NAME}`);
    expect(listed.status).toBe(200);
    expect(listed.body.spec.group).toBe('prefix.example.com');
    await stop();
    expect((await keys()).sort()).toEqual([NEW_KEY, CR_KEY]);
  });
});
