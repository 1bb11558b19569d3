// Feature-gated fields end to end: with PreferSameTrafficDistribution off (the default), an
// EndpointSlice's hints.forNodes is dropped on write, as kube-apiserver drops disabled fields;
// with the gate on it is kept.
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials } from '../server/https-client.js';

const servers: RunningServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.close())));

const slice = {
  apiVersion: 'discovery.k8s.io/v1',
  kind: 'EndpointSlice',
  metadata: { name: 'web' },
  addressType: 'IPv4',
  endpoints: [{ addresses: ['10.0.0.1'], hints: { forZones: [{ name: 'a' }], forNodes: [{ name: 'n1' }] } }],
  ports: [{ name: 'http', port: 80 }],
};

async function create(featureGates?: string) {
  const server = await startServer({ storage: 'memory', featureGates });
  servers.push(server);
  const creds = kubeconfigCredentials(server.kubeconfig);
  const res = await call(server.url, '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices', creds, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(slice),
  });
  expect(res.status).toBe(201);
  return res.json<{ endpoints: { hints: Record<string, unknown> }[]; ports: { protocol: string }[] }>();
}

describe('feature-gated fields', () => {
  it('drops hints.forNodes while PreferSameTrafficDistribution is off', async () => {
    const created = await create();
    expect(created.endpoints[0].hints).toEqual({ forZones: [{ name: 'a' }] });
    expect(created.ports[0].protocol).toBe('TCP');
  });

  it('keeps hints.forNodes when the gate is on', async () => {
    const created = await create('PreferSameTrafficDistribution=true');
    expect(created.endpoints[0].hints).toEqual({ forZones: [{ name: 'a' }], forNodes: [{ name: 'n1' }] });
  });
});
