// ServiceAccount strategy over HTTP: secrets entries are cut down to their name on every write
// (kube's cleanSecretReferences), and the deprecated enforce-mountable-secrets annotation draws
// kube 1.33's warning on create and update.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

const WARNING = '299 - "metadata.annotations[kubernetes.io/enforce-mountable-secrets]: deprecated in v1.32+; prefer separate namespaces to isolate access to mounted secrets"';
const SAS = '/api/v1/namespaces/default/serviceaccounts';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

describe('secrets references', () => {
  it.each([
    ['name only stays', [{ name: 'a' }], [{ name: 'a' }]],
    ['every other field dropped', [{ name: 'a', kind: 'Secret', namespace: 'other', uid: 'u-1', apiVersion: 'v1', resourceVersion: '5', fieldPath: 'data' }], [{ name: 'a' }]],
    ['several entries, order kept', [{ name: 'b', kind: 'Secret' }, { name: 'a', uid: 'x' }], [{ name: 'b' }, { name: 'a' }]],
  ])('create: %s', async (_case, secrets, want) => {
    const created = await h.call('POST', SAS, { metadata: { name: 'sa' }, secrets });
    expect(created.status).toBe(201);
    expect(created.body.secrets).toEqual(want);
    expect((await h.call('GET', `${SAS}/sa`)).body.secrets).toEqual(want);
  });

  it('update and patch clean too', async () => {
    const created = (await h.call('POST', SAS, { metadata: { name: 'sa' } })).body;
    const updated = await h.call('PUT', `${SAS}/sa`, { ...created, secrets: [{ name: 'a', kind: 'Secret', namespace: 'default' }] });
    expect(updated.status).toBe(200);
    expect(updated.body.secrets).toEqual([{ name: 'a' }]);
    const patched = await h.call('PATCH', `${SAS}/sa`, { secrets: [{ name: 'b', uid: 'u-2' }] }, { 'content-type': 'application/strategic-merge-patch+json' });
    expect(patched.status).toBe(200);
    // A strategic merge puts an entry the server did not have before the server's own (kube's
    // mergeSortedSlice takes the patch side when the server order cannot place an item).
    expect(patched.body.secrets).toEqual([{ name: 'b' }, { name: 'a' }]);
  });
});

describe('enforce-mountable-secrets warning', () => {
  it.each([
    ['annotation "true"', { 'kubernetes.io/enforce-mountable-secrets': 'true' }, WARNING],
    ['annotation "false" (its presence is what counts)', { 'kubernetes.io/enforce-mountable-secrets': 'false' }, WARNING],
    ['other annotations', { 'example.com/x': 'y' }, null],
  ])('create with %s', async (_case, annotations, warning) => {
    const created = await h.call('POST', SAS, { metadata: { name: 'sa', annotations } });
    expect(created.status).toBe(201);
    expect(created.headers.get('warning')).toBe(warning);
  });

  it('update warns while the annotation is there, and not after it is removed', async () => {
    const created = (await h.call('POST', SAS, { metadata: { name: 'sa' } })).body;
    const annotated = await h.call('PUT', `${SAS}/sa`, { ...created, metadata: { ...created.metadata, annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } } });
    expect(annotated.status).toBe(200);
    expect(annotated.headers.get('warning')).toBe(WARNING);
    const cleared = await h.call('PUT', `${SAS}/sa`, { ...annotated.body, metadata: { ...annotated.body.metadata, annotations: {} } });
    expect(cleared.status).toBe(200);
    expect(cleared.headers.get('warning')).toBeNull();
  });
});
