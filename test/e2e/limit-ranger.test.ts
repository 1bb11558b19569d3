// LimitRanger over HTTPS through the real server: a pod created in a namespace with a LimitRange
// gets its defaults and the kubernetes.io/limit-ranger annotation; pods and claims out of bounds
// are refused with kube-apiserver's 403 Forbidden, dry run included; pod updates and the
// status subresource are not checked.
import { describe, expect, it } from 'vitest';
import { startServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';
import { useMemoryServer } from '../support/memory-server.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes

const api = useMemoryServer();
const send = (path: string, method: string, body?: unknown) => api.raw(method, path, body);

async function created(path: string, body: Obj): Promise<Obj> {
  const res = await send(path, 'POST', body);
  expect(res.status, res.body).toBe(201);
  return res.json();
}

/** A fresh namespace holding one LimitRange with these items (none: no LimitRange). */
async function namespaceWith(name: string, ...limits: Obj[]): Promise<string> {
  await created('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  if (limits.length) await created(`/api/v1/namespaces/${name}/limitranges`, { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'limits' }, spec: { limits } });
  return name;
}

const pod = (name: string, resources?: Obj): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27', ...(resources ? { resources } : {}) }] },
});

const claim = (name: string, storage: string): Obj => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
});

const forbidden = (resource: string, name: string, why: string): Obj => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: `${resource} "${name}" is forbidden: ${why}`,
  reason: 'Forbidden',
  details: { name, kind: resource },
  code: 403,
});

