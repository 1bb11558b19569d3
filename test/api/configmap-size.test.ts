// ConfigMap payload cap (kube's ValidateConfigMap): data values count their UTF-8 bytes,
// binaryData values their decoded bytes; above 1 MiB in total the write is 422 with one
// TooLong cause at the root path, which kube prints as `[]`.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

const MiB = 1024 * 1024;
const b64 = (bytes: number) => Buffer.alloc(bytes, 7).toString('base64');
const TOO_LONG = 'Too long: may not be more than 1048576 bytes';

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(() => h.close());

describe('ConfigMap total size', () => {
  it.each([
    ['data of exactly 1 MiB', { data: { a: 'x'.repeat(MiB) } }, true],
    ['data one byte over', { data: { a: 'x'.repeat(MiB - 10), b: 'y'.repeat(11) } }, false],
    ['multi-byte data counted in bytes, not characters', { data: { a: 'é'.repeat(MiB / 2 + 1) } }, false],
    ['binaryData of exactly 1 MiB decoded (1.4 MB of base64)', { binaryData: { a: b64(MiB) } }, true],
    ['data and binaryData together one byte over', { data: { a: 'x'.repeat(MiB / 2) }, binaryData: { b: b64(MiB / 2 + 1) } }, false],
  ])('%s', async (_case, payload, accepted) => {
    const reply = await h.call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm' }, ...payload });
    if (accepted) {
      expect(reply.status).toBe(201);
      return;
    }
    expect(reply.status).toBe(422);
    expect(reply.body.reason).toBe('Invalid');
    expect(reply.body.message).toBe(`ConfigMap "cm" is invalid: []: ${TOO_LONG}`);
    expect(reply.body.details.causes).toEqual([{ reason: 'FieldValueTooLong', field: '[]', message: TOO_LONG }]);
  });

  it('an update that grows past the cap is refused; the stored object stays', async () => {
    const created = await h.call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'grow' }, data: { a: 'x'.repeat(MiB) } });
    expect(created.status).toBe(201);
    const reply = await h.call('PUT', '/api/v1/namespaces/default/configmaps/grow', { ...created.body, data: { a: 'x'.repeat(MiB), b: 'y' } });
    expect(reply.status).toBe(422);
    expect(reply.body.details.causes).toEqual([{ reason: 'FieldValueTooLong', field: '[]', message: TOO_LONG }]);
    const patched = await h.call('PATCH', '/api/v1/namespaces/default/configmaps/grow', { data: { c: 'z' } }, { 'content-type': 'application/merge-patch+json' });
    expect(patched.status).toBe(422);
    expect((await h.call('GET', '/api/v1/namespaces/default/configmaps/grow')).body.data).toEqual({ a: 'x'.repeat(MiB) });
  });
});
