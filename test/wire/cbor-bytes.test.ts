// Go []byte fields (OpenAPI format: byte; Secret data, ConfigMap binaryData) over CBOR, as
// kube-apiserver's CBOR serializer treats them: written as tag 22 around a byte string of the raw
// bytes (never base64 text), read back from a tagged byte string as raw bytes, from an untagged
// byte string as base64 text, and refused as a text string. application/apply-patch+cbor decodes
// like an unstructured object (tag 22 bytes become their base64). Decoded here with cbor2.
import { decode, decodeSequence, encode, Tag } from 'cbor2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWireServer, type WireServer } from '../support/wire-client.js';

let wire: WireServer;
const SECRETS = '/api/v1/namespaces/default/secrets';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const RAW = Buffer.from([0x68, 0x69, 0x00, 0xff, 0xfe]);
/** cbor2 writes a Buffer as its toJSON() map; a plain Uint8Array is a byte string. */
const u8 = (b: Buffer | string) => new Uint8Array(typeof b === 'string' ? Buffer.from(b) : b);
const CBOR = { 'content-type': 'application/cbor', accept: 'application/cbor' };

beforeAll(async () => {
  wire = await startWireServer({ featureGates: { CBORServingAndStorage: true } });
});
afterAll(async () => {
  await wire?.close();
});

/** A decoded CBOR item with its map keys as text and every value left as cbor2 gives it. */
function plain(value: unknown): unknown {
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) out[k instanceof Uint8Array ? Buffer.from(k).toString('utf8') : String(k)] = plain(v);
    return out;
  }
  if (Array.isArray(value)) return value.map(plain);
  if (value instanceof Tag) return new Tag(value.tag, plain(value.contents));
  return value;
}

const decodeRaw = (bytes: Uint8Array) => plain(decode(bytes, { preferMap: true })) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- test navigation of arbitrary CBOR
const bytesOf = (tag: unknown) => {
  expect(tag).toBeInstanceOf(Tag);
  expect(Number((tag as Tag).tag)).toBe(22);
  return Buffer.from((tag as Tag).contents as Uint8Array);
};

/** A Secret document with the given data values (already in CBOR form) and text-string keys. */
const secretBody = (name: string, data: unknown) =>
  encode(new Map<string, unknown>([['apiVersion', 'v1'], ['kind', 'Secret'], ['metadata', new Map([['name', name]])], ['data', data]]));

async function createJSON(path: string, body: unknown) {
  const r = await wire.call('POST', path, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(r.status).toBe(201);
}

const getJSON = async (path: string) => (await wire.call('GET', path)).json<{ data?: Record<string, string>; binaryData?: Record<string, string> }>();

describe('CBOR responses write []byte as tagged byte strings', () => {
  beforeAll(async () => {
    await createJSON(SECRETS, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'raw' }, data: { k: RAW.toString('base64') }, stringData: { s: 'text' } });
    await createJSON(CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bin' }, data: { t: 'plain' }, binaryData: { b: RAW.toString('base64') } });
  });

  it('GET of a Secret', async () => {
    const r = await wire.call('GET', `${SECRETS}/raw`, { headers: { accept: 'application/cbor' } });
    expect(r.status).toBe(200);
    const secret = decodeRaw(r.raw);
    expect(bytesOf(secret.data.k)).toEqual(RAW);
    expect(bytesOf(secret.data.s)).toEqual(Buffer.from('text'));
    // Ordinary strings stay untagged byte strings.
    expect(Buffer.from(secret.type as Uint8Array).toString()).toBe('Opaque');
  });

  it('GET of a ConfigMap: binaryData tagged, data not', async () => {
    const cm = decodeRaw((await wire.call('GET', `${CONFIGMAPS}/bin`, { headers: { accept: 'application/cbor' } })).raw);
    expect(bytesOf(cm.binaryData.b)).toEqual(RAW);
    expect(cm.data.t).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(cm.data.t as Uint8Array).toString()).toBe('plain');
  });

  it('LIST', async () => {
    const list = decodeRaw((await wire.call('GET', SECRETS, { headers: { accept: 'application/cbor' } })).raw);
    const item = (list.items as Record<string, any>[]).find((i) => Buffer.from(i.metadata.name).toString() === 'raw')!; // eslint-disable-line @typescript-eslint/no-explicit-any -- as above
    expect(bytesOf(item.data.k)).toEqual(RAW);
  });

  it('WATCH (application/cbor-seq)', async () => {
    const r = await wire.call('GET', `${SECRETS}?watch=1&resourceVersion=0&timeoutSeconds=1&fieldSelector=metadata.name%3Draw`, { headers: { accept: 'application/cbor' } });
    expect(r.headers['content-type']).toBe('application/cbor-seq');
    const events = [...decodeSequence(r.raw, { preferMap: true })].map((e) => plain(e) as Record<string, any>); // eslint-disable-line @typescript-eslint/no-explicit-any -- as above
    expect(events).toHaveLength(1);
    expect(bytesOf(events[0].object.data.k)).toEqual(RAW);
  });
});

