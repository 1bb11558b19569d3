// The embedded SQLite store is durable: what the API acknowledged before a restart is there after
// it, byte for byte, and resourceVersions keep increasing across the restart.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../runtime/index.js';

const dir = mkdtempSync(join(tmpdir(), 'e2e-restart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function withServer<T>(fn: (core: CoreV1Api) => Promise<T>): Promise<T> {
  const server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: 'sqlite' });
  try {
    const kc = new KubeConfig();
    kc.loadFromString(server.kubeconfig);
    return await fn(kc.makeApiClient(CoreV1Api));
  } finally {
    await server.close();
  }
}

describe('SQLite store across a restart', () => {
  it('keeps objects and continues resourceVersions', async () => {
    const before = await withServer(async (core) => {
      await core.createNamespace({ body: { metadata: { name: 'durable' } } });
      const cm = await core.createNamespacedConfigMap({ namespace: 'durable', body: { metadata: { name: 'kept' }, data: { a: '1' } } });
      const secret = await core.createNamespacedSecret({ namespace: 'durable', body: { metadata: { name: 's' }, stringData: { p: 'w' } } });
      return { cm, secret };
    });

    await withServer(async (core) => {
      const cm = await core.readNamespacedConfigMap({ name: 'kept', namespace: 'durable' });
      expect(cm).toEqual(before.cm);
      const secret = await core.readNamespacedSecret({ name: 's', namespace: 'durable' });
      expect(secret.data).toEqual({ p: Buffer.from('w').toString('base64') });

      const namespaces = await core.listNamespace();
      expect(namespaces.items.map((n) => n.metadata?.name).sort()).toEqual(['default', 'durable', 'kube-node-lease', 'kube-public', 'kube-system']);

      const changed = await core.replaceNamespacedConfigMap({ name: 'kept', namespace: 'durable', body: { ...cm, data: { a: '2' } } });
      expect(Number(changed.metadata!.resourceVersion)).toBeGreaterThan(Number(before.secret.metadata!.resourceVersion));
    });
  });
});

describe('system namespaces across a restart', () => {
  it('leaves those present untouched and makes again the one deleted', async () => {
    const before = await withServer(async (core) => {
      const kept = await core.readNamespace({ name: 'kube-system' });
      await core.deleteNamespace({ name: 'kube-node-lease' });
      for (let i = 0; i < 200; i++) {
        const names = (await core.listNamespace()).items.map((n) => n.metadata?.name);
        if (!names.includes('kube-node-lease')) return kept;
        await new Promise((r) => setTimeout(r, 25));
      }
      throw new Error('kube-node-lease was not deleted');
    });

    await withServer(async (core) => {
      expect(await core.readNamespace({ name: 'kube-system' })).toEqual(before);
      const remade = await core.readNamespace({ name: 'kube-node-lease' });
      expect(remade.status?.phase).toBe('Active');
      expect(Number(remade.metadata!.resourceVersion)).toBeGreaterThan(Number(before.metadata!.resourceVersion));
    });
  });
});
