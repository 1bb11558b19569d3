// The registry serving resources added and removed at run time (a CRD's custom resources): the
// store appears with its watch cache loaded (objects written before the resource was served are
// listed), several versions share one set of objects with only apiVersion rewritten (conversion
// None), removing it ends open watches cleanly and its paths go, a built-in resource keeps its
// key, and listeners hear each change.

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { customResourceDefinitions, storageVersionHash } from '../../../runtime/registry/custom-resources/definition.js';
import { listObjects } from '../../../runtime/registry/list.js';
import { ResourceRegistry, type RegistryChange } from '../../../runtime/registry/registry.js';
import { watchObjects } from '../../../runtime/registry/watch.js';
import type { Storage } from '../../../runtime/storage/interface.js';
import { backends, definitions } from '../../support/registry-fixtures.js';

function crontabCRD(overrides: { versions?: unknown[]; scope?: string; group?: string; plural?: string } = {}) {
  const group = overrides.group ?? 'stable.example.com';
  const plural = overrides.plural ?? 'crontabs';
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: overrides.scope ?? 'Namespaced',
      names: { plural, singular: 'crontab', kind: 'CronTab', shortNames: ['ct'] },
      versions: overrides.versions ?? [
        { name: 'v1', served: true, storage: true, subresources: { status: {} } },
        { name: 'v1beta1', served: true, storage: false, subresources: { status: {} } },
      ],
    },
    status: { conditions: [{ type: 'Established', status: 'True' }] },
  };
}

const cases = backends.flatMap(([name, makeStorage]) => [[name, 'the watch cache', makeStorage, {}] as const, [name, 'no watch cache', makeStorage, false] as const]);

