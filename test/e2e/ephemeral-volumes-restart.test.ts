// Ephemeral volume claims at start-up, on the SQLite store: a pod stored while no server ran gets
// its claim when the server starts, and a claim whose controlling pod was removed meanwhile goes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { startServer } from '../../runtime/index.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import { openStorage } from '../../runtime/storage/index.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes

const dir = mkdtempSync(join(tmpdir(), 'e2e-ephemeral-'));
const dataDir = join(dir, 'data');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const claimSpec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };

describe('ephemeral volume claims across a restart', () => {
  it('creates the claim of a pod stored before start-up and removes the claim of a pod gone meanwhile', async () => {
    // A first start makes the system namespaces (and the certificates).
    await (await startServer({ port: 0, dataDir, storage: 'sqlite' })).close();

    // Written with no controller running, as by a server of an older version.
    const storage = openStorage({ kind: 'sqlite', dataDir });
    const registry = new ResourceRegistry(storage, resources, { watchCache: false });
    const pods = registry.storeFor('', 'v1', 'pods')!;
    const claims = registry.storeFor('', 'v1', 'persistentvolumeclaims')!;
    const stored = await pods.create('default', {
      metadata: { name: 'early' },
      spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], volumes: [{ name: 'data', ephemeral: { volumeClaimTemplate: { spec: claimSpec } } }] },
    });
    const ownerOfGone = { apiVersion: 'v1', kind: 'Pod', name: 'gone', uid: '0b7f3c4e-0000-4000-8000-000000000000', controller: true, blockOwnerDeletion: true };
    await claims.create('default', { metadata: { name: 'gone-data', ownerReferences: [ownerOfGone] }, spec: claimSpec });
    await claims.create('default', { metadata: { name: 'unowned' }, spec: claimSpec });
    registry.close();
    await storage.close();

    const server = await startServer({ port: 0, dataDir, storage: 'sqlite' });
    try {
      const creds = kubeconfigCredentials(server.kubeconfig);
      const claimNames = async (): Promise<string[]> =>
        (await call(server.url, '/api/v1/namespaces/default/persistentvolumeclaims', creds)).json<Obj>().items.map((c: Obj) => c.metadata.name);
      const deadline = Date.now() + 5000;
      let names = await claimNames();
      while (!(names.includes('early-data') && !names.includes('gone-data')) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        names = await claimNames();
      }
      expect(names).toEqual(['early-data', 'unowned']);
      const claim = (await call(server.url, '/api/v1/namespaces/default/persistentvolumeclaims/early-data', creds)).json<Obj>();
      expect(claim.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: 'early', uid: stored.metadata!.uid, controller: true, blockOwnerDeletion: true }]);
    } finally {
      await server.close();
    }
  });
});
