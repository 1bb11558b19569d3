// The ephemeral volume controller and its claim collector over the real generated kinds on
// memory storage, one sync at a time: which claims a pod gets, what is reported on the pod
// (reason and message of its Event) when a claim cannot be made, and which claims go with a pod.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { EphemeralVolumeController } from '../../runtime/controllers/ephemeral-volume.js';
import { PodClaimCollector } from '../../runtime/controllers/pod-claim-collector.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import type { KubeObject } from '../../runtime/machinery/object.js';
import type { Store } from '../../runtime/registry/store.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON bodies of several shapes

const claimSpec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } };
const ephemeral = (name: string, spec: Obj = claimSpec): Obj => ({ name, ephemeral: { volumeClaimTemplate: { spec } } });
const pod = (name: string, volumes: Obj[], spec: Obj = {}): KubeObject => ({
  metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], volumes, ...spec },
});

let storage: MemoryStorage;
let registry: ResourceRegistry;
let pods: Store;
let claims: Store;
let events: Store;
let controller: EphemeralVolumeController;

beforeEach(async () => {
  storage = new MemoryStorage();
  registry = new ResourceRegistry(storage, resources, { watchCache: false });
  await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'default' } });
  pods = registry.storeFor('', 'v1', 'pods')!;
  claims = registry.storeFor('', 'v1', 'persistentvolumeclaims')!;
  events = registry.storeFor('', 'v1', 'events')!;
  controller = new EphemeralVolumeController(pods, claims, events);
});
afterEach(async () => {
  registry.close();
  await storage.close();
});

const listNames = async (store: Store): Promise<string[]> =>
  (await storage.list(`/registry/${store.definition.storagePrefix}/default/`)).items.map((kv) => store.storage.codec.decode(kv.value, kv.modRevision).metadata!.name!);
const eventsAbout = async (): Promise<Obj[]> =>
  (await storage.list('/registry/events/default/')).items.map((kv) => events.storage.codec.decode(kv.value, kv.modRevision));

/** Writes the pod to storage as it is, past the Store's validation. */
async function storeDirectly(obj: KubeObject): Promise<KubeObject> {
  const stored = { apiVersion: 'v1', kind: 'Pod', ...obj, metadata: { ...obj.metadata, uid: 'stored-uid', creationTimestamp: '2024-01-01T00:00:00Z' } };
  const kv = await storage.create(pods.key('default', obj.metadata!.name!), pods.storage.codec.encode(stored));
  return pods.storage.codec.decode(kv.value, kv.modRevision);
}