describe('CBOR request bodies read []byte as kube does', () => {
  it('takes a tagged byte string as the raw bytes', async () => {
    const r = await wire.call('POST', SECRETS, { headers: CBOR, body: secretBody('tagged', new Map([['k', new Tag(22, u8(RAW))]])) });
    expect(r.status).toBe(201);
    expect(bytesOf(decodeRaw(r.raw).data.k)).toEqual(RAW);
    expect((await getJSON(`${SECRETS}/tagged`)).data).toEqual({ k: RAW.toString('base64') });
  });

  it('takes an untagged byte string as base64 text', async () => {
    const r = await wire.call('POST', SECRETS, { headers: CBOR, body: secretBody('untagged', new Map([['k', u8(RAW.toString('base64'))]])) });
    expect(r.status).toBe(201);
    expect((await getJSON(`${SECRETS}/untagged`)).data).toEqual({ k: RAW.toString('base64') });
  });

  it('refuses an untagged byte string that is not base64', async () => {
    const r = await wire.call('POST', SECRETS, { headers: CBOR, body: secretBody('bad64', new Map([['k', u8('aGk')]])) });
    expect(r.status).toBe(400);
    const status = decodeRaw(r.raw);
    expect(Buffer.from(status.message).toString()).toBe(
      'Secret in version "v1" cannot be handled as a Secret: cbor: failed to decode base64 from byte string: illegal base64 data at input byte 0',
    );
  });

  it('refuses a text string where bytes belong', async () => {
    const r = await wire.call('POST', SECRETS, { headers: { 'content-type': 'application/cbor' }, body: secretBody('text', new Map([['k', 'aGk=']])) });
    expect(r.status).toBe(400);
    expect(r.json<{ reason: string; message: string }>()).toMatchObject({
      reason: 'BadRequest',
      message: 'Secret in version "v1" cannot be handled as a Secret: cbor: cannot unmarshal UTF-8 text string into Go struct field v1.Secret.data of type []uint8',
    });
    expect((await wire.call('GET', `${SECRETS}/text`)).status).toBe(404);
  });

  it('reads tag 22 around a string field as the base64 of its bytes', async () => {
    const body = encode(new Map<string, unknown>([['apiVersion', 'v1'], ['kind', 'ConfigMap'], ['metadata', new Map([['name', 'tag-on-string']])], ['data', new Map([['t', new Tag(22, u8('hi'))]])]]));
    const r = await wire.call('POST', CONFIGMAPS, { headers: { 'content-type': 'application/cbor' }, body });
    expect(r.status).toBe(201);
    expect((await getJSON(`${CONFIGMAPS}/tag-on-string`)).data).toEqual({ t: 'aGk=' });
  });
});

describe('application/apply-patch+cbor', () => {
  const APPLY = (manager: string) => ({ 'content-type': 'application/apply-patch+cbor', accept: 'application/json', 'x-manager': manager });
  const apply = (name: string, manager: string, body: Uint8Array) => wire.call('PATCH', `${SECRETS}/${name}?fieldManager=${manager}`, { headers: APPLY(manager), body });

  it('creates, then updates, with ownership recorded', async () => {
    const created = await apply('applied', 'cbor-applier', secretBody('applied', new Map([['k', new Tag(22, u8(RAW))]])));
    expect(created.status).toBe(201);
    const obj = created.json<{ data: Record<string, string>; metadata: { managedFields: { manager: string; operation: string; fieldsV1: unknown }[] } }>();
    expect(obj.data).toEqual({ k: RAW.toString('base64') });
    expect(obj.metadata.managedFields.map((e) => [e.manager, e.operation, e.fieldsV1])).toEqual([['cbor-applier', 'Apply', { 'f:data': { 'f:k': {} } }]]);

    // As in an unstructured decode, a text string is the base64 text itself.
    const updated = await apply('applied', 'cbor-applier', secretBody('applied', new Map<string, unknown>([['k', 'aGk='], ['j', new Tag(22, u8('x'))]])));
    expect(updated.status).toBe(200);
    expect(updated.json<{ data: Record<string, string> }>().data).toEqual({ j: 'eA==', k: 'aGk=' });

    const conflict = await apply('applied', 'other', secretBody('applied', new Map([['k', new Tag(22, u8('mine'))]])));
    expect(conflict.status).toBe(409);
    expect(conflict.json<{ message: string }>().message).toBe('Apply failed with 1 conflict: conflict with "cbor-applier": .data.k');
  });

  it('refuses a body that is not a CBOR map, or not CBOR', async () => {
    const list = await apply('x', 'm', encode([1, 2]));
    expect(list.status).toBe(400);
    expect(list.json<{ message: string }>().message).toBe('error decoding patch: cbor: cannot unmarshal array into Go value of type map[string]interface {}');
    const garbage = await apply('x', 'm', new Uint8Array([0xff, 0x00]));
    expect(garbage.status).toBe(400);
    expect(garbage.json<{ message: string }>().message).toMatch(/^error decoding patch: cbor: /);
  });

  it('needs a fieldManager like any apply', async () => {
    const r = await wire.call('PATCH', `${SECRETS}/applied`, { headers: { 'content-type': 'application/apply-patch+cbor' }, body: secretBody('applied', new Map()) });
    expect(r.status).toBe(422);
  });
});
