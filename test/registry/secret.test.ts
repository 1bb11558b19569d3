import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StatusError } from '../../runtime/errors/status-error.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import type { Store } from '../../runtime/registry/store.js';
import type { Storage } from '../../runtime/storage/interface.js';
import { backends, definitions } from '../support/registry-fixtures.js';

const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

describe.each(backends)('secret strategy on %s storage', (_n, makeStorage) => {
  let storage: Storage;
  let secrets: Store;
  beforeEach(async () => {
    storage = makeStorage();
    const registry = new ResourceRegistry(storage, definitions);
    secrets = registry.storeFor('', 'v1', 'secrets')!;
    await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'default' } });
  });
  afterEach(() => storage.close());

  it('merges stringData into data (overriding) and never stores or returns it', async () => {
    const created = await secrets.create('default', { metadata: { name: 's' }, data: { a: b64('old'), b: b64('keep') }, stringData: { a: 'néw' } });
    expect(created.data).toEqual({ a: b64('néw'), b: b64('keep') });
    expect(created.stringData).toBeUndefined();
    const stored = await storage.get('/registry/secrets/default/s');
    expect(JSON.parse(stored!.value).stringData).toBeUndefined();
    const updated = await secrets.update('default', 's', { ...created, stringData: { c: 'x' } });
    expect(updated.data).toEqual({ a: b64('néw'), b: b64('keep'), c: b64('x') });
    expect(updated.stringData).toBeUndefined();
    expect((await secrets.get('default', 's')).stringData).toBeUndefined();
  });

  it('total data above 1 MiB is 422 at data', async () => {
    const big = 'x'.repeat(1024 * 1024 + 1);
    let err: unknown;
    try {
      await secrets.create('default', { metadata: { name: 'big' }, stringData: { big } });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StatusError);
    const s = err as StatusError;
    expect(s.code).toBe(422);
    expect(s.message).toBe('Secret "big" is invalid: data: Too long: may not be more than 1048576 bytes');
    expect(s.details?.causes).toEqual([{ reason: 'FieldValueTooLong', message: 'Too long: may not be more than 1048576 bytes', field: 'data' }]);
    // Exactly 1 MiB is allowed.
    await expect(secrets.create('default', { metadata: { name: 'edge' }, stringData: { big: big.slice(1) } })).resolves.toBeTruthy();
  });

  it('type is immutable', async () => {
    const created = await secrets.create('default', { metadata: { name: 't' }, type: 'Opaque' });
    await expect(secrets.update('default', 't', { ...created, type: 'example.com/other' })).rejects.toMatchObject({
      code: 422,
      message: 'Secret "t" is invalid: type: Invalid value: "example.com/other": field is immutable',
    });
    // The new type's own required keys are checked too, after the immutability (ValidateSecretUpdate's order).
    await expect(secrets.update('default', 't', { ...created, type: 'kubernetes.io/tls' })).rejects.toMatchObject({
      code: 422,
      message: 'Secret "t" is invalid: [type: Invalid value: "kubernetes.io/tls": field is immutable, data[tls.crt]: Required value, data[tls.key]: Required value]',
    });
  });
});
