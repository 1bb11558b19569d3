// The delete path's garbage-collection finalizers, as kube-apiserver's store sets them: the
// request's policy wins, then a finalizer already present, then the kind's default.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import type { Store } from '../../runtime/registry/store.js';
import { metaOf } from '../../runtime/machinery/object.js';
import { finalizersForGarbageCollection } from '../../runtime/registry/gc-finalizers.js';
import { resources } from '../../generated/registry.js';
import { useMemoryServer } from '../support/memory-server.js';
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

  it('follows the policy the kind declares: OrphanDependents orphans by default, Unsupported never adds a finalizer', () => {
    const orphaning = { ...configMaps, garbageCollectionPolicy: 'OrphanDependents' as const };
    expect(finalizersForGarbageCollection(orphaning, [], {})).toEqual(['orphan']);
    expect(finalizersForGarbageCollection(orphaning, [], { propagationPolicy: 'Background' })).toBeUndefined();
    expect(finalizersForGarbageCollection(orphaning, ['foregroundDeletion'], {})).toBeUndefined();
    const unsupported = { ...configMaps, garbageCollectionPolicy: 'Unsupported' as const };
    expect(finalizersForGarbageCollection(unsupported, [], { propagationPolicy: 'Foreground' })).toBeUndefined();
    expect(finalizersForGarbageCollection(unsupported, [], { orphanDependents: true })).toBeUndefined();
    // A finalizer already there goes: the collector never acts on the kind.
    expect(finalizersForGarbageCollection(unsupported, ['orphan', 'x'], {})).toEqual(['x']);
  });

  it('Events declare Unsupported (kube\'s event strategy); every other served kind deletes its dependents', () => {
    const unsupported = resources.filter((d) => d.garbageCollectionPolicy === 'Unsupported').map((d) => `${d.group}/${d.version}/${d.plural}`);
    expect(unsupported.sort()).toEqual(['/v1/events', 'events.k8s.io/v1/events']);
    expect(resources.filter((d) => d.garbageCollectionPolicy !== undefined && d.garbageCollectionPolicy !== 'Unsupported')).toEqual([]);
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

describe('over HTTPS, a kind whose definition declares Unsupported', () => {
  // Without the garbage collector, whatever finalizer a delete adds stays for the test to see.
  const server = useMemoryServer({ controllers: ['*', '-garbagecollector'] });
  const event = (name: string, finalizers?: string[]) => ({
    apiVersion: 'v1',
    kind: 'Event',
    metadata: { name, ...(finalizers ? { finalizers } : {}) },
    involvedObject: { kind: 'ConfigMap', namespace: 'default', name: 'cm' },
    reason: 'Tested',
    message: 'm',
  });

  it.each([
    ['/api/v1', 'Foreground'],
    ['/api/v1', 'Orphan'],
    ['/apis/events.k8s.io/v1', 'Foreground'],
  ])('an Event deleted through %s with %s is gone at once, no finalizer added', async (prefix, propagationPolicy) => {
    const name = `ev-${propagationPolicy.toLowerCase()}-${prefix.length}`;
    expect((await server.send('POST', '/api/v1/namespaces/default/events', event(name))).status).toBe(201);
    const res = await server.send('DELETE', `${prefix}/namespaces/default/events/${name}`, { propagationPolicy });
    expect(res.status).toBe(200);
    expect((await server.send('GET', `/api/v1/namespaces/default/events/${name}`)).status).toBe(404);
  });

  it('a ConfigMap deleted with Foreground is kept, marked with foregroundDeletion', async () => {
    expect((await server.send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'held' } })).status).toBe(201);
    const res = await server.send<{ metadata: { finalizers?: string[]; deletionTimestamp?: string } }>('DELETE', '/api/v1/namespaces/default/configmaps/held', { propagationPolicy: 'Foreground' });
    expect(res.status).toBe(200);
    const kept = await server.send<{ metadata: { finalizers?: string[]; deletionTimestamp?: string } }>('GET', '/api/v1/namespaces/default/configmaps/held');
    expect(kept.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(kept.body.metadata.deletionTimestamp).toBeTruthy();
  });
});
