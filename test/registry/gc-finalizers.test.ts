// The delete path's garbage-collection finalizers, as kube-apiserver's store sets them: the
// request's policy wins, then a finalizer already present, then the kind's default.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import type { Store } from '../../runtime/registry/store.js';
import { metaOf } from '../../runtime/machinery/object.js';
import { defaultGarbageCollectionPolicy, finalizersForGarbageCollection } from '../../runtime/registry/gc-finalizers.js';
import type { Storage } from '../../runtime/storage/interface.js';
import { backends, configMaps, definitions } from '../support/registry-fixtures.js';

describe('finalizersForGarbageCollection', () => {
  const cases: Array<[string, string[], Record<string, unknown>, string[] | undefined]> = [
    ['no policy, no finalizers: nothing to add', [], {}, undefined],
    ['Background: nothing to add', [], { propagationPolicy: 'Background' }, undefined],
    ['Foreground adds foregroundDeletion', ['x'], { propagationPolicy: 'Foreground' }, ['x', 'foregroundDeletion']],
    ['Orphan adds orphan', [], { propagationPolicy: 'Orphan' }, ['orphan']],
    ['Orphan replaces foregroundDeletion', ['foregroundDeletion'], { propagationPolicy: 'Orphan' }, ['orphan']],
    ['Background removes both', ['orphan', 'y'], { propagationPolicy: 'Background' }, ['y']],
    ['orphanDependents: true is Orphan', [], { orphanDependents: true }, ['orphan']],
    ['orphanDependents: false removes orphan', ['orphan'], { orphanDependents: false }, []],
    ['no policy keeps the finalizer present', ['foregroundDeletion'], {}, undefined],
  ];
  for (const [name, finalizers, options, expected] of cases) {
    it(name, () => expect(finalizersForGarbageCollection(configMaps, finalizers, options)).toEqual(expected));
  }

  it('kinds whose default is to orphan, and Events, which take no part', () => {
    const def = (group: string, version: string, plural: string) => ({ ...configMaps, group, version, plural });
    expect(defaultGarbageCollectionPolicy(def('', 'v1', 'replicationcontrollers'))).toBe('OrphanDependents');
    expect(defaultGarbageCollectionPolicy(def('batch', 'v1', 'jobs'))).toBe('OrphanDependents');
    expect(defaultGarbageCollectionPolicy(def('apps', 'v1', 'replicasets'))).toBe('DeleteDependents');
    expect(defaultGarbageCollectionPolicy(def('', 'v1', 'events'))).toBe('Unsupported');
    expect(finalizersForGarbageCollection(def('batch', 'v1', 'jobs'), [], {})).toEqual(['orphan']);
    expect(finalizersForGarbageCollection(def('', 'v1', 'events'), [], { propagationPolicy: 'Foreground' })).toBeUndefined();
  });
});

describe.each(backends)('Store.delete with a propagation policy on %s storage', (_name, makeStorage) => {
  let storage: Storage;
  let registry: ResourceRegistry;
  let configmaps: Store;

  beforeEach(async () => {
    storage = makeStorage();
    registry = new ResourceRegistry(storage, definitions);
    configmaps = registry.storeFor('', 'v1', 'configmaps')!;
    await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'default' } });
  });
  afterEach(async () => {
    await registry.namespaceDeleter?.idle();
    await storage.close();
  });

  it('Foreground marks the object and keeps it; Orphan then swaps the finalizer; Background then deletes it', async () => {
    await configmaps.create('default', { metadata: { name: 'o' } });
    const fg = await configmaps.delete('default', 'o', { propagationPolicy: 'Foreground' });
    expect(fg.deleted).toBe(false);
    const marked = metaOf(fg.object);
    expect(marked.finalizers).toEqual(['foregroundDeletion']);
    expect(marked.deletionGracePeriodSeconds).toBe(0);
    expect(marked.deletionTimestamp).toBeTruthy();
    const orphan = await configmaps.delete('default', 'o', { propagationPolicy: 'Orphan' });
    expect(metaOf(orphan.object).finalizers).toEqual(['orphan']);
    expect(metaOf(orphan.object).deletionTimestamp).toBe(marked.deletionTimestamp);
    const again = await configmaps.delete('default', 'o', {});
    expect(again.deleted).toBe(false);
    expect(metaOf(again.object).resourceVersion).toBe(metaOf(orphan.object).resourceVersion);
    const bg = await configmaps.delete('default', 'o', { propagationPolicy: 'Background' });
    expect(bg.deleted).toBe(true);
    await expect(configmaps.get('default', 'o')).rejects.toMatchObject({ code: 404 });
  });

  it('the namespace deleter deletes in the background: an orphan finalizer does not hold the content', async () => {
    const namespaces = registry.storeFor('', 'v1', 'namespaces')!;
    await namespaces.create(undefined, { metadata: { name: 'going' } });
    await configmaps.create('going', { metadata: { name: 'held', finalizers: ['orphan'] } });
    await namespaces.delete(undefined, 'going');
    await registry.namespaceDeleter!.idle();
    await expect(configmaps.get('going', 'held')).rejects.toMatchObject({ code: 404 });
  });

  it('dryRun reports the marking and stores nothing', async () => {
    await configmaps.create('default', { metadata: { name: 'd' } });
    const dry = await configmaps.delete('default', 'd', { propagationPolicy: 'Orphan', dryRun: true });
    expect(metaOf(dry.object).finalizers).toEqual(['orphan']);
    expect(metaOf(await configmaps.get('default', 'd')).finalizers).toBeUndefined();
  });

  it('removing the last finalizer of an object marked by a policy deletes it', async () => {
    await configmaps.create('default', { metadata: { name: 'f' } });
    await configmaps.delete('default', 'f', { propagationPolicy: 'Orphan' });
    await configmaps.guaranteedUpdate('default', 'f', (cur) => {
      delete metaOf(cur).finalizers;
      return cur;
    });
    await expect(configmaps.get('default', 'f')).rejects.toMatchObject({ code: 404 });
  });
});
