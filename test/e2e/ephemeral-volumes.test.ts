// Ephemeral volumes over HTTPS: creating a pod whose volumes have an `ephemeral` source makes one
// PersistentVolumeClaim per volume, named <pod>-<volume> and controlled by the pod, as
// kube-controller-manager's ephemeral volume controller does; a claim of that name the pod does
// not control is left alone and the pod gets a FailedBinding event; a deleted claim is made again
// while its pod lives; the claims the pod controls go when the pod is removed from storage, and
// not before.
import { describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes

const server = useMemoryServer();
const NS = '/api/v1/namespaces/default';

const claimSpec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, storageClassName: 'fast' };

const ephemeralVolume = (name: string, metadata: Obj = {}): Obj => ({ name, ephemeral: { volumeClaimTemplate: { metadata, spec: claimSpec } } });

const pod = (name: string, volumes: Obj[], spec: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], volumes, ...spec },
});

async function createPod(name: string, volumes: Obj[], spec: Obj = {}): Promise<Obj> {
  const res = await server.send<Obj>('POST', `${NS}/pods`, pod(name, volumes, spec));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** Polls until `found` returns a value, or fails at the deadline. */
async function eventually<T>(what: string, found: () => Promise<T | undefined>, deadlineMs = 5000): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const value = await found();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const getClaim = async (name: string): Promise<Obj | undefined> => {
  const res = await server.send<Obj>('GET', `${NS}/persistentvolumeclaims/${name}`);
  return res.status === 200 ? res.body : undefined;
};

const claimGone = async (name: string): Promise<true | undefined> => ((await server.send('GET', `${NS}/persistentvolumeclaims/${name}`)).status === 404 ? true : undefined);

describe('ephemeral volume claims', () => {
  it('creates <pod>-<volume> from the template, controlled by the pod, written by kube-controller-manager', async () => {
    const created = await createPod('web', [ephemeralVolume('scratch', { labels: { tier: 'cache' }, annotations: { note: 'from-template' } })]);
    const claim = await eventually('claim web-scratch', () => getClaim('web-scratch'));
    expect(claim.metadata.labels).toEqual({ tier: 'cache' });
    expect(claim.metadata.annotations).toEqual({ note: 'from-template' });
    expect(claim.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: 'web', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    // The template's spec with the claim's defaults, as an API create gives them.
    expect(claim.spec).toEqual({ ...claimSpec, volumeMode: 'Filesystem' });
    expect(claim.metadata.managedFields.map((f: Obj) => [f.manager, f.operation])).toEqual([['kube-controller-manager', 'Update']]);
  });

  it('creates one claim per ephemeral volume and none for other volumes', async () => {
    await createPod('two', [ephemeralVolume('a'), { name: 'plain', emptyDir: {} }, ephemeralVolume('b')]);
    await eventually('claim two-a', () => getClaim('two-a'));
    await eventually('claim two-b', () => getClaim('two-b'));
    const list = await server.send<Obj>('GET', `${NS}/persistentvolumeclaims`);
    expect(list.body.items.map((c: Obj) => c.metadata.name).filter((n: string) => n.startsWith('two-'))).toEqual(['two-a', 'two-b']);
  });

  it('leaves a claim of that name the pod does not control untouched and records a FailedBinding event', async () => {
    const taken = await server.send<Obj>('POST', `${NS}/persistentvolumeclaims`, { metadata: { name: 'taken-data', labels: { mine: 'yes' } }, spec: { accessModes: ['ReadOnlyMany'], resources: { requests: { storage: '2Gi' } } } });
    expect(taken.status).toBe(201);
    await createPod('taken', [ephemeralVolume('data')]);
    const events = await eventually('a FailedBinding event', async () => {
      const res = await server.send<Obj>('GET', `${NS}/events?fieldSelector=involvedObject.name%3Dtaken`);
      return res.body.items.length ? res.body.items : undefined;
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'Warning',
      reason: 'FailedBinding',
      message: 'ephemeral volume data: PVC default/taken-data was not created for pod default/taken (pod is not owner)',
      involvedObject: { kind: 'Pod', apiVersion: 'v1', namespace: 'default', name: 'taken' },
      source: { component: 'ephemeral_volume' },
      count: 1,
    });
    expect(await getClaim('taken-data')).toEqual(taken.body);
  });

  it('makes a claim again when it is deleted while its pod lives', async () => {
    await createPod('again', [ephemeralVolume('data')]);
    const first = await eventually('claim again-data', () => getClaim('again-data'));
    expect((await server.send('DELETE', `${NS}/persistentvolumeclaims/again-data`)).status).toBe(200);
    const second = await eventually('a new claim again-data', async () => {
      const claim = await getClaim('again-data');
      return claim && claim.metadata.uid !== first.metadata.uid ? claim : undefined;
    });
    expect(second.metadata.ownerReferences).toEqual(first.metadata.ownerReferences);
  });

  it('gives a waiting pod its claim once the unowned claim of that name is deleted', async () => {
    expect((await server.send('POST', `${NS}/persistentvolumeclaims`, { metadata: { name: 'waiting-data' }, spec: claimSpec })).status).toBe(201);
    const created = await createPod('waiting', [ephemeralVolume('data')]);
    await eventually('a FailedBinding event', async () => {
      const res = await server.send<Obj>('GET', `${NS}/events?fieldSelector=involvedObject.name%3Dwaiting`);
      return res.body.items.length ? true : undefined;
    });
    expect((await server.send('DELETE', `${NS}/persistentvolumeclaims/waiting-data`)).status).toBe(200);
    const claim = await eventually('the pod\'s own claim', async () => {
      const found = await getClaim('waiting-data');
      return found?.metadata.ownerReferences ? found : undefined;
    });
    expect(claim.metadata.ownerReferences[0].uid).toBe(created.metadata.uid);
  });

  it('removes the claims a pod controls once the pod is gone, not while it is terminating, and never an unowned one', async () => {
    const unowned = await server.send<Obj>('POST', `${NS}/persistentvolumeclaims`, { metadata: { name: 'bound-other' }, spec: claimSpec });
    expect(unowned.status).toBe(201);
    await createPod('bound', [ephemeralVolume('data'), ephemeralVolume('other')], { nodeName: 'node-1' });
    await eventually('claim bound-data', () => getClaim('bound-data'));

    // A bound pod deleted gracefully is only marked; it still owns its claim.
    const marked = await server.send<Obj>('DELETE', `${NS}/pods/bound`);
    expect(marked.status).toBe(200);
    expect(marked.body.metadata.deletionTimestamp).toBeDefined();
    expect(await getClaim('bound-data')).toBeDefined();

    const removed = await server.send<Obj>('DELETE', `${NS}/pods/bound?gracePeriodSeconds=0`);
    expect(removed.status).toBe(200);
    expect((await server.send('GET', `${NS}/pods/bound`)).status).toBe(404);
    await eventually('claim bound-data deleted', () => claimGone('bound-data'));
    expect(await getClaim('bound-other')).toEqual(unowned.body);
  });
});
