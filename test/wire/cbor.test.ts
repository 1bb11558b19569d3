// CBOR over HTTPS (gate CBORServingAndStorage): refused exactly as kube-apiserver refuses it with
// the gate off, and with the gate on served as kube-apiserver writes it: self-described, strings
// as byte strings, keys in bytewise order; watches as a CBOR sequence.
import { decode } from 'cbor2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCBOR, decodeCBORSequence, encodeCBOR } from '../../runtime/api/cbor.js';
import { startWireServer, type WireServer } from '../support/wire-client.js';

const NS = '/api/v1/namespaces/default/configmaps';
const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { b: '2', a: '1' } });

describe('the codec', () => {
  it('writes the self-described tag, byte strings and keys in bytewise order', () => {
    const bytes = encodeCBOR({ kind: 'X', b: 1.5, a: [true, null, 7] });
    expect(Buffer.from(bytes).toString('hex')).toBe(
      // d9d9f7 tag; map of 3; key "a" (41 61) -> [true, null, 7]; "b" -> half float 1.5; "kind" -> "X"
      'd9d9f7' + 'a3' + '4161' + '83f5f607' + '4162' + 'f93e00' + '446b696e64' + '4158',
    );
    expect(decodeCBOR(bytes)).toEqual({ a: [true, null, 7], b: 1.5, kind: 'X' });
  });

  it('reads text strings too, and refuses repeated keys', () => {
    // {"a": "x"} with text strings and no tag
    expect(decodeCBOR(Buffer.from('a161616178', 'hex'))).toEqual({ a: 'x' });
    expect(() => decodeCBOR(Buffer.from('a2416101416102', 'hex'))).toThrow(expect.objectContaining({ code: 400 }));
  });
});

