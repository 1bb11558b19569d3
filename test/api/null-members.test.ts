// Explicit nulls in bodies and patched documents: kube decodes them into Go structs, where a null
// leaves the member at its zero value and omitempty then drops it. So nulls are neither stored
// nor returned nor recorded in managedFields, while a null in a merge patch still deletes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

const CMS = '/api/v1/namespaces/default/configmaps';
const MERGE = { 'content-type': 'application/merge-patch+json' };
const JSON_PATCH = { 'content-type': 'application/json-patch+json' };
const STRATEGIC = { 'content-type': 'application/strategic-merge-patch+json' };

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a managedFields entry as returned
const managed = (obj: any) => (obj.metadata.managedFields ?? []).map((e: { fieldsV1: unknown }) => e.fieldsV1);

describe('null members of a body', () => {
  it('create: labels, data and immutable null are absent from the response, storage and managedFields', async () => {
    const created = await h.call('POST', `${CMS}?fieldManager=test`, { metadata: { name: 'n', labels: null, annotations: { a: 'b' } }, data: null, binaryData: null, immutable: null });
    expect(created.status).toBe(201);
    expect(created.body.metadata).not.toHaveProperty('labels');
    for (const key of ['data', 'binaryData', 'immutable']) expect(created.body).not.toHaveProperty(key);
    expect(managed(created.body)).toEqual([{ 'f:metadata': { 'f:annotations': { '.': {}, 'f:a': {} } } }]);
    const got = (await h.call('GET', `${CMS}/n`)).body;
    expect(got.metadata).not.toHaveProperty('labels');
    expect(got).not.toHaveProperty('data');
  });

  it('update: a null member is dropped as if it had not been sent', async () => {
    const created = (await h.call('POST', CMS, { metadata: { name: 'u', labels: { a: 'b' } }, data: { k: 'v' } })).body;
    const updated = await h.call('PUT', `${CMS}/u`, { ...created, metadata: { ...created.metadata, labels: null }, data: null, immutable: null });
    expect(updated.status).toBe(200);
    expect(updated.body.metadata).not.toHaveProperty('labels');
    expect(updated.body).not.toHaveProperty('data');
    expect(updated.body).not.toHaveProperty('immutable');
  });

  it('a required member takes its zero value, and validation sees that', async () => {
    const reply = await h.call('POST', '/api/v1/namespaces/default/pods', { metadata: { name: 'p' }, spec: { containers: [{ name: null, image: 'busybox' }] } });
    expect(reply.status).toBe(422);
    expect(reply.body.details.causes).toContainEqual({ reason: 'FieldValueRequired', field: 'spec.containers[0].name', message: 'Required value' });
  });
});

describe('null members of a patched document', () => {
  it.each([
    ['merge patch null deletes', MERGE, { data: null, metadata: { labels: null } }],
    ['strategic merge patch null deletes', STRATEGIC, { data: null, metadata: { labels: null } }],
    [
      'JSON patch that writes nulls',
      JSON_PATCH,
      [
        { op: 'replace', path: '/data', value: null },
        { op: 'replace', path: '/metadata/labels', value: null },
        { op: 'add', path: '/immutable', value: null },
      ],
    ],
  ])('%s: the members are gone', async (_case, headers, patch) => {
    await h.call('POST', CMS, { metadata: { name: 'p', labels: { a: 'b' }, annotations: { keep: 'x' } }, data: { k: 'v' } });
    const patched = await h.call('PATCH', `${CMS}/p?fieldManager=patcher`, patch, headers);
    expect(patched.status).toBe(200);
    expect(patched.body.metadata).not.toHaveProperty('labels');
    expect(patched.body).not.toHaveProperty('data');
    expect(patched.body).not.toHaveProperty('immutable');
    expect(managed(patched.body)).toEqual([{ 'f:metadata': { 'f:annotations': { '.': {}, 'f:keep': {} } } }]);
    const got = (await h.call('GET', `${CMS}/p`)).body;
    expect(got).not.toHaveProperty('data');
  });

  it('a merge patch null inside a map still deletes just that key', async () => {
    await h.call('POST', CMS, { metadata: { name: 'k' }, data: { a: '1', b: '2' } });
    const patched = await h.call('PATCH', `${CMS}/k`, { data: { a: null } }, MERGE);
    expect(patched.status).toBe(200);
    expect(patched.body.data).toEqual({ b: '2' });
  });
});