describe('LimitRanger over HTTPS', () => {
  it('fills a new pod from the LimitRange, annotates it, and its QoS class follows the filled resources', async () => {
    const ns = await namespaceWith('lr-defaults', { type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m', memory: '128Mi' } });
    const got = await created(`/api/v1/namespaces/${ns}/pods`, pod('p1'));
    expect(got.spec.containers[0].resources).toEqual({ limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } });
    expect(got.metadata.annotations).toEqual({ 'kubernetes.io/limit-ranger': 'LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app' });
    expect(got.status.qosClass).toBe('Burstable');
    // kube-apiserver records the writer's fields before admission: what LimitRanger set is nobody's.
    const owned = JSON.stringify(got.metadata.managedFields);
    expect(owned).toContain('f:image');
    expect(owned).not.toContain('f:limits');
    expect(owned).not.toContain('limit-ranger');
    const read = (await send(`/api/v1/namespaces/${ns}/pods/p1`, 'GET')).json<Obj>();
    expect(read.spec.containers[0].resources).toEqual(got.spec.containers[0].resources);
  });

  it('takes a request from the pod\'s own limit before the LimitRange default request', async () => {
    const ns = await namespaceWith('lr-own-limit', { type: 'Container', default: { cpu: '500m' }, defaultRequest: { cpu: '100m' } });
    const got = await created(`/api/v1/namespaces/${ns}/pods`, pod('p1', { limits: { cpu: '300m' } }));
    expect(got.spec.containers[0].resources).toEqual({ limits: { cpu: '300m' }, requests: { cpu: '300m' } });
    expect(got.metadata.annotations).toBeUndefined();
    expect(got.status.qosClass).toBe('Burstable');
  });

  it('fills a pod from a Container max alone, which the LimitRange defaulted into default and defaultRequest', async () => {
    const ns = await namespaceWith('lr-max-only', { type: 'Container', max: { cpu: '1' } });
    const got = await created(`/api/v1/namespaces/${ns}/pods`, pod('p1'));
    expect(got.spec.containers[0].resources).toEqual({ limits: { cpu: '1' }, requests: { cpu: '1' } });
    expect(got.metadata.annotations).toEqual({ 'kubernetes.io/limit-ranger': 'LimitRanger plugin set: cpu request for container app; cpu limit for container app' });
  });

  it('leaves pods alone in a namespace without LimitRanges', async () => {
    const ns = await namespaceWith('lr-none');
    const got = await created(`/api/v1/namespaces/${ns}/pods`, pod('p1'));
    expect(got.spec.containers[0].resources).toBeUndefined();
    expect(got.metadata.annotations).toBeUndefined();
    expect(got.status.qosClass).toBe('BestEffort');
  });

  it.each<[string, Obj, Obj | undefined, string]>([
    ['a limit above max', { type: 'Container', max: { cpu: '1' } }, { limits: { cpu: '4' } }, 'maximum cpu usage per Container is 1, but limit is 4'],
    ['a ratio above the maximum', { type: 'Container', maxLimitRequestRatio: { cpu: '2' } }, { requests: { cpu: '100m' }, limits: { cpu: '4' } }, 'cpu max limit to request ratio per Container is 2, but provided ratio is 40.000000'],
    [
      'several violations',
      { type: 'Pod', max: { cpu: '1', memory: '1Gi' } },
      undefined,
      '[maximum cpu usage per Pod is 1.  No limit is specified, maximum memory usage per Pod is 1Gi.  No limit is specified]',
    ],
    ['a pod total above max', { type: 'Pod', max: { memory: '1Gi' } }, { limits: { memory: '2Gi' } }, 'maximum memory usage per Pod is 1Gi, but limit is 2Gi'],
  ])('refuses a pod with %s: 403 Forbidden, nothing stored', async (name, item, resources, why) => {
    const ns = await namespaceWith(`lr-refuse-${name.replace(/[^a-z]+/g, '-')}`, item);
    const res = await send(`/api/v1/namespaces/${ns}/pods`, 'POST', pod('p2', resources));
    expect(res.status).toBe(403);
    expect(res.json()).toEqual(forbidden('pods', 'p2', why));
    expect((await send(`/api/v1/namespaces/${ns}/pods/p2`, 'GET')).status).toBe(404);
  });

  it('admits dry-run creates too: refused out of bounds, defaulted and not stored within them', async () => {
    const ns = await namespaceWith('lr-dry-run', { type: 'Container', max: { cpu: '1' }, default: { cpu: '1' }, defaultRequest: { cpu: '1' } });
    const refused = await send(`/api/v1/namespaces/${ns}/pods?dryRun=All`, 'POST', pod('p2', { limits: { cpu: '4' } }));
    expect(refused.status).toBe(403);
    expect(refused.json()).toEqual(forbidden('pods', 'p2', 'maximum cpu usage per Container is 1, but limit is 4'));
    const accepted = await send(`/api/v1/namespaces/${ns}/pods?dryRun=All`, 'POST', pod('p3'));
    expect(accepted.status).toBe(201);
    expect(accepted.json<Obj>().spec.containers[0].resources).toEqual({ limits: { cpu: '1' }, requests: { cpu: '1' } });
    expect((await send(`/api/v1/namespaces/${ns}/pods/p3`, 'GET')).status).toBe(404);
  });

  it('bounds claims\' storage requests on create and on every update', async () => {
    const ns = await namespaceWith('lr-claims');
    await created(`/api/v1/namespaces/${ns}/persistentvolumeclaims`, claim('big', '20Gi'));
    await created(`/api/v1/namespaces/${ns}/limitranges`, { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'storage' }, spec: { limits: [{ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } }] } });
    await created(`/api/v1/namespaces/${ns}/persistentvolumeclaims`, claim('ok', '5Gi'));
    const refused = await send(`/api/v1/namespaces/${ns}/persistentvolumeclaims`, 'POST', claim('c2', '20Gi'));
    expect(refused.status).toBe(403);
    expect(refused.json()).toEqual(forbidden('persistentvolumeclaims', 'c2', 'maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi'));
    const small = await send(`/api/v1/namespaces/${ns}/persistentvolumeclaims`, 'POST', claim('c3', '500Mi'));
    expect(small.json()).toEqual(forbidden('persistentvolumeclaims', 'c3', 'minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi'));
    // kube checks the whole claim on update, so a claim made before the LimitRange cannot even be relabelled.
    const big = (await send(`/api/v1/namespaces/${ns}/persistentvolumeclaims/big`, 'GET')).json<Obj>();
    const relabel = await send(`/api/v1/namespaces/${ns}/persistentvolumeclaims/big`, 'PUT', { ...big, metadata: { ...big.metadata, labels: { a: 'b' } } });
    expect(relabel.json()).toEqual(forbidden('persistentvolumeclaims', 'big', 'maximum storage usage per PersistentVolumeClaim is 10Gi, but request is 20Gi'));
    // The status subresource is never checked.
    const status = await send(`/api/v1/namespaces/${ns}/persistentvolumeclaims/big/status`, 'PUT', { ...big, status: { phase: 'Pending' } });
    expect(status.status, status.body).toBe(200);
  });

  it('does not check pod updates or pods/status writes', async () => {
    const ns = await namespaceWith('lr-updates');
    const old = await created(`/api/v1/namespaces/${ns}/pods`, pod('big', { limits: { cpu: '4' } }));
    await created(`/api/v1/namespaces/${ns}/limitranges`, { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'cpu' }, spec: { limits: [{ type: 'Container', max: { cpu: '1' } }] } });
    const relabel = await send(`/api/v1/namespaces/${ns}/pods/big`, 'PUT', { ...old, metadata: { ...old.metadata, labels: { a: 'b' } } });
    expect(relabel.status, relabel.body).toBe(200);
    const current = relabel.json<Obj>();
    const status = await send(`/api/v1/namespaces/${ns}/pods/big/status`, 'PUT', { ...current, status: { ...current.status, phase: 'Running' } });
    expect(status.status, status.body).toBe(200);
    expect(status.json<Obj>().status.phase).toBe('Running');
  });
});

describe('LimitRanger with PodLevelResources', () => {
  const podLevel = (name: string): Obj => ({
    ...pod(name, { requests: { cpu: '100m' } }),
    spec: { ...pod(name, { requests: { cpu: '100m' } }).spec, resources: { requests: { cpu: '500m' }, limits: { cpu: '1' } } },
  });
  const item = { type: 'Pod', max: { cpu: '1' } };

  it('counts the containers while the gate is off (the default)', async () => {
    const ns = await namespaceWith('lr-pod-level-off', item);
    const res = await send(`/api/v1/namespaces/${ns}/pods`, 'POST', podLevel('p2'));
    expect(res.json()).toEqual(forbidden('pods', 'p2', 'maximum cpu usage per Pod is 1.  No limit is specified'));
  });

  it("counts the pod's own cpu once the gate is on", async () => {
    const gated = await startServer({ storage: 'memory', featureGates: 'PodLevelResources=true' });
    try {
      const admin = kubeconfigCredentials(gated.kubeconfig);
      const post = (path: string, body: Obj) =>
        call(gated.url, path, admin, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect((await post('/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'lr' } })).status).toBe(201);
      expect((await post('/api/v1/namespaces/lr/limitranges', { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'l' }, spec: { limits: [item] } })).status).toBe(201);
      const res = await post('/api/v1/namespaces/lr/pods', podLevel('p1'));
      expect(res.status, res.body).toBe(201);
    } finally {
      await gated.close();
    }
  });
});
