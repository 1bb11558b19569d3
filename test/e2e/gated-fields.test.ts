// Feature-gated fields end to end: with PreferSameTrafficDistribution off (the default), an
// EndpointSlice's hints.forNodes is dropped on write, as kube-apiserver drops disabled fields;
// with the gate on it is kept.
import { afterAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';

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

// Pods: kube 1.33's DropDisabledPodFields over HTTP, create (201) and update (200).
const podBody = (extra: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'gated' },
  spec: {
    containers: [{ name: 'app', image: 'nginx', lifecycle: { stopSignal: 'SIGUSR1' } }],
    resources: { limits: { cpu: '1' } },
    ...extra,
  },
});

type PodSpec = { containers: { lifecycle?: { stopSignal?: string } }[]; resources?: unknown };

async function podServer(featureGates?: string) {
  const server = await startServer({ storage: 'memory', featureGates });
  servers.push(server);
  const creds = kubeconfigCredentials(server.kubeconfig);
  const send = (path: string, method: string, body?: unknown) =>
    call(server.url, `/api/v1/namespaces/default/pods${path}`, creds, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  return send;
}

describe('feature-gated Pod fields', () => {
  const cases: [string, string | undefined, boolean][] = [
    ['drops them with the 1.33 defaults', undefined, false],
    ['keeps them with their gates on', 'ContainerStopSignals=true,PodLevelResources=true', true],
  ];
  it.each(cases)('%s, on create and on update', async (_what, gates, kept) => {
    const send = await podServer(gates);
    const created = await send('', 'POST', podBody());
    expect(created.status, created.body).toBe(201);
    const pod = created.json<{ metadata: Record<string, unknown>; spec: PodSpec }>();
    const check = (spec: PodSpec) => {
      expect(spec.containers[0].lifecycle?.stopSignal).toBe(kept ? 'SIGUSR1' : undefined);
      expect(spec.resources).toEqual(kept ? { limits: { cpu: '1' } } : undefined);
    };
    check(pod.spec);
    const put = await send('/gated', 'PUT', { ...podBody(), metadata: pod.metadata, spec: { ...pod.spec, ...podBody().spec, containers: pod.spec.containers.map((c, i) => ({ ...c, ...podBody().spec.containers[i] })) } });
    // The update sends the fields again: dropped again unless the gate is on.
    expect(put.status, put.body).toBe(200);
    check(put.json<{ spec: PodSpec }>().spec);
  });

  it('drops an image volume, with its mounts, while ImageVolume is off', async () => {
    const send = await podServer();
    const res = await send('', 'POST', podBody({ containers: [{ name: 'app', image: 'nginx', volumeMounts: [{ name: 'img', mountPath: '/img' }] }], volumes: [{ name: 'img', image: { reference: 'busybox' } }] }));
    expect(res.status, res.body).toBe(201);
    const spec = res.json<{ spec: { volumes?: { name: string }[]; containers: { volumeMounts?: { name: string }[] }[] } }>().spec;
    // What is left is the ServiceAccount admission plugin's token volume and its mount.
    expect((spec.volumes ?? []).filter((v) => !v.name.startsWith('kube-api-access-'))).toEqual([]);
    expect((spec.containers[0].volumeMounts ?? []).filter((m) => !m.name.startsWith('kube-api-access-'))).toEqual([]);
  });
});