describe.each(cases)('custom resources on %s storage through %s', (_n, _c, makeStorage, watchCache) => {
  let storage: Storage;
  let registry: ResourceRegistry;

  beforeEach(async () => {
    storage = makeStorage();
    registry = new ResourceRegistry(storage, definitions, { watchCache });
    await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'default' } });
  });
  afterEach(async () => {
    registry.close();
    await storage.close();
  });

  it('serves every served version over one set of objects, stored in the storage version', async () => {
    await registry.serve('crontabs.stable.example.com', customResourceDefinitions(crontabCRD()));
    const v1 = registry.storeFor('stable.example.com', 'v1', 'crontabs')!;
    const beta = registry.storeFor('stable.example.com', 'v1beta1', 'crontabs')!;
    expect(v1).toBeDefined();
    expect(beta).toBeDefined();
    const created = await beta.create('default', { apiVersion: 'stable.example.com/v1beta1', kind: 'CronTab', metadata: { name: 'a' }, spec: { cron: '* * * * */5' } });
    expect(created.apiVersion).toBe('stable.example.com/v1beta1');
    expect(created.metadata?.generation).toBe(1);
    const read = await v1.get('default', 'a');
    expect(read.apiVersion).toBe('stable.example.com/v1');
    expect(read.spec).toEqual({ cron: '* * * * */5' });
    const stored = await storage.get('/registry/stable.example.com/crontabs/default/a');
    expect(JSON.parse(stored!.value).apiVersion).toBe('stable.example.com/v1');
    expect((await listObjects(beta, 'default')).items.map((o) => o.metadata?.name)).toEqual(['a']);
  });

  it('loads objects written before the resource was served, and follows later writes', async () => {
    await registry.serve('crontabs.stable.example.com', customResourceDefinitions(crontabCRD()));
    await registry.storeFor('stable.example.com', 'v1', 'crontabs')!.create('default', { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'kept' } });
    await registry.unserve('crontabs.stable.example.com');
    expect(registry.storeFor('stable.example.com', 'v1', 'crontabs')).toBeUndefined();
    await registry.serve('crontabs.stable.example.com', customResourceDefinitions(crontabCRD()));
    const store = registry.storeFor('stable.example.com', 'v1', 'crontabs')!;
    const list = await listObjects(store, undefined, { resourceVersion: '0' });
    expect(list.items.map((o) => o.metadata?.name)).toEqual(['kept']);
    await store.create('default', { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'later' } });
    const after = await listObjects(store, undefined, { resourceVersion: '0' });
    expect(after.items.map((o) => o.metadata?.name)).toEqual(['kept', 'later']);
  });

  it('ends open watches cleanly when the resource stops being served', async () => {
    await registry.serve('crontabs.stable.example.com', customResourceDefinitions(crontabCRD()));
    const store = registry.storeFor('stable.example.com', 'v1', 'crontabs')!;
    const list = await listObjects(store, undefined);
    const stream = await watchObjects(store, undefined, { resourceVersion: list.metadata.resourceVersion });
    await store.create('default', { apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'w' } });
    const first = await stream.next();
    expect(first.done).toBe(false);
    expect(first.value?.type).toBe('ADDED');
    await registry.unserve('crontabs.stable.example.com');
    if (watchCache !== false) {
      const end = await stream.next();
      expect(end.done).toBe(true);
    }
    stream.stop();
    expect(registry.definitions.some((d) => d.group === 'stable.example.com')).toBe(false);
    // The registry still serves what it served before.
    expect((await listObjects(registry.storeFor('', 'v1', 'namespaces')!, undefined)).items.length).toBe(1);
  });

  it('tells listeners what was added and removed, and replaces a CRD\'s resources on change', async () => {
    const changes: RegistryChange[] = [];
    registry.onChange((c) => changes.push(c));
    await registry.serve('crontabs.stable.example.com', customResourceDefinitions(crontabCRD()));
    expect(changes.at(-1)!.added.map((d) => d.version)).toEqual(['v1', 'v1beta1']);
    const onlyV1 = crontabCRD({ versions: [{ name: 'v1', served: true, storage: true }, { name: 'v1beta1', served: false, storage: false }] });
    await registry.serve('crontabs.stable.example.com', customResourceDefinitions(onlyV1));
    expect(changes.at(-1)!.removed.map((d) => d.version)).toEqual(['v1', 'v1beta1']);
    expect(changes.at(-1)!.added.map((d) => d.version)).toEqual(['v1']);
    expect(registry.storeFor('stable.example.com', 'v1beta1', 'crontabs')).toBeUndefined();
    expect(registry.storeFor('stable.example.com', 'v1', 'crontabs')!.strategies.subresources.status).toBeUndefined();
    expect(registry.addedDefinitions.map((d) => `${d.group}/${d.version}/${d.plural}`)).toEqual(['stable.example.com/v1/crontabs']);
  });

  it('serves a custom resource\'s group while one of its resources is served', async () => {
    expect(registry.servesGroup('')).toBe(true);
    expect(registry.servesGroup('stable.example.com')).toBe(false);
    await registry.serve('crontabs.stable.example.com', customResourceDefinitions(crontabCRD()));
    expect(registry.servesGroup('stable.example.com')).toBe(true);
    await registry.serve('apples.stable.example.com', customResourceDefinitions(crontabCRD({ plural: 'apples' })));
    // The group stays while another CRD still serves a resource in it.
    await registry.unserve('crontabs.stable.example.com');
    expect(registry.servesGroup('stable.example.com')).toBe(true);
    await registry.unserve('apples.stable.example.com');
    expect(registry.servesGroup('stable.example.com')).toBe(false);
    expect(registry.servesGroup('')).toBe(true);
  });

  it('leaves a built-in resource its key when a CRD names the same group, version and plural', async () => {
    const builtIn = registry.storeFor('', 'v1', 'configmaps')!;
    const clash = crontabCRD({ group: '', plural: 'configmaps', versions: [{ name: 'v1', served: true, storage: true }] });
    // A CRD cannot name the core group; the registry refuses the key to anything but its owner all the same.
    const defs = customResourceDefinitions({ ...clash, spec: { ...clash.spec, group: 'x' } }).map((d) => ({ ...d, group: '', storagePrefix: 'x/configmaps' }));
    await registry.serve('configmaps.x', defs);
    expect(registry.storeFor('', 'v1', 'configmaps')).toBe(builtIn);
    expect(registry.addedDefinitions).toEqual([]);
  });

  it('serves nothing of a CRD in a group version a built-in kind serves (kube-apiserver\'s web service answers there)', async () => {
    const crd = crontabCRD({ plural: 'widgets', versions: [{ name: 'v1', served: true, storage: true }] });
    const defs = customResourceDefinitions(crd).map((d) => ({ ...d, group: '' }));
    await registry.serve('widgets.x', defs);
    expect(registry.storeFor('', 'v1', 'widgets')).toBeUndefined();
    expect(registry.addedDefinitions).toEqual([]);
  });
});

describe('a custom resource definition', () => {
  it("hashes the storage version as kube's discovery does", () => {
    // kube's StorageVersionHash of the built-in ConfigMap, as its discovery shows it.
    expect(storageVersionHash('', 'v1', 'ConfigMap')).toBe('qFsyl6wFWjQ=');
    const defs = customResourceDefinitions(crontabCRD());
    expect(new Set(defs.map((d) => d.storageVersionHash))).toEqual(new Set([storageVersionHash('stable.example.com', 'v1', 'CronTab')]));
    expect(defs[0]!.openAPIName).toBe('com.example.stable.v1.CronTab');
    expect(defs[0]!.storagePrefix).toBe('stable.example.com/crontabs');
    expect(defs[0]!.protobufType).toBe('');
  });

  it('refuses apiVersion and kind other than its own, and checks metadata as ValidateObjectMetaAccessor', () => {
    const [v1] = customResourceDefinitions(crontabCRD());
    expect(v1!.validator.validate({ apiVersion: 'stable.example.com/v2', kind: 'CronTab', metadata: { name: 'a', namespace: 'default' } })).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "stable.example.com/v2": must be stable.example.com/v1', field: 'apiVersion' },
    ]);
    const causes = v1!.validator.validate({ apiVersion: 'stable.example.com/v1', kind: 'CronTab', metadata: { name: 'Not_A_Name', namespace: 'default' } });
    expect(causes.map((c) => c.field)).toEqual(['metadata.name']);
  });
});
