import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatusError } from '../../runtime/errors/status-error.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import type { Store } from '../../runtime/registry/store.js';
import type { KubeObject } from '../../runtime/machinery/object.js';
import { deleteCollection, listObjects } from '../../runtime/registry/list.js';
import type { Storage } from '../../runtime/storage/interface.js';
import { backends, definitions } from '../support/registry-fixtures.js';

async function failure(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

const cm = (name: string, extra: Record<string, unknown> = {}, labels?: Record<string, string>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  ...extra,
});

describe.each(backends)('generic store on %s storage', (_name, makeStorage) => {
  let storage: Storage;
  let registry: ResourceRegistry;
  let configmaps: Store;
  let namespaces: Store;
  let widgets: Store;

  beforeEach(async () => {
    storage = makeStorage();
    registry = new ResourceRegistry(storage, definitions);
    configmaps = registry.storeFor('', 'v1', 'configmaps')!;
    namespaces = registry.storeFor('', 'v1', 'namespaces')!;
    widgets = registry.storeFor('example.k8s.io', 'v1', 'widgets')!;
    await namespaces.create(undefined, { metadata: { name: 'default' } });
    await namespaces.create(undefined, { metadata: { name: 'other' } });
  });
  afterEach(async () => {
    await registry.namespaceDeleter?.idle();
    await storage.close();
  });

  describe('create', () => {
    it('fills uid, creationTimestamp and resourceVersion, ignoring client values', async () => {
      const created = await configmaps.create('default', cm('a', { data: { k: 'v' } }, undefined));
      const meta = created.metadata!;
      expect(meta.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(meta.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      expect(meta.resourceVersion).toBe(String(await storage.currentRevision()));
      expect(meta.namespace).toBe('default');
      expect(created).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { k: 'v' } });
      const withClientMeta = await configmaps.create('default', {
        metadata: { name: 'b', uid: 'mine', creationTimestamp: '2000-01-01T00:00:00Z', selfLink: '/x' },
      });
      expect(withClientMeta.metadata!.uid).not.toBe('mine');
      expect(withClientMeta.metadata!.creationTimestamp).not.toBe('2000-01-01T00:00:00Z');
      expect(withClientMeta.metadata!.selfLink).toBeUndefined();
    });

    it('rejects a resourceVersion on create like kube-apiserver (500, untyped)', async () => {
      const err = await failure(configmaps.create('default', { metadata: { name: 'rv', resourceVersion: '12' } }));
      expect(err.code).toBe(500);
      expect(err.message).toBe('resourceVersion should not be set on objects to be created');
    });

    it('AlreadyExists for a taken name', async () => {
      await configmaps.create('default', cm('dup'));
      const err = await failure(configmaps.create('default', cm('dup')));
      expect(err.code).toBe(409);
      expect(err.reason).toBe('AlreadyExists');
      expect(err.message).toBe('configmaps "dup" already exists');
      expect(err.details).toEqual({ name: 'dup', kind: 'configmaps' });
      // The same name in another namespace is another object.
      await expect(configmaps.create('other', cm('dup'))).resolves.toBeTruthy();
    });

    it('generateName appends five characters from the upstream alphabet', async () => {
      const created = await configmaps.create('default', { metadata: { generateName: 'app-' } });
      expect(created.metadata!.name).toMatch(/^app-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
      expect(created.metadata!.generateName).toBe('app-');
    });

    it('checks the body namespace against the request', async () => {
      const err = await failure(configmaps.create('default', { metadata: { name: 'x', namespace: 'other' } }));
      expect(err.code).toBe(400);
      expect(err.message).toBe('the namespace of the provided object does not match the namespace sent on the request');
    });

    it('404 for a missing namespace, 403 for a terminating one', async () => {
      const missing = await failure(configmaps.create('nowhere', cm('x')));
      expect(missing.code).toBe(404);
      expect(missing.message).toBe('namespaces "nowhere" not found');
      await namespaces.create(undefined, { metadata: { name: 'doomed' } });
      await configmaps.create('doomed', cm('held', {}, undefined));
      await configmaps.guaranteedUpdate('doomed', 'held', (o) => ({ ...o, metadata: { ...o.metadata, finalizers: ['example.com/hold'] } }));
      await namespaces.delete(undefined, 'doomed');
      await registry.namespaceDeleter!.idle();
      const err = await failure(configmaps.create('doomed', cm('late')));
      expect(err.code).toBe(403);
      expect(err.reason).toBe('Forbidden');
      expect(err.message).toBe('configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated');
    });

    it('422 Invalid from the validator with the field path', async () => {
      const err = await failure(configmaps.create('default', cm('bad', { data: { n: 5 } })));
      expect(err.code).toBe(422);
      expect(err.reason).toBe('Invalid');
      expect(err.details?.causes).toEqual([{ reason: 'FieldValueTypeInvalid', message: 'Invalid value: must be a string', field: 'data[n]' }]);
      expect(err.message).toBe('ConfigMap "bad" is invalid: data[n]: Invalid value: must be a string');
    });

    it('dry run validates and persists nothing', async () => {
      const before = await storage.currentRevision();
      const out = await configmaps.create('default', cm('dry'), { dryRun: true });
      expect(out.metadata!.name).toBe('dry');
      expect(await storage.currentRevision()).toBe(before);
      expect((await failure(configmaps.get('default', 'dry'))).code).toBe(404);
      await expect(configmaps.create('default', cm('bad', { data: { n: 1 } }), { dryRun: true })).rejects.toMatchObject({ code: 422 });
    });
  });

  describe('update and patch', () => {
    it('resourceVersion grows, stale PUT is 409, unconditional PUT wins', async () => {
      const v1 = await configmaps.create('default', cm('u', { data: { a: '1' } }));
      const v2 = await configmaps.update('default', 'u', { ...v1, data: { a: '2' } });
      expect(Number(v2.metadata!.resourceVersion)).toBeGreaterThan(Number(v1.metadata!.resourceVersion));
      expect(v2.metadata!.uid).toBe(v1.metadata!.uid);
      expect(v2.metadata!.creationTimestamp).toBe(v1.metadata!.creationTimestamp);
      const stale = await failure(configmaps.update('default', 'u', { ...v1, data: { a: '3' } }));
      expect(stale.code).toBe(409);
      expect(stale.reason).toBe('Conflict');
      expect(stale.message).toBe('Operation cannot be fulfilled on configmaps "u": the object has been modified; please apply your changes to the latest version and try again');
      const { resourceVersion: _rv, ...meta } = v1.metadata!;
      const v3 = await configmaps.update('default', 'u', { ...v1, metadata: meta, data: { a: '4' } });
      expect(v3.data).toEqual({ a: '4' });
    });

    it('a no-op update writes nothing', async () => {
      const v1 = await configmaps.create('default', cm('same', { data: { a: '1' } }));
      const before = await storage.currentRevision();
      const again = await configmaps.update('default', 'same', v1);
      expect(again.metadata!.resourceVersion).toBe(v1.metadata!.resourceVersion);
      expect(await storage.currentRevision()).toBe(before);
    });

    it('PUT to a missing object is 404; a name mismatch is 400', async () => {
      expect((await failure(configmaps.update('default', 'ghost', cm('ghost')))).code).toBe(404);
      await configmaps.create('default', cm('n'));
      const err = await failure(configmaps.update('default', 'n', cm('m')));
      expect(err.code).toBe(400);
      expect(err.message).toBe('the name of the object (m) does not match the name on the URL (n)');
    });

    it('generation starts at 1 and grows only with spec changes; status is kept on main writes', async () => {
      const w = await widgets.create(undefined, { metadata: { name: 'w' }, spec: { size: 2 }, status: { ready: true } });
      expect(w.metadata!.generation).toBe(1);
      expect(w.status).toBeUndefined();
      const labelled = await widgets.update(undefined, 'w', { ...w, metadata: { ...w.metadata, labels: { a: 'b' } } });
      expect(labelled.metadata!.generation).toBe(1);
      const resized = await widgets.update(undefined, 'w', { ...labelled, spec: { size: 3 }, status: { ready: true } });
      expect(resized.metadata!.generation).toBe(2);
      expect(resized.status).toBeUndefined();
      const withStatus = await widgets.update(undefined, 'w', { ...resized, spec: { size: 99 }, status: { ready: true } }, { subresource: 'status' });
      expect(withStatus.status).toEqual({ ready: true });
      expect(withStatus.spec).toEqual({ size: 3 });
      expect(withStatus.metadata!.generation).toBe(2);
    });

    it('merge patch: merges maps, null deletes, conditional on resourceVersion', async () => {
      const v1 = await configmaps.create('default', cm('p', { data: { a: '1', b: '2' } }, { keep: 'yes' }));
      const { applyMergePatch } = await import('../../runtime/registry/patch/merge-patch.js');
      const patched = await configmaps.guaranteedUpdate('default', 'p', (o) => applyMergePatch(o, { data: { b: null, c: '3' }, metadata: { labels: { add: 'x' } } }) as KubeObject);
      expect(patched.data).toEqual({ a: '1', c: '3' });
      expect(patched.metadata!.labels).toEqual({ keep: 'yes', add: 'x' });
      const stale = await failure(
        configmaps.guaranteedUpdate('default', 'p', (o) => applyMergePatch(o, { metadata: { resourceVersion: v1.metadata!.resourceVersion }, data: { z: '1' } }) as KubeObject),
      );
      expect(stale.code).toBe(409);
    });
  });

  describe('delete', () => {
    it('returns the object gone and a Success Status shape', async () => {
      const created = await configmaps.create('default', cm('d'));
      const result = await configmaps.delete('default', 'd');
      expect(result.deleted).toBe(true);
      expect(configmaps.successStatus(result.object)).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name: 'd', kind: 'configmaps', uid: created.metadata!.uid },
      });
      expect((await failure(configmaps.get('default', 'd'))).code).toBe(404);
      expect((await failure(configmaps.delete('default', 'd'))).code).toBe(404);
    });

    it('preconditions are checked (409)', async () => {
      await configmaps.create('default', cm('pre'));
      const err = await failure(configmaps.delete('default', 'pre', { preconditions: { uid: 'nope' } }));
      expect(err.code).toBe(409);
      expect(err.message).toMatch(/^Operation cannot be fulfilled on ConfigMap "pre": the UID in the precondition \(nope\) does not match the UID in record/);
      const err2 = await failure(configmaps.delete('default', 'pre', { preconditions: { resourceVersion: '1' } }));
      expect(err2.code).toBe(409);
    });

    it('finalizers delay deletion until they are removed', async () => {
      await configmaps.create('default', { metadata: { name: 'f', finalizers: ['example.com/x'] } });
      const first = await configmaps.delete('default', 'f');
      expect(first.deleted).toBe(false);
      expect(first.object.metadata!.deletionTimestamp).toBeTruthy();
      expect(first.object.metadata!.deletionGracePeriodSeconds).toBe(0);
      const current = await configmaps.get('default', 'f');
      await configmaps.update('default', 'f', { ...current, metadata: { ...current.metadata, finalizers: [] } });
      expect((await failure(configmaps.get('default', 'f'))).code).toBe(404);
    });

    it('invalid propagationPolicy is 422', async () => {
      await configmaps.create('default', cm('pp'));
      const err = await failure(configmaps.delete('default', 'pp', { propagationPolicy: 'Sideways' }));
      expect(err.code).toBe(422);
      expect(err.message).toBe('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"');
    });

    it('dry-run delete keeps the object', async () => {
      await configmaps.create('default', cm('keep'));
      expect((await configmaps.delete('default', 'keep', { dryRun: true })).deleted).toBe(true);
      await expect(configmaps.get('default', 'keep')).resolves.toBeTruthy();
    });

    it('deletecollection with a selector returns the deleted list', async () => {
      await configmaps.create('default', cm('x1', {}, { app: 'x' }));
      await configmaps.create('default', cm('x2', {}, { app: 'x' }));
      await configmaps.create('default', cm('y1', {}, { app: 'y' }));
      const deleted = await deleteCollection(configmaps, 'default', { labelSelector: 'app=x' });
      expect(deleted.kind).toBe('ConfigMapList');
      expect(deleted.items.map((i) => i.metadata!.name)).toEqual(['x1', 'x2']);
      const left = await listObjects(configmaps, 'default');
      expect(left.items.map((i) => i.metadata!.name)).toEqual(['y1']);
    });
  });

  describe('namespaces', () => {
    it('Active with the kubernetes finalizer on create', async () => {
      const ns = await namespaces.get(undefined, 'default');
      expect(ns.status).toEqual({ phase: 'Active' });
      expect(ns.spec).toEqual({ finalizers: ['kubernetes'] });
    });

    it('deleting a namespace removes its content and then the namespace', async () => {
      await namespaces.create(undefined, { metadata: { name: 'gone' } });
      await configmaps.create('gone', cm('c1'));
      await configmaps.create('gone', cm('c2'));
      await configmaps.create('other', cm('c3'));
      const result = await namespaces.delete(undefined, 'gone');
      expect(result.deleted).toBe(false);
      expect(result.object.status).toEqual({ phase: 'Terminating' });
      expect(result.object.metadata!.deletionTimestamp).toBeTruthy();
      await registry.namespaceDeleter!.idle();
      expect((await failure(namespaces.get(undefined, 'gone'))).code).toBe(404);
      expect((await listObjects(configmaps, 'gone')).items).toEqual([]);
      expect((await listObjects(configmaps, 'other')).items).toHaveLength(1);
    });

    it('other spec finalizers keep a namespace Terminating until finalized', async () => {
      await namespaces.create(undefined, { metadata: { name: 'held' }, spec: { finalizers: ['example.com/x'] } });
      await namespaces.delete(undefined, 'held');
      await registry.namespaceDeleter!.idle();
      const ns = await namespaces.get(undefined, 'held');
      expect(ns.status).toEqual({ phase: 'Terminating' });
      expect(ns.spec).toEqual({ finalizers: ['example.com/x'] });
      // A main-resource update cannot touch spec.finalizers; finalize can.
      const viaMain = await namespaces.update(undefined, 'held', { ...ns, spec: { finalizers: [] } });
      expect(viaMain.spec).toEqual({ finalizers: ['example.com/x'] });
      await namespaces.update(undefined, 'held', { ...ns, spec: { finalizers: [] } }, { subresource: 'finalize' });
      await registry.namespaceDeleter!.idle();
      expect((await failure(namespaces.get(undefined, 'held'))).code).toBe(404);
    });

    it('immortal namespaces cannot be deleted', async () => {
      const err = await failure(namespaces.delete(undefined, 'default'));
      expect(err.code).toBe(403);
      expect(err.message).toBe('namespaces "default" is forbidden: this namespace may not be deleted');
    });
  });
});
