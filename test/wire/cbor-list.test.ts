// LIST, GET and WATCH as CBOR over HTTPS, served from kept encodings (runtime/api/kept-cbor.ts):
// whatever a response is assembled from, it is byte for byte what encoding the same objects
// afresh gives (the JSON answer, re-encoded), before and after writes, page by page with a
// continue token, and at the resourceVersions a client may ask for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeCBOR, decodeCBORSequence, encodeCBOR, encodeCBORWatchEvent } from '../../runtime/api/cbor.js';
import { startWireServer, type WireServer } from '../support/wire-client.js';

const NS = '/api/v1/namespaces/default/configmaps';
const COUNT = 240;
const CBOR = { accept: 'application/cbor' };
const JSON_ACCEPT = { accept: 'application/json' };
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

interface ConfigMap {
  metadata: { name: string; resourceVersion: string };
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}
interface List {
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: ConfigMap[];
}

let wire: WireServer;
/** The namespace's objects the server made itself (the root CA's ConfigMap). */
let before = 0;

/** Each object's data stresses another part of the encoder: short and long strings, non-ASCII, []byte values. */
function configMap(i: number) {
  const data: Record<string, string> = { i: String(i), pad: 'p'.repeat(i % 40) };
  if (i % 3 === 0) data.text = `caf\u00e9 ${'é'.repeat(i % 30)} 😀`;
  const binaryData = i % 4 === 0 ? { bin: Buffer.from([i & 0xff, 0, 0xff]).toString('base64') } : undefined;
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${String(i).padStart(3, '0')}`, labels: { group: String(i % 5) } }, data, binaryData };
}

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = JSON_ACCEPT) {
  const r = await wire.call(method, path, {
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return r;
}

/** The same path as JSON and as CBOR, asked one after the other with no write between. */
async function both(path: string) {
  const json = await call('GET', path);
  const cbor = await call('GET', path, undefined, CBOR);
  expect(json.status, json.text).toBe(200);
  expect(cbor.status).toBe(200);
  expect(cbor.headers['content-type']).toBe('application/cbor');
  return { json: json.json<List & ConfigMap>(), cbor: cbor.raw };
}

/** A CBOR answer is the JSON answer's objects encoded afresh, byte for byte, and decodes back to them. */
function expectSameAsJson(json: unknown, cbor: Uint8Array) {
  expect(hex(cbor)).toBe(hex(encodeCBOR(json)));
  expect(decodeCBOR(cbor)).toEqual(json);
}

beforeAll(async () => {
  wire = await startWireServer({ featureGates: { CBORServingAndStorage: true } });
  before = (await call('GET', NS)).json<List>().items.length;
  for (let i = 0; i < COUNT; i += 40) {
    await Promise.all(Array.from({ length: Math.min(40, COUNT - i) }, (_, j) => call('POST', NS, configMap(i + j)).then((r) => expect(r.status, r.text).toBe(201))));
  }
}, 60_000);
afterAll(async () => {
  await wire?.close();
});

describe('CBOR from kept encodings', () => {
  it('lists many objects as the JSON list holds them, and the same bytes again from what was kept', async () => {
    const { json, cbor } = await both(NS);
    expect(json.items).toHaveLength(before + COUNT);
    expectSameAsJson(json, cbor);
    const again = await call('GET', NS, undefined, CBOR);
    expect(hex(again.raw)).toBe(hex(cbor));
  });

  it('lists the new versions after updates, a delete and a create, never a kept encoding of an old one', async () => {
    await both(NS);
    for (const i of [0, 7, 100, COUNT - 1]) {
      const current = (await call('GET', `${NS}/${configMap(i).metadata.name}`)).json<ConfigMap>();
      const put = await call('PUT', `${NS}/${current.metadata.name}`, { ...current, data: { i: 'changed', text: 'é'.repeat(24) }, binaryData: { bin: 'AAEC' } });
      expect(put.status, put.text).toBe(200);
    }
    expect((await call('DELETE', `${NS}/${configMap(50).metadata.name}`)).status).toBe(200);
    expect((await call('POST', NS, configMap(COUNT))).status).toBe(201);
    const { json, cbor } = await both(NS);
    expectSameAsJson(json, cbor);
    const decoded = decodeCBOR(cbor, { apiVersion: 'v1', kind: 'ConfigMapList' }) as List;
    const byName = new Map(decoded.items.map((item) => [item.metadata.name, item]));
    expect(byName.get('cm-007')!.data).toEqual({ i: 'changed', text: 'é'.repeat(24) });
    expect(byName.get('cm-007')!.binaryData).toEqual({ bin: 'AAEC' });
    expect(byName.has('cm-050')).toBe(false);
    expect(byName.has(`cm-${COUNT}`)).toBe(true);
    expect(decoded.items).toHaveLength(before + COUNT);
  });

  it('pages with limit and continue as the JSON pages', async () => {
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const path = `${NS}?limit=100${token ? `&continue=${encodeURIComponent(token)}` : ''}`;
      const { json, cbor } = await both(path);
      expectSameAsJson(json, cbor);
      const page = decodeCBOR(cbor) as List;
      if (pages === 0) {
        expect(page.metadata.continue).toBeTruthy();
        expect(page.metadata.remainingItemCount).toBe(before + COUNT - 100);
      }
      names.push(...page.items.map((item) => item.metadata.name));
      token = page.metadata.continue;
      pages++;
    } while (token);
    expect(pages).toBe(3);
    const all = decodeCBOR((await call('GET', NS, undefined, CBOR)).raw) as List;
    expect(names).toEqual(all.items.map((item) => item.metadata.name));
  });

  it('lists at the resourceVersions a client may ask for, and with a selector', async () => {
    const current = (await both(NS)).json.metadata.resourceVersion;
    for (const query of ['resourceVersion=0', `resourceVersion=${current}`, `resourceVersion=${current}&resourceVersionMatch=Exact`, `resourceVersion=${current}&resourceVersionMatch=NotOlderThan`, 'labelSelector=group%3D3', 'fieldSelector=metadata.name%3Dcm-009']) {
      const { json, cbor } = await both(`${NS}?${query}`);
      expect(json.items.length, query).toBeGreaterThan(0);
      expectSameAsJson(json, cbor);
    }
  });

  it('gets an object as JSON has it, before and after an update', async () => {
    const path = `${NS}/cm-012`;
    const before = await both(path);
    expectSameAsJson(before.json, before.cbor);
    expect(hex((await call('GET', path, undefined, CBOR)).raw)).toBe(hex(before.cbor));
    const put = await call('PUT', path, { ...before.json, data: { i: 'updated' } });
    expect(put.status, put.text).toBe(200);
    const after = await both(path);
    expectSameAsJson(after.json, after.cbor);
    expect((decodeCBOR(after.cbor) as ConfigMap).data).toEqual({ i: 'updated' });
  });

  it('watches as the JSON watch does, each event encoded as encodeCBORWatchEvent writes it, the same for every watcher', async () => {
    const from = (await both(NS)).json.metadata.resourceVersion;
    for (const name of ['cm-020', 'cm-021']) {
      const current = (await call('GET', `${NS}/${name}`)).json<ConfigMap>();
      expect((await call('PUT', `${NS}/${name}`, { ...current, data: { i: 'watched' } })).status).toBe(200);
    }
    expect((await call('DELETE', `${NS}/cm-022`)).status).toBe(200);
    const path = `${NS}?watch=1&resourceVersion=${from}&timeoutSeconds=1`;
    const [json, one, two] = await Promise.all([call('GET', path), call('GET', path, undefined, CBOR), call('GET', path, undefined, CBOR)]);
    const jsonEvents = json.text.trim().split('\n').map((line) => JSON.parse(line) as { type: string; object: unknown });
    expect(jsonEvents.map((e) => e.type)).toEqual(['MODIFIED', 'MODIFIED', 'DELETED']);
    expect(decodeCBORSequence(one.raw)).toEqual(jsonEvents);
    expect(hex(one.raw)).toBe(jsonEvents.map((e) => hex(encodeCBORWatchEvent(e.type, e.object))).join(''));
    expect(hex(two.raw)).toBe(hex(one.raw));
  });

  it('still answers a list with a value too large for a one-byte length, and stores it as sent', async () => {
    const big = { ...configMap(999), data: { big: `${'b'.repeat(700 * 1024)}é` } };
    expect((await call('POST', NS, big)).status).toBe(201);
    const { json, cbor } = await both(NS);
    expectSameAsJson(json, cbor);
    const stored = (await call('GET', `${NS}/cm-999`)).json<ConfigMap>();
    expect(stored.data).toEqual(big.data);
    expect((await call('GET', '/readyz', undefined, {})).status).toBe(200);
  });
});