describe('with CBORServingAndStorage off (the default)', () => {
  let wire: WireServer;
  beforeAll(async () => {
    wire = await startWireServer();
  });
  afterAll(async () => {
    await wire?.close();
  });

  it('answers Accept: application/cbor with 406', async () => {
    const r = await wire.call('GET', NS, { headers: { accept: 'application/cbor' } });
    expect(r.status).toBe(406);
    expect(r.json<{ message: string }>().message).toBe(
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
    const watch = await wire.call('GET', `${NS}?watch=1`, { headers: { accept: 'application/cbor' } });
    expect(watch.status).toBe(406);
    expect(watch.json<{ message: string }>().message).toBe(
      'only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch',
    );
  });

  it('refuses CBOR bodies and CBOR apply patches with 415', async () => {
    const create = await wire.call('POST', NS, { headers: { 'content-type': 'application/cbor' }, body: encodeCBOR(cm('off')) });
    expect(create.status).toBe(415);
    expect(create.json<{ message: string }>().message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
    const patch = await wire.call('PATCH', `${NS}/off`, { headers: { 'content-type': 'application/apply-patch+cbor' }, body: encodeCBOR({}) });
    expect(patch.status).toBe(415);
    expect(patch.json<{ message: string }>().message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml',
    );
  });
});

describe('with CBORServingAndStorage on', () => {
  let wire: WireServer;
  beforeAll(async () => {
    wire = await startWireServer({ featureGates: { CBORServingAndStorage: true } });
  });
  afterAll(async () => {
    await wire?.close();
  });

  it('creates from a CBOR body and answers in CBOR', async () => {
    const r = await wire.call('POST', NS, {
      headers: { 'content-type': 'application/cbor', accept: 'application/cbor' },
      body: encodeCBOR(cm('from-cbor')),
    });
    expect(r.status).toBe(201);
    expect(r.headers['content-type']).toBe('application/cbor');
    expect(r.raw.subarray(0, 3).toString('hex')).toBe('d9d9f7');
    const created = decodeCBOR(r.raw) as { metadata: { name: string; uid: string }; data: unknown };
    expect(created.metadata.name).toBe('from-cbor');
    expect(created.data).toEqual({ a: '1', b: '2' });
    const json = await wire.call('GET', `${NS}/from-cbor`);
    expect(json.json<{ metadata: { uid: string } }>().metadata.uid).toBe(created.metadata.uid);
  });

  it('lists in CBOR and names CBOR in its 406', async () => {
    const list = await wire.call('GET', NS, { headers: { accept: 'application/cbor' } });
    expect(list.status).toBe(200);
    const body = decodeCBOR(list.raw) as { kind: string; items: { metadata: { name: string } }[] };
    expect(body.kind).toBe('ConfigMapList');
    expect(body.items.map((i) => i.metadata.name)).toContain('from-cbor');
    const refused = await wire.call('GET', NS, { headers: { accept: 'text/plain' } });
    expect(refused.json<{ message: string }>().message).toBe(
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf, application/cbor',
    );
  });

  it('watches as a CBOR sequence', async () => {
    const r = await wire.call('GET', `${NS}?watch=1&resourceVersion=0&timeoutSeconds=1`, { headers: { accept: 'application/cbor' } });
    expect(r.headers['content-type']).toBe('application/cbor-seq');
    // Every event is its own self-described data item.
    expect(r.raw.subarray(0, 3).toString('hex')).toBe('d9d9f7');
    const events = decodeCBORSequence(r.raw) as { type: string; object: { metadata: { name: string } } }[];
    expect(events.length).toBeGreaterThan(0);
    const first = events[0];
    expect(first.type).toBe('ADDED');
    expect(first.object.metadata.name).toBe('from-cbor');
  });

  it('refuses CBOR bodies that do not fit the Go types, as JSON bodies are refused, and stores nothing', async () => {
    const created = await wire.call('POST', NS, { headers: { 'content-type': 'application/cbor' }, body: encodeCBOR(cm('typed')) });
    expect(created.status).toBe(201);
    const stored = await wire.call('GET', `${NS}/typed`, { headers: { accept: 'application/json' } });
    const object = stored.json<{ metadata: { managedFields: Array<Record<string, unknown>>; resourceVersion: string } }>();
    const bad: Array<[string, (o: typeof object) => void]> = [
      // Once stored, a time that is not RFC 3339 can no longer be encoded as protobuf.
      ['a managedFields time that is no time', (o) => (o.metadata.managedFields[0]!.time = '1 ')],
      ['a number for a time', (o) => (o.metadata.managedFields[0]!.time = 7)],
      ['a number for a string', (o) => ((o as unknown as { data: unknown }).data = { a: 7 })],
      ['a float for an integer', (o) => ((o.metadata as Record<string, unknown>).generation = 1.5)],
    ];
    for (const [what, change] of bad) {
      const body = structuredClone(object);
      change(body);
      const put = await wire.call('PUT', `${NS}/typed`, { headers: { 'content-type': 'application/cbor', accept: 'application/json' }, body: encodeCBOR(body) });
      expect(put.status, what).toBe(400);
      expect(put.json<{ message: string }>().message, what).toMatch(/^ConfigMap in version "v1" cannot be handled as a ConfigMap: /);
    }
    const after = await wire.call('GET', `${NS}/typed`, { headers: { accept: 'application/json' } });
    expect(after.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion).toBe(object.metadata.resourceVersion);
    expect((await wire.call('GET', `${NS}/typed`, { headers: { accept: 'application/vnd.kubernetes.protobuf' } })).status).toBe(200);
  });

  it('refuses a CBOR body with repeated keys with 400', async () => {
    // {"kind": "ConfigMap", "kind": "ConfigMap"} with byte-string keys and values
    const dup = Buffer.from('d9d9f7a2446b696e6449436f6e6669674d6170446b696e6449436f6e6669674d6170', 'hex');
    expect(() => decode(dup.subarray(3), { rejectDuplicateKeys: true })).toThrow();
    const r = await wire.call('POST', NS, { headers: { 'content-type': 'application/cbor' }, body: dup });
    expect(r.status).toBe(400);
  });

  it('lists application/apply-patch+cbor among the patch types', async () => {
    const r = await wire.call('PATCH', `${NS}/from-cbor`, { headers: { 'content-type': 'text/plain' }, body: '{}' });
    expect(r.status).toBe(415);
    expect(r.json<{ message: string }>().message).toBe(
      'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml, application/apply-patch+cbor',
    );
  });
});
