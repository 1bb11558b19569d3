import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatusError } from '../../runtime/errors/status-error.js';
import { getObject } from '../../runtime/registry/get.js';
import { listObjects } from '../../runtime/registry/list.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import type { Store } from '../../runtime/registry/store.js';
import type { Storage } from '../../runtime/storage/interface.js';
import { backends, definitions } from '../support/registry-fixtures.js';

async function failure(p: unknown): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

/** Every case runs against both implementations of the resource storage: the cacher and the store directly. */
const cases = backends.flatMap(([name, makeStorage]) => [
  [name, 'the watch cache', makeStorage, { freshnessWaitMs: 50 }] as const,
  [name, 'no watch cache', makeStorage, false] as const,
]);

describe.each(cases)('list on %s storage through %s', (_n, _c, makeStorage, watchCache) => {
  let storage: Storage;
  let configmaps: Store;
  let secrets: Store;
  let registry: ResourceRegistry;

  beforeEach(async () => {
    storage = makeStorage();
    // A short wait for unknown versions keeps the 504 cases quick (kube-apiserver waits 3 s).
    registry = new ResourceRegistry(storage, definitions, { watchCache });
    configmaps = registry.storeFor('', 'v1', 'configmaps')!;
    secrets = registry.storeFor('', 'v1', 'secrets')!;
    const namespaces = registry.storeFor('', 'v1', 'namespaces')!;
    for (const ns of ['a', 'b']) await namespaces.create(undefined, { metadata: { name: ns } });
    for (let i = 0; i < 5; i++) {
      await configmaps.create('a', { metadata: { name: `cm${i}`, labels: { n: String(i), parity: i % 2 ? 'odd' : 'even' } } });
    }
    await configmaps.create('b', { metadata: { name: 'cm0', labels: { parity: 'even' } } });
  });
  afterEach(() => {
    registry.close();
    return storage.close();
  });

  it('lists a namespace or all namespaces, with the store revision as resourceVersion', async () => {
    const inA = await listObjects(configmaps, 'a');
    expect(inA).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: String(await storage.currentRevision()) } });
    expect(inA.items.map((i) => i.metadata!.name)).toEqual(['cm0', 'cm1', 'cm2', 'cm3', 'cm4']);
    expect(inA.items[0].kind).toBeUndefined();
    expect((await listObjects(configmaps, undefined)).items).toHaveLength(6);
  });

  it('filters by label and field selectors', async () => {
    const names = async (opts: Parameters<typeof listObjects>[2]) => (await listObjects(configmaps, undefined, opts)).items.map((i) => `${i.metadata!.namespace}/${i.metadata!.name}`);
    expect(await names({ labelSelector: 'parity=odd' })).toEqual(['a/cm1', 'a/cm3']);
    expect(await names({ labelSelector: 'n in (1,2),parity!=odd' })).toEqual(['a/cm2']);
    expect(await names({ labelSelector: '!n' })).toEqual(['b/cm0']);
    expect(await names({ fieldSelector: 'metadata.name=cm0' })).toEqual(['a/cm0', 'b/cm0']);
    expect(await names({ fieldSelector: 'metadata.namespace!=a' })).toEqual(['b/cm0']);
  });

  it('400 for bad selectors with kube-apiserver messages', async () => {
    const bad = await failure(listObjects(configmaps, 'a', { fieldSelector: 'spec.foo=bar' }));
    expect(bad.code).toBe(400);
    expect(bad.reason).toBe('BadRequest');
    expect(bad.message).toBe('field label not supported: spec.foo');
    const label = await failure(listObjects(configmaps, 'a', { labelSelector: 'a in b' }));
    expect(label.code).toBe(400);
    expect(label.message).toBe("unable to parse requirement: found 'b' expected: '('");
  });

  it('kind-specific selectable fields: secrets by type', async () => {
    await secrets.create('a', { metadata: { name: 's1' }, type: 'kubernetes.io/tls', data: { 'tls.crt': '', 'tls.key': '' } });
    await secrets.create('a', { metadata: { name: 's2' } });
    const tls = await listObjects(secrets, 'a', { fieldSelector: 'type=kubernetes.io/tls' });
    expect(tls.items.map((i) => i.metadata!.name)).toEqual(['s1']);
  });

  it('pages with limit and continue at one revision', async () => {
    const first = await listObjects(configmaps, 'a', { limit: 2 });
    expect(first.items.map((i) => i.metadata!.name)).toEqual(['cm0', 'cm1']);
    expect(first.metadata.remainingItemCount).toBe(3);
    expect(first.metadata.continue).toBeTruthy();
    // A write between pages does not show up: the list stays at the first page's revision.
    await configmaps.create('a', { metadata: { name: 'cm5' } });
    const second = await listObjects(configmaps, 'a', { limit: 2, continue: first.metadata.continue });
    expect(second.items.map((i) => i.metadata!.name)).toEqual(['cm2', 'cm3']);
    expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
    const third = await listObjects(configmaps, 'a', { limit: 2, continue: second.metadata.continue });
    expect(third.items.map((i) => i.metadata!.name)).toEqual(['cm4']);
    expect(third.metadata.continue).toBeUndefined();
  });

  it('pages with a selector without remainingItemCount', async () => {
    const first = await listObjects(configmaps, 'a', { limit: 1, labelSelector: 'parity=odd' });
    expect(first.items.map((i) => i.metadata!.name)).toEqual(['cm1']);
    expect(first.metadata.remainingItemCount).toBeUndefined();
    const second = await listObjects(configmaps, 'a', { limit: 1, labelSelector: 'parity=odd', continue: first.metadata.continue });
    expect(second.items.map((i) => i.metadata!.name)).toEqual(['cm3']);
  });

  it('rejects bad continue tokens and resourceVersion with continue', async () => {
    const bad = await failure(listObjects(configmaps, 'a', { continue: 'not a token!' }));
    expect(bad.code).toBe(400);
    expect(bad.message).toMatch(/^invalid continue token: continue key is not valid/);
    const first = await listObjects(configmaps, 'a', { limit: 1 });
    const rv = await failure(listObjects(configmaps, 'a', { limit: 1, continue: first.metadata.continue, resourceVersion: '5' }));
    expect(rv.code).toBe(400);
    expect(rv.message).toBe('specifying resource version is not allowed when using continue');
  });

  it('resourceVersionMatch without resourceVersion is 422; a future version is 504', async () => {
    const err = await failure(listObjects(configmaps, 'a', { resourceVersionMatch: 'Exact' }));
    expect(err.code).toBe(422);
    expect(err.message).toBe('ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
    const future = await failure(listObjects(configmaps, 'a', { resourceVersion: '999999' }));
    expect(future.code).toBe(504);
  });

  it('get: unset, "0" and a reached version read the object; a future version is 504; a missing one 404', async () => {
    const current = String(await storage.currentRevision());
    for (const resourceVersion of [undefined, '0', current]) {
      expect((await getObject(configmaps, 'a', 'cm1', { resourceVersion })).metadata).toMatchObject({ name: 'cm1', namespace: 'a' });
    }
    const future = await failure(getObject(configmaps, 'a', 'cm1', { resourceVersion: '999999' }));
    expect(future.code).toBe(504);
    const missing = await failure(getObject(configmaps, 'a', 'nope', { resourceVersion: current }));
    expect(missing.code).toBe(404);
    expect(missing.message).toBe('configmaps "nope" not found');
    const bad = await failure(getObject(configmaps, 'a', 'cm1', { resourceVersion: 'x' }));
    expect(bad.code).toBe(400);
  });

  it('get: what the watch cache holds is answered at once, without a promise; the rest is a promise with the same answer', async () => {
    const current = String(await storage.currentRevision());
    // Reached: the cache has caught up with every write above.
    await getObject(configmaps, 'a', 'cm1', { resourceVersion: current });
    for (const resourceVersion of [undefined, '0', current]) {
      const got = getObject(configmaps, 'a', 'cm1', { resourceVersion });
      // Without a cache every read is the store's promise.
      expect(got instanceof Promise).toBe(!watchCache);
      expect((await got).metadata).toMatchObject({ name: 'cm1', namespace: 'a', resourceVersion: expect.any(String) });
    }
    // A write is seen by the next read at once (Most Recent), from the cache as from the store.
    const updated = await configmaps.update('a', 'cm1', { metadata: { name: 'cm1', namespace: 'a', labels: { n: 'changed' } } });
    const after = getObject(configmaps, 'a', 'cm1');
    expect((await after).metadata).toMatchObject({ labels: { n: 'changed' }, resourceVersion: updated.metadata!.resourceVersion });
    // Failures found in the cache are rejected promises, never thrown at the caller.
    for (const [name, resourceVersion, code] of [['nope', undefined, 404], ['cm1', 'x', 400], ['cm1', '999999', 504]] as const) {
      const failed = getObject(configmaps, 'a', name, { resourceVersion });
      expect(failed).toBeInstanceOf(Promise);
      expect((await failure(failed)).code).toBe(code);
    }
    expect(getObject(configmaps, 'a', 'cm1') instanceof Promise).toBe(!watchCache);
  });

  it('an exact read at an older revision sees the old state', async () => {
    const before = await listObjects(configmaps, 'a');
    await configmaps.delete('a', 'cm0');
    const old = await listObjects(configmaps, 'a', { resourceVersion: before.metadata.resourceVersion, resourceVersionMatch: 'Exact' });
    expect(old.items).toHaveLength(5);
    expect((await listObjects(configmaps, 'a')).items).toHaveLength(4);
  });
});
