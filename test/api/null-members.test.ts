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

// resource.Quantity decodes a JSON null itself (its UnmarshalJSON), to the zero Quantity, which it
// encodes as "0". Go's decoder calls it wherever the Quantity is a value: a map's element (a
// ResourceList) or a struct field that is no pointer. A *Quantity field is set to nil instead, and
// omitted.
describe('null quantities', () => {
  const PODS = '/api/v1/namespaces/default/pods';
  const pod = (name: string, container: Record<string, unknown>) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'busybox', ...container }] } });

  it('a null in a Pod\'s limits and requests is the quantity 0, as stored and returned', async () => {
    const created = await h.call('POST', PODS, pod('q', { resources: { limits: { cpu: null, memory: '1Gi' }, requests: { cpu: null } } }));
    expect(created.status).toBe(201);
    // Requests missing from the body default to the limits.
    expect(created.body.spec.containers[0].resources).toEqual({ limits: { cpu: '0', memory: '1Gi' }, requests: { cpu: '0', memory: '1Gi' } });
    expect((await h.call('GET', `${PODS}/q`)).body.spec.containers[0].resources.limits).toEqual({ cpu: '0', memory: '1Gi' });
  });

  it('a null in a LimitRange\'s max is the quantity 0', async () => {
    const created = await h.call('POST', '/api/v1/namespaces/default/limitranges', { metadata: { name: 'lr' }, spec: { limits: [{ type: 'Container', max: { cpu: null, memory: '1Gi' } }] } });
    expect(created.status).toBe(201);
    expect(created.body.spec.limits[0].max).toEqual({ cpu: '0', memory: '1Gi' });
  });

  it('a null a JSON patch writes into a ResourceList is the quantity 0', async () => {
    await h.call('POST', '/api/v1/namespaces/default/limitranges', { metadata: { name: 'jp' }, spec: { limits: [{ type: 'Container', max: { memory: '1Gi' } }] } });
    const patched = await h.call('PATCH', '/api/v1/namespaces/default/limitranges/jp', [{ op: 'add', path: '/spec/limits/0/max/cpu', value: null }], JSON_PATCH);
    expect(patched.status).toBe(200);
    expect(patched.body.spec.limits[0].max).toEqual({ cpu: '0', memory: '1Gi' });
  });

  it('a null *Quantity field (an emptyDir\'s sizeLimit) is omitted', async () => {
    const created = await h.call('POST', PODS, { metadata: { name: 'ed' }, spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'v', emptyDir: { sizeLimit: null } }] } });
    expect(created.status).toBe(201);
    expect(created.body.spec.volumes[0]).toEqual({ name: 'v', emptyDir: {} });
  });
});