describe('EphemeralVolumeController.sync', () => {
  const cases: { name: string; pod: KubeObject; existing?: KubeObject[]; deleting?: boolean; storedDirectly?: boolean; claims: string[]; event?: { reason: string; message: string } }[] = [
    { name: 'one ephemeral volume: one claim', pod: pod('p', [ephemeral('data')]), claims: ['p-data'] },
    { name: 'two ephemeral volumes and an emptyDir: two claims', pod: pod('p', [ephemeral('a'), { name: 'tmp', emptyDir: {} }, ephemeral('b')]), claims: ['p-a', 'p-b'] },
    { name: 'no ephemeral volume: nothing', pod: pod('p', [{ name: 'tmp', emptyDir: {} }]), claims: [] },
    { name: 'a pod being deleted: nothing', pod: pod('p', [ephemeral('data')], { nodeName: 'n1' }), deleting: true, claims: [] },
    {
      name: 'an unowned claim of that name: left alone, reported, later volumes wait',
      pod: pod('p', [ephemeral('a'), ephemeral('b')]),
      existing: [{ metadata: { name: 'p-a' }, spec: claimSpec }],
      claims: ['p-a'],
      event: { reason: 'FailedBinding', message: 'ephemeral volume a: PVC default/p-a was not created for pod default/p (pod is not owner)' },
    },
    {
      // Pod validation refuses such a template today; a pod stored before that rule still has one.
      name: 'a claim the API refuses (requests above limits): reported with the API message',
      pod: pod('p', [ephemeral('big', { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' }, limits: { storage: '1Gi' } } })]),
      storedDirectly: true,
      claims: [],
      event: { reason: 'FailedBinding', message: 'ephemeral volume big: create PVC p-big: PersistentVolumeClaim "p-big" is invalid: spec.resources.requests[storage]: ' },
    },
  ];

  it.each(cases)('$name', async (c) => {
    for (const claim of c.existing ?? []) await claims.create('default', claim);
    const before = await listNames(claims);
    const created = c.storedDirectly ? await storeDirectly(c.pod) : await pods.create('default', c.pod);
    if (c.deleting) expect((await pods.delete('default', created.metadata!.name!)).deleted).toBe(false);
    await controller.sync('default', created.metadata!.name!);
    const made = (await listNames(claims)).filter((n) => !before.includes(n));
    expect([...before, ...made].sort()).toEqual(c.claims);
    for (const name of made) {
      expect((await claims.get('default', name)).metadata!.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid: created.metadata!.uid, controller: true, blockOwnerDeletion: true }]);
    }
    for (const claim of c.existing ?? []) expect((await claims.get('default', claim.metadata!.name!)).metadata!.ownerReferences).toBeUndefined();
    const recorded = await eventsAbout();
    if (!c.event) {
      expect(recorded).toEqual([]);
      return;
    }
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatchObject({ type: 'Warning', reason: c.event.reason, involvedObject: { kind: 'Pod', name: created.metadata!.name, uid: created.metadata!.uid }, source: { component: 'ephemeral_volume' } });
    expect(recorded[0]!.message.startsWith(c.event.message)).toBe(true);
  });

  it('is idempotent: a second sync of the same pod changes nothing', async () => {
    await pods.create('default', pod('p', [ephemeral('data')]));
    await controller.sync('default', 'p');
    const first = await claims.get('default', 'p-data');
    await controller.sync('default', 'p');
    expect(await claims.get('default', 'p-data')).toEqual(first);
    expect(await eventsAbout()).toEqual([]);
  });
});

describe('PodClaimCollector', () => {
  const owned = (name: string, uid: string, controllerRef = true): KubeObject => ({
    metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p', uid, controller: controllerRef }] },
    spec: claimSpec,
  });
  const cases: { name: string; claims: KubeObject[]; kept: string[] }[] = [
    { name: 'the claim the pod controls goes', claims: [owned('c', 'gone-uid')], kept: [] },
    { name: 'a claim another pod controls stays', claims: [owned('c', 'other-uid')], kept: ['c'] },
    { name: 'a claim the pod owns without controlling stays', claims: [owned('c', 'gone-uid', false)], kept: ['c'] },
    { name: 'a claim with no owner stays', claims: [{ metadata: { name: 'c' }, spec: claimSpec }], kept: ['c'] },
  ];

  it.each(cases)('podRemoved: $name', async (c) => {
    for (const claim of c.claims) await claims.create('default', claim);
    await new PodClaimCollector(claims).podRemoved({ metadata: { name: 'p', namespace: 'default', uid: 'gone-uid' } });
    expect(await listNames(claims)).toEqual(c.kept);
  });

  it('collectOrphans: claims whose controlling pod is not listed go, others stay', async () => {
    const live = await pods.create('default', pod('live', []));
    await claims.create('default', owned('orphan', 'gone-uid'));
    await claims.create('default', owned('kept', live.metadata!.uid!));
    await claims.create('default', { metadata: { name: 'plain' }, spec: claimSpec });
    const revision = await storage.currentRevision();
    // Made after the listing's revision: not judged by it.
    await claims.create('default', owned('later', 'new-pod-uid'));
    await new PodClaimCollector(claims).collectOrphans([live], revision);
    expect(await listNames(claims)).toEqual(['kept', 'later', 'plain']);
  });
});
