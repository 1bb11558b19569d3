import { beforeEach, describe, expect, it } from 'vitest';
import { StatusError } from '../../runtime/errors/status-error.js';
import { applyToStore, decodeApplyPatch, validateApplyOptions } from '../../runtime/registry/apply/apply.js';
import type { ManagedFieldsEntry } from '../../runtime/registry/apply/managed-fields.js';
import type { KubeObject } from '../../runtime/machinery/object.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import type { Store } from '../../runtime/registry/store.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';
import { definitions } from '../support/registry-fixtures.js';

async function failure(p: Promise<unknown>): Promise<StatusError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

const managers = (obj: KubeObject) => ((obj.metadata?.managedFields ?? []) as ManagedFieldsEntry[]).map((e) => [e.manager, e.operation, e.fieldsV1]);

const yaml = (data: Record<string, string>) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: default\ndata:\n${Object.entries(data)
    .map(([k, v]) => `  ${k}: "${v}"`)
    .join('\n')}\n`;

describe('server-side apply through the store', () => {
  let configmaps: Store;

  beforeEach(async () => {
    const registry = new ResourceRegistry(new MemoryStorage(), definitions);
    configmaps = registry.storeFor('', 'v1', 'configmaps')!;
    await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'default' } });
  });

  it('creates when absent (201), then patches; conflicts name the other manager', async () => {
    const first = await applyToStore(configmaps, 'default', 'cm', yaml({ a: '1' }), { fieldManager: 'kubectl', force: false });
    expect(first.created).toBe(true);
    expect(first.object.data).toEqual({ a: '1' });
    expect(managers(first.object)).toEqual([['kubectl', 'Apply', { 'f:data': { 'f:a': {} } }]]);

    const err = await failure(applyToStore(configmaps, 'default', 'cm', yaml({ a: '2' }), { fieldManager: 'other', force: false }));
    expect(err.code).toBe(409);
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "kubectl": .data.a');

    const forced = await applyToStore(configmaps, 'default', 'cm', yaml({ a: '2' }), { fieldManager: 'other', force: true });
    expect(forced.created).toBe(false);
    expect(forced.object.data).toEqual({ a: '2' });
    expect(managers(forced.object)).toEqual([['other', 'Apply', { 'f:data': { 'f:a': {} } }]]);
    expect((await configmaps.get('default', 'cm')).data).toEqual({ a: '2' });
  });

  it('records non-apply writes as Update entries named by fieldManager or User-Agent', async () => {
    const created = await configmaps.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: '1' } }, { userAgent: 'kubectl/v1.33.0 (linux/amd64) kubernetes/xyz' });
    expect(managers(created)).toEqual([['kubectl', 'Update', { 'f:data': { '.': {}, 'f:a': {} } }]]);
    expect((created.metadata!.managedFields as ManagedFieldsEntry[])[0].apiVersion).toBe('v1');

    const updated = await configmaps.update('default', 'cm', { ...created, data: { a: '1', b: '2' } }, { fieldManager: 'editor' });
    // Entries of one operation sort by time, then manager: both may fall in the same second.
    expect(managers(updated).sort((x, y) => String(x[0]).localeCompare(String(y[0])))).toEqual([
      ['editor', 'Update', { 'f:data': { 'f:b': {} } }],
      ['kubectl', 'Update', { 'f:data': { '.': {}, 'f:a': {} } }],
    ]);

    const err = await failure(applyToStore(configmaps, 'default', 'cm', yaml({ b: '3' }), { fieldManager: 'applier', force: false }));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "editor" using v1: .data.b');
  });

  it('a write with managedFields [{}] resets them before recording the writer', async () => {
    const created = await configmaps.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, data: { a: '1' } }, { fieldManager: 'one' });
    const reset = await configmaps.update('default', 'cm', { ...created, metadata: { ...created.metadata, managedFields: [{}] } }, { fieldManager: 'two' });
    expect(reset.metadata?.managedFields).toBeUndefined();
  });

  it('dry run returns the applied object and stores nothing', async () => {
    const out = await applyToStore(configmaps, 'default', 'cm', yaml({ a: '1' }), { fieldManager: 'kubectl', force: false, dryRun: true });
    expect(out.object.data).toEqual({ a: '1' });
    await expect(configmaps.get('default', 'cm')).rejects.toMatchObject({ code: 404 });
  });

  it('refuses what kube-apiserver refuses before merging', async () => {
    expect(() => validateApplyOptions(undefined)).toThrow(StatusError);
    try {
      validateApplyOptions('');
    } catch (e) {
      expect((e as StatusError).code).toBe(422);
      expect((e as StatusError).message).toBe('PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch');
    }
    const wrongVersion = await failure(applyToStore(configmaps, 'default', 'cm', 'apiVersion: v2\nkind: ConfigMap\nmetadata: {name: cm}\n', { fieldManager: 'm', force: false }));
    expect(wrongVersion.message).toBe('invalid object type: /v2, Kind=ConfigMap');
    const withManaged = await failure(
      applyToStore(configmaps, 'default', 'cm', JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', managedFields: [] } }), { fieldManager: 'm', force: false }),
    );
    expect(withManaged.code).toBe(400);
    expect(withManaged.message).toBe('metadata.managedFields must be nil');
    const otherName = await failure(applyToStore(configmaps, 'default', 'other', yaml({ a: '1' }), { fieldManager: 'm', force: false }));
    expect(otherName.message).toBe('the name of the object (cm) does not match the name on the URL (other)');
    expect(() => decodeApplyPatch('a: [')).toThrow(/^error decoding YAML/);
  });
});
