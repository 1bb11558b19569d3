// Pods over HTTPS: create resets status to Pending with a QoS class; the status subresource
// writes status only; the pods/eviction subresource (policy/v1 or v1beta1 Eviction) deletes the
// pod honouring its deleteOptions and answers 201 Success; a pod bound to a node terminates
// gracefully; field selectors and the Table columns of `kubectl get pods`.
import { describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes

const api = useMemoryServer();
const PODS = '/api/v1/namespaces/default/pods';
const send = (path: string, method: string, body?: unknown, contentType = 'application/json') => api.raw(method, path, body, { 'content-type': contentType });

const pod = (name: string, spec: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27', resources: { limits: { cpu: '100m', memory: '64Mi' } } }], ...spec },
  status: { phase: 'Running' },
});

async function createPod(name: string, spec: Obj = {}): Promise<Obj> {
  const res = await send(PODS, 'POST', pod(name, spec));
  expect(res.status, res.body).toBe(201);
  return res.json();
}

describe('pods over HTTPS', () => {
  it('creates a pod with status Pending and its QoS class, ignoring the sent status', async () => {
    const created = await createPod('created');
    expect(created.status).toEqual({ phase: 'Pending', qosClass: 'Guaranteed' });
    expect(created.metadata.generation).toBe(1);
    expect(created.spec.containers[0].resources.requests).toEqual({ cpu: '100m', memory: '64Mi' });
  });

  it('rejects an invalid pod with 422 and kube causes', async () => {
    const res = await send(PODS, 'POST', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bad' }, spec: { containers: [] } });
    expect(res.status).toBe(422);
    const status = res.json<Obj>();
    expect(status.reason).toBe('Invalid');
    expect(status.details.causes).toEqual([{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' }]);
  });

  it('reports volume causes in ValidateVolumes order: source before name, no Duplicate of a faulty namesake', async () => {
    const volumes = [{ name: '', configMap: {} }, { name: 'a', configMap: {} }, { name: 'a', emptyDir: {} }];
    const res = await send(PODS, 'POST', pod('bad-volumes', { volumes }));
    expect(res.status).toBe(422);
    expect(res.json<Obj>().details.causes).toEqual([
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.volumes[0].configMap.name' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.volumes[0].name' },
      { reason: 'FieldValueRequired', message: 'Required value', field: 'spec.volumes[1].configMap.name' },
    ]);
  });

  it('writes status through the status subresource and keeps the spec', async () => {
    const created = await createPod('status');
    const next = { ...created, spec: { ...created.spec, restartPolicy: 'Never' }, status: { ...created.status, phase: 'Running', podIP: '10.1.0.5', podIPs: [{ ip: '10.1.0.5' }] } };
    const res = await send(`${PODS}/status/status`, 'PUT', next);
    expect(res.status, res.body).toBe(200);
    const updated = res.json<Obj>();
    expect(updated.status.phase).toBe('Running');
    expect(updated.spec.restartPolicy).toBe('Always');
    const selected = await send(`${PODS}?fieldSelector=status.phase%3DRunning`, 'GET');
    expect(selected.json<Obj>().items.map((p: Obj) => p.metadata.name)).toEqual(['status']);
  });

  it('refuses, with 422, a status write that restarts a terminated container of a restartPolicy Never pod', async () => {
    const created = await createPod('never', { restartPolicy: 'Never' });
    const terminated = { name: 'app', state: { terminated: { exitCode: 0 } }, ready: false, restartCount: 0, image: 'nginx:1.27', imageID: '' };
    const stored = await send(`${PODS}/never/status`, 'PUT', { ...created, status: { ...created.status, phase: 'Succeeded', containerStatuses: [terminated] } });
    expect(stored.status, stored.body).toBe(200);
    const running = { ...terminated, state: { running: {} } };
    const res = await send(`${PODS}/never/status`, 'PUT', { ...stored.json<Obj>(), status: { ...stored.json<Obj>().status, phase: 'Running', containerStatuses: [running] } });
    expect(res.status, res.body).toBe(422);
    const status = res.json<Obj>();
    expect(status.reason).toBe('Invalid');
    expect(status.details.causes).toEqual([{ reason: 'FieldValueForbidden', message: 'Forbidden: may not be transitioned to non-terminated state', field: 'status.containerStatuses[0].state' }]);
  });

  it('refuses a spec change other than images through the main resource', async () => {
    const created = await createPod('immutable');
    const res = await send(`${PODS}/immutable`, 'PUT', { ...created, spec: { ...created.spec, restartPolicy: 'Never' } });
    expect(res.status).toBe(422);
    expect(res.json<Obj>().details.causes[0]).toMatchObject({ reason: 'FieldValueForbidden', field: 'spec' });
  });

  it('evicts a pod with a policy/v1 Eviction: 201 Success, and the pod is gone', async () => {
    await createPod('evict-me');
    const res = await send(`${PODS}/evict-me/eviction`, 'POST', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evict-me', namespace: 'default' } });
    expect(res.status, res.body).toBe(201);
    expect(res.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' });
    expect((await send(`${PODS}/evict-me`, 'GET')).status).toBe(404);
  });

  it('accepts a policy/v1beta1 Eviction', async () => {
    await createPod('evict-beta');
    const res = await send(`${PODS}/evict-beta/eviction`, 'POST', { apiVersion: 'policy/v1beta1', kind: 'Eviction', metadata: { name: 'evict-beta' } });
    expect(res.status, res.body).toBe(201);
  });

  it('records a DisruptionTarget condition on a pod that terminates gracefully', async () => {
    await createPod('evict-bound', { nodeName: 'node-1' });
    const res = await send(`${PODS}/evict-bound/eviction`, 'POST', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evict-bound' } });
    expect(res.status, res.body).toBe(201);
    const pod = (await send(`${PODS}/evict-bound`, 'GET')).json<Obj>();
    expect(typeof pod.metadata.deletionTimestamp).toBe('string');
    expect(pod.status.conditions).toEqual([{ type: 'DisruptionTarget', status: 'True', lastTransitionTime: expect.any(String), reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }]);
  });

  it('honours a resourceVersion precondition that matches', async () => {
    const created = await createPod('evict-rv');
    const res = await send(`${PODS}/evict-rv/eviction`, 'POST', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'evict-rv' }, deleteOptions: { preconditions: { resourceVersion: created.metadata.resourceVersion } } });
    expect(res.status, res.body).toBe(201);
    expect((await send(`${PODS}/evict-rv`, 'GET')).status).toBe(404);
  });

  it('honours dryRun: the pod stays', async () => {
    await createPod('dry');
    const res = await send(`${PODS}/dry/eviction`, 'POST', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'dry' }, deleteOptions: { dryRun: ['All'] } });
    expect(res.status).toBe(201);
    expect((await send(`${PODS}/dry`, 'GET')).status).toBe(200);
  });

  it('honours preconditions: a wrong uid is a 409 Conflict', async () => {
    await createPod('guarded');
    const res = await send(`${PODS}/guarded/eviction`, 'POST', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'guarded' }, deleteOptions: { preconditions: { uid: 'not-the-uid' } } });
    expect(res.status).toBe(409);
    expect(res.json<Obj>().reason).toBe('Conflict');
    expect((await send(`${PODS}/guarded`, 'GET')).status).toBe(200);
  });

  it('answers 404 for a missing pod and 400 for a name mismatch', async () => {
    const missing = await send(`${PODS}/nobody/eviction`, 'POST', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'nobody' } });
    expect(missing.status).toBe(404);
    expect(missing.json<Obj>()).toMatchObject({ reason: 'NotFound', message: 'pods "nobody" not found' });
    await createPod('named');
    const mismatch = await send(`${PODS}/named/eviction`, 'POST', { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'other' } });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json<Obj>()).toMatchObject({ reason: 'BadRequest', message: 'name in URL does not match name in Eviction object' });
  });

  it('rejects a body of another kind with 400 and GET on eviction with 405', async () => {
    await createPod('kinds');
    const wrong = await send(`${PODS}/kinds/eviction`, 'POST', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'kinds' } });
    expect(wrong.status).toBe(400);
    expect((await send(`${PODS}/kinds/eviction`, 'GET')).status).toBe(405);
  });

  it('lists pods/eviction in discovery as policy/v1 Eviction', async () => {
    const list = (await send('/api/v1', 'GET')).json<Obj>();
    expect(list.resources.find((r: Obj) => r.name === 'pods/eviction')).toEqual({ name: 'pods/eviction', singularName: '', namespaced: true, group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
  });

  it('terminates a pod bound to a node gracefully, and removes it with grace period 0', async () => {
    await createPod('bound', { nodeName: 'node-1', terminationGracePeriodSeconds: 45 });
    const first = await send(`${PODS}/bound`, 'DELETE');
    expect(first.status).toBe(200);
    const marked = first.json<Obj>();
    expect(marked.kind).toBe('Pod');
    expect(marked.metadata.deletionGracePeriodSeconds).toBe(45);
    expect(typeof marked.metadata.deletionTimestamp).toBe('string');
    const now = await send(`${PODS}/bound?gracePeriodSeconds=0`, 'DELETE');
    expect(now.status, now.body).toBe(200);
    expect(now.json<Obj>()).toMatchObject({ kind: 'Status', status: 'Success' });
    expect((await send(`${PODS}/bound`, 'GET')).status).toBe(404);
  });

  it('adds an ephemeral container through pods/ephemeralcontainers, and only that', async () => {
    const created = await createPod('debugged');
    const debug = { name: 'debugger', image: 'busybox:1.36', targetContainerName: 'app' };
    const res = await send(`${PODS}/debugged/ephemeralcontainers`, 'PATCH', { spec: { ephemeralContainers: [debug], restartPolicy: 'Never' } }, 'application/strategic-merge-patch+json');
    expect(res.status, res.body).toBe(200);
    const pod = res.json<Obj>();
    expect(pod.spec.ephemeralContainers).toEqual([{ ...debug, imagePullPolicy: 'IfNotPresent', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File' }]);
    expect(pod.spec.restartPolicy).toBe('Always');
    expect(pod.metadata.generation).toBe(created.metadata.generation + 1);
    const removed = await send(`${PODS}/debugged/ephemeralcontainers`, 'PUT', { ...pod, spec: { ...pod.spec, ephemeralContainers: [] } });
    expect(removed.status).toBe(422);
    expect(removed.json<Obj>().details.causes).toEqual([{ reason: 'FieldValueForbidden', field: 'spec.ephemeralContainers', message: 'Forbidden: existing ephemeral containers "debugger" may not be removed\n' }]);
  });

  it('prints kubectl get pods columns', async () => {
    await createPod('printed');
    const res = await api.raw('GET', `${PODS}/printed`, undefined, { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' });
    const table = res.json<Obj>();
    expect(table.columnDefinitions.map((c: Obj) => c.name)).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age', 'IP', 'Node', 'Nominated Node', 'Readiness Gates']);
    expect(table.rows[0].cells.slice(0, 4)).toEqual(['printed', '0/1', 'Pending', '0']);
    expect(table.rows[0].cells.slice(5)).toEqual(['<none>', '<none>', '<none>', '<none>']);
  });
});
