// @kubernetes/client-node end to end: typed CRUD, list, and an informer (list then watch) that
// must see adds, updates and deletes, against the real server over HTTPS.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../runtime/index.js';

type Server = Awaited<ReturnType<typeof startServer>>;

let server: Server;
let dir: string;
let core: CoreV1Api;
let kc: KubeConfig;
const namespace = 'client-node';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'e2e-client-node-'));
  server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: 'sqlite' });
  kc = new KubeConfig();
  kc.loadFromString(server.kubeconfig);
  core = kc.makeApiClient(CoreV1Api);
  await core.createNamespace({ body: { metadata: { name: namespace } } });
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('@kubernetes/client-node', () => {
  it('creates, reads, replaces, patches, lists and deletes configmaps', async () => {
    const created = await core.createNamespacedConfigMap({
      namespace,
      body: { metadata: { name: 'crud', labels: { app: 'demo' } }, data: { a: '1' } },
    });
    expect(created.metadata?.uid).toBeTruthy();
    expect(created.data).toEqual({ a: '1' });

    const read = await core.readNamespacedConfigMap({ name: 'crud', namespace });
    expect(read.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);

    read.data = { a: '2' };
    const replaced = await core.replaceNamespacedConfigMap({ name: 'crud', namespace, body: read });
    expect(replaced.data).toEqual({ a: '2' });
    expect(replaced.metadata?.resourceVersion).not.toBe(created.metadata?.resourceVersion);

    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'other' }, data: { b: '1' } } });
    // The root CA publisher's ConfigMap is in every namespace, as in any cluster.
    await expect.poll(async () => (await core.listNamespacedConfigMap({ namespace })).items.length).toBe(3);
    const all = await core.listNamespacedConfigMap({ namespace });
    expect(all.items.map((i) => i.metadata?.name).sort()).toEqual(['crud', 'kube-root-ca.crt', 'other']);
    expect(all.metadata?.resourceVersion).toBeTruthy();
    const labelled = await core.listNamespacedConfigMap({ namespace, labelSelector: 'app=demo' });
    expect(labelled.items.map((i) => i.metadata?.name)).toEqual(['crud']);

    await core.deleteNamespacedConfigMap({ name: 'other', namespace });
    await expect(core.readNamespacedConfigMap({ name: 'other', namespace })).rejects.toMatchObject({ code: 404 });
  });

  it('reports a stale replace as a 409 conflict', async () => {
    const current = await core.readNamespacedConfigMap({ name: 'crud', namespace });
    await core.replaceNamespacedConfigMap({ name: 'crud', namespace, body: { ...current, data: { a: '3' } } });
    await expect(
      core.replaceNamespacedConfigMap({ name: 'crud', namespace, body: { ...current, data: { a: 'stale' } } }),
    ).rejects.toMatchObject({ code: 409 });
  });

  it('runs an informer that sees adds, updates and deletes', async () => {
    const informer = makeInformer<V1ConfigMap>(kc, `/api/v1/namespaces/${namespace}/configmaps`, () =>
      core.listNamespacedConfigMap({ namespace }),
    );
    const events: string[] = [];
    informer.on('add', (o) => events.push(`add ${o.metadata?.name}`));
    informer.on('update', (o) => events.push(`update ${o.metadata?.name} ${o.data?.v ?? ''}`));
    informer.on('delete', (o) => events.push(`delete ${o.metadata?.name}`));
    await informer.start();
    try {
      await expect.poll(() => events).toContain('add crud');
      await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'informed' }, data: { v: '1' } } });
      await expect.poll(() => events).toContain('add informed');
      const current = await core.readNamespacedConfigMap({ name: 'informed', namespace });
      await core.replaceNamespacedConfigMap({ name: 'informed', namespace, body: { ...current, data: { v: '2' } } });
      await expect.poll(() => events).toContain('update informed 2');
      await core.deleteNamespacedConfigMap({ name: 'informed', namespace });
      await expect.poll(() => events).toContain('delete informed');
      expect(informer.list(namespace).map((o) => o.metadata?.name).sort()).toEqual(['crud', 'kube-root-ca.crt']);
    } finally {
      await informer.stop();
    }
  });
});
