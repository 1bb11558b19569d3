// Kinds whose kube-apiserver strategy answers AllowUnconditionalUpdate false refuse a PUT that
// does not name the resourceVersion it replaces (422 at metadata.resourceVersion, with the
// resource, not the kind, in the message); the others apply it to the version just read.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { startHarness, type Harness } from './harness.js';

type Obj = Record<string, unknown>;
const CATALOG = join(import.meta.dirname, '..', 'e2e', 'catalog');
const sample = (file: string): Obj => parse(readFileSync(join(CATALOG, file), 'utf8')) as Obj;

const STORAGE = '/apis/storage.k8s.io/v1';
const cases: Array<[file: string, collection: string, resource: string, unconditional: boolean]> = [
  ['csidriver.yaml', `${STORAGE}/csidrivers`, 'csidrivers', false],
  ['csinode.yaml', `${STORAGE}/csinodes`, 'csinodes', false],
  ['csistoragecapacity.yaml', `${STORAGE}/namespaces/default/csistoragecapacities`, 'csistoragecapacities', false],
  ['volumeattachment.yaml', `${STORAGE}/volumeattachments`, 'volumeattachments', false],
  ['storageclass.yaml', `${STORAGE}/storageclasses`, 'storageclasses', true],
  ['configmap.yaml', '/api/v1/namespaces/default/configmaps', 'configmaps', true],
];

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

describe('PUT without metadata.resourceVersion', () => {
  it.each(cases)('%s: unconditional update allowed = %s', async (file, collection, resource, unconditional) => {
    const obj = sample(file);
    const created = await h.call('POST', collection, obj);
    expect(created.status).toBe(201);
    const name = created.body.metadata.name as string;
    const { resourceVersion: _rv, ...meta } = created.body.metadata as Obj;
    const labelled = { ...created.body, metadata: { ...meta, labels: { touched: 'yes' } } };
    const res = await h.call('PUT', `${collection}/${name}`, labelled);
    if (unconditional) {
      expect(res.status).toBe(200);
      expect(res.body.metadata.labels).toEqual({ touched: 'yes' });
      return;
    }
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({
      reason: 'Invalid',
      message: `${resource}.storage.k8s.io "${name}" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`,
      details: { name, group: 'storage.k8s.io', kind: resource, causes: [{ reason: 'FieldValueInvalid', field: 'metadata.resourceVersion' }] },
    });
    // With the version named, the same write goes through.
    const conditional = await h.call('PUT', `${collection}/${name}`, { ...labelled, metadata: { ...labelled.metadata, resourceVersion: created.body.metadata.resourceVersion } });
    expect(conditional.status).toBe(200);
  });
});
