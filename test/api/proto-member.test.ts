// A member named `__proto__` is data like any other key: JSON.parse makes it an own property, and
// kube (Go maps) keeps it. Every path a body or a stored object takes (decoders, patch engines,
// apply, managedFields, defaulting and pruning, encoders) must keep it as a member, never drop it
// and never turn it into the object's prototype.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { decodeCBOR, encodeCBOR } from '../../runtime/api/cbor.js';
import { decodeObject, encodeObject, loadDescriptorRoot, messageNameResolver } from '../../runtime/api/protobuf/index.js';
import { startWireServer, type WireResult, type WireServer } from '../support/wire-client.js';

const CMS = '/api/v1/namespaces/default/configmaps';
const CRD_PATH = '/apis/example.com/v1/namespaces/default/widgets';
const JSON_CT = { 'content-type': 'application/json' };
const root = loadDescriptorRoot('generated/protobuf/descriptors.json');
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const CBOR = 'application/cbor';

type Obj = Record<string, unknown>;

let w: WireServer;
beforeAll(async () => {
  w = await startWireServer({ featureGates: { CBORServingAndStorage: true } });
  await createCRD('widgets', 'Widget', { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } });
  // Values that may never change once set: a transition rule, which only correlated (old) keys meet.
  const frozen = { type: 'string', maxLength: 10, 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'frozen' }] };
  await createCRD('gadgets', 'Gadget', { type: 'object', properties: { spec: { type: 'object', maxProperties: 10, additionalProperties: frozen } } });
  await createCRD('things', 'Thing', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }, { status: {} });
});
afterAll(() => w?.close());

async function createCRD(plural: string, kind: string, openAPIV3Schema: Obj, subresources: Obj = {}): Promise<void> {
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema }, subresources }],
    },
  };
  const created = await w.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { headers: JSON_CT, body: JSON.stringify(crd) });
  expect(created.status, created.text).toBe(201);
  for (const end = Date.now() + 10_000; Date.now() < end; await new Promise((r) => setTimeout(r, 25))) {
    if ((await w.call('GET', `/apis/example.com/v1/namespaces/default/${plural}`)).status === 200) return;
  }
  throw new Error(`${plural} were never served`);
}
const send = (method: string, path: string, body?: string, contentType = 'application/json'): Promise<WireResult> =>
  w.call(method, path, body === undefined ? {} : { headers: { 'content-type': contentType }, body });

/** The `__proto__` own member of an object, or undefined; never what the prototype chain shows. */
function protoMember(obj: unknown): unknown {
  expect(Object.getPrototypeOf(obj)).toBe(Object.prototype);
  return Object.getOwnPropertyDescriptor(obj, '__proto__')?.value;
}

const dataOf = (obj: Obj) => obj.data as Obj;

async function expectStoredData(name: string, data: string): Promise<void> {
  // Raw text first: the member is on the wire, in a key order that JSON.parse then keeps.
  const got = await send('GET', `${CMS}/${name}`);
  expect(got.status).toBe(200);
  expect(JSON.parse(got.text).data).toEqual(JSON.parse(data));
  expect((await w.call('GET', '/readyz')).status).toBe(200);
}

describe('a ConfigMap data key named __proto__', () => {
  it('survives create, get, list, watch and update', async () => {
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1"},"data":{"__proto__":"q","a":"b"}}';
    const created = await send('POST', CMS, body);
    expect(created.status, created.text).toBe(201);
    expect(protoMember(dataOf(created.json()))).toBe('q');
    await expectStoredData('c1', '{"__proto__":"q","a":"b"}');

    const list = (await send('GET', `${CMS}?fieldSelector=metadata.name%3Dc1`)).json<{ items: Obj[] }>();
    expect(protoMember(dataOf(list.items[0]))).toBe('q');
    expect(JSON.stringify(list.items[0].data)).toBe('{"__proto__":"q","a":"b"}');

    const table = await w.call('GET', `${CMS}/c1`, { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    expect(table.json<{ rows: { cells: unknown[] }[] }>().rows[0].cells.slice(0, 2)).toEqual(['c1', 2]);

    const watched = await send('GET', `${CMS}?watch=1&resourceVersion=0&timeoutSeconds=1&fieldSelector=metadata.name%3Dc1`);
    const events = watched.text.trim().split('\n').map((line) => JSON.parse(line) as { type: string; object: Obj });
    expect(events.map((e) => e.type)).toEqual(['ADDED']);
    expect(protoMember(dataOf(events[0].object))).toBe('q');

    const current = created.json<{ metadata: Obj }>();
    const updated = await send('PUT', `${CMS}/c1`, JSON.stringify({ ...current, data: JSON.parse('{"__proto__":"r","a":"b"}') }));
    expect(updated.status, updated.text).toBe(200);
    expect(protoMember(dataOf(updated.json()))).toBe('r');
    await expectStoredData('c1', '{"__proto__":"r","a":"b"}');
  });

  it('is added, replaced and removed by a JSON patch', async () => {
    expect((await send('POST', CMS, '{"metadata":{"name":"c2"},"data":{"a":"b"}}')).status).toBe(201);
    const patch = (ops: string) => send('PATCH', `${CMS}/c2`, ops, 'application/json-patch+json');
    expect((await patch('[{"op":"add","path":"/data/__proto__","value":"x"}]')).status).toBe(200);
    await expectStoredData('c2', '{"a":"b","__proto__":"x"}');
    expect((await patch('[{"op":"replace","path":"/data/__proto__","value":"y"}]')).status).toBe(200);
    await expectStoredData('c2', '{"a":"b","__proto__":"y"}');
    expect((await patch('[{"op":"test","path":"/data/__proto__","value":"y"},{"op":"copy","from":"/data/__proto__","path":"/data/c"}]')).status).toBe(200);
    await expectStoredData('c2', '{"a":"b","__proto__":"y","c":"y"}');
    expect((await patch('[{"op":"remove","path":"/data/__proto__"}]')).status).toBe(200);
    await expectStoredData('c2', '{"a":"b","c":"y"}');
  });

  it.each([
    ['merge patch', 'application/merge-patch+json'],
    ['strategic merge patch', 'application/strategic-merge-patch+json'],
  ])('is set and deleted by a %s', async (_case, contentType) => {
    const name = contentType.startsWith('application/merge') ? 'c3' : 'c4';
    expect((await send('POST', CMS, `{"metadata":{"name":"${name}"},"data":{"a":"b"}}`)).status).toBe(201);
    const patched = await send('PATCH', `${CMS}/${name}`, '{"data":{"__proto__":"m"}}', contentType);
    expect(patched.status, patched.text).toBe(200);
    expect(protoMember(dataOf(patched.json()))).toBe('m');
    await expectStoredData(name, '{"__proto__":"m","a":"b"}');
    expect((await send('PATCH', `${CMS}/${name}`, '{"data":{"__proto__":null}}', contentType)).status).toBe(200);
    await expectStoredData(name, '{"a":"b"}');
  });

  it.each([
    ['YAML', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c5\ndata:\n  __proto__: q\n  a: b\n', 'c5'],
    ['JSON', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c6"},"data":{"__proto__":"q","a":"b"}}', 'c6'],
  ])('is kept and owned by server-side apply of a %s body', async (_case, body, name) => {
    const applied = await send('PATCH', `${CMS}/${name}?fieldManager=m`, body, 'application/apply-patch+yaml');
    expect(applied.status, applied.text).toBe(201);
    const obj = applied.json<{ metadata: { managedFields: { fieldsV1: Obj }[] } } & Obj>();
    expect(protoMember(dataOf(obj))).toBe('q');
    const fields = obj.metadata.managedFields[0].fieldsV1['f:data'] as Obj;
    expect(Object.keys(fields).sort()).toEqual(['f:__proto__', 'f:a']);
    await expectStoredData(name, '{"__proto__":"q","a":"b"}');

    // A second apply that leaves the key out removes it: the manager owned it.
    const again = await send('PATCH', `${CMS}/${name}?fieldManager=m`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"a":"b"}}`, 'application/apply-patch+yaml');
    expect(again.status, again.text).toBe(200);
    await expectStoredData(name, '{"a":"b"}');
    const reapplied = await send('PATCH', `${CMS}/${name}?fieldManager=m`, body, 'application/apply-patch+yaml');
    expect(reapplied.status, reapplied.text).toBe(200);
    await expectStoredData(name, '{"a":"b","__proto__":"q"}');
  });

  it('is kept by a dry-run create, which stores nothing', async () => {
    const reply = await send('POST', `${CMS}?dryRun=All`, '{"metadata":{"name":"c7"},"data":{"__proto__":"q"}}');
    expect(reply.status, reply.text).toBe(201);
    expect(protoMember(dataOf(reply.json()))).toBe('q');
    expect((await send('GET', `${CMS}/c7`)).status).toBe(404);
  });

  it('travels in YAML both ways', async () => {
    const created = await send('POST', CMS, 'metadata:\n  name: c8\ndata:\n  __proto__: q\n', 'application/yaml');
    expect(created.status, created.text).toBe(201);
    const got = await w.call('GET', `${CMS}/c8`, { headers: { accept: 'application/yaml' } });
    expect(got.text).toContain('\n  __proto__: q\n');
    await expectStoredData('c8', '{"__proto__":"q"}');
  });

  it('travels in protobuf both ways (a map entry)', async () => {
    const cm = JSON.parse('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c9"},"data":{"__proto__":"q","a":"b"}}') as Obj;
    const created = await w.call('POST', CMS, { headers: { 'content-type': PROTOBUF, accept: PROTOBUF }, body: encodeObject(root, 'k8s.io.api.core.v1.ConfigMap', cm) });
    expect(created.status).toBe(201);
    const decoded = decodeObject(root, new Uint8Array(created.raw), messageNameResolver(root)).object;
    expect(protoMember(dataOf(decoded))).toBe('q');
    await expectStoredData('c9', '{"__proto__":"q","a":"b"}');
  });

  it('travels in CBOR both ways', async () => {
    const cm = JSON.parse('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c10"},"data":{"__proto__":"q","a":"b"}}') as Obj;
    const created = await w.call('POST', CMS, { headers: { 'content-type': CBOR, accept: CBOR }, body: encodeCBOR(cm) });
    expect(created.status, created.text).toBe(201);
    expect(protoMember(dataOf(decodeCBOR(new Uint8Array(created.raw)) as Obj))).toBe('q');
    await expectStoredData('c10', '{"__proto__":"q","a":"b"}');
  });
});

describe('a preserve-unknown-fields custom resource with spec.__proto__', () => {
  const specOf = async (name: string) => {
    const got = await send('GET', `${CRD_PATH}/${name}`);
    expect(got.status).toBe(200);
    expect((await w.call('GET', '/readyz')).status).toBe(200);
    return got.json<{ spec: Obj }>().spec;
  };

  it('keeps the member through create and get', async () => {
    const created = await send('POST', CRD_PATH, '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1"},"spec":{"__proto__":{"x":1},"b":2}}');
    expect(created.status, created.text).toBe(201);
    const spec = await specOf('w1');
    expect(protoMember(spec)).toEqual({ x: 1 });
    expect(spec.x).toBeUndefined();
    expect(Object.keys(spec)).toEqual(['__proto__', 'b']);
  });

  it.each([
    ['merge patch', 'application/merge-patch+json', '{"spec":{"__proto__":{"y":2}}}', { x: 1, y: 2 }],
    ['JSON patch', 'application/json-patch+json', '[{"op":"add","path":"/spec/__proto__/y","value":2}]', { x: 1, y: 2 }],
  ])('keeps the member through a %s', async (_case, contentType, patch, want) => {
    const name = contentType.includes('merge') ? 'w2' : 'w3';
    expect((await send('POST', CRD_PATH, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"${name}"},"spec":{"__proto__":{"x":1},"b":2}}`)).status).toBe(201);
    const patched = await send('PATCH', `${CRD_PATH}/${name}`, patch, contentType);
    expect(patched.status, patched.text).toBe(200);
    const spec = await specOf(name);
    expect(protoMember(spec)).toEqual(want);
    expect(spec.b).toBe(2);
  });

  it('keeps the member through server-side apply, YAML and JSON', async () => {
    const yaml = 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w4\nspec:\n  __proto__:\n    x: 1\n  b: 2\n';
    const applied = await send('PATCH', `${CRD_PATH}/w4?fieldManager=m`, yaml, 'application/apply-patch+yaml');
    expect(applied.status, applied.text).toBe(201);
    expect(protoMember(await specOf('w4'))).toEqual({ x: 1 });
    const fields = applied.json<{ metadata: { managedFields: { fieldsV1: Obj }[] } }>().metadata.managedFields[0].fieldsV1;
    expect(protoMember((fields['f:spec'] as Obj) ?? {})).toBeUndefined();
    expect(Object.keys(fields['f:spec'] as Obj).sort()).toEqual(['f:__proto__', 'f:b']);

    const json = '{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w4"},"spec":{"__proto__":{"x":3},"b":2}}';
    const again = await send('PATCH', `${CRD_PATH}/w4?fieldManager=m`, json, 'application/apply-patch+yaml');
    expect(again.status, again.text).toBe(200);
    expect(protoMember(await specOf('w4'))).toEqual({ x: 3 });
  });

  it('keeps a top-level member through a status update, which copies the rest from storage', async () => {
    const path = '/apis/example.com/v1/namespaces/default/things';
    const created = await send('POST', path, '{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"t1"},"__proto__":{"spec":{"evil":1}},"spec":{"a":1}}');
    expect(created.status, created.text).toBe(201);
    const current = created.json<Obj>();
    const status = await send('PUT', `${path}/t1/status`, JSON.stringify({ ...current, spec: { a: 2 }, status: { ok: true } }));
    expect(status.status, status.text).toBe(200);
    const got = await send('GET', `${path}/t1`);
    const obj = got.json<Obj>();
    expect(protoMember(obj)).toEqual({ spec: { evil: 1 } });
    expect(obj.spec).toEqual({ a: 1 });
    expect(obj.status).toEqual({ ok: true });
  });

  it('YAML decoding keeps __proto__ a member, never the prototype', () => {
    const doc = parseYaml('__proto__:\n  x: 1\n') as Obj;
    expect(protoMember(doc)).toEqual({ x: 1 });
  });
});

describe('names of Object.prototype members in requests', () => {
  it.each(['__proto__', 'constructor', 'toString'])('a ConfigMap data key %s survives strategic merge and apply', async (key) => {
    const name = `o-${key.replace(/_/g, '').toLowerCase()}`;
    const applied = await send('PATCH', `${CMS}/${name}?fieldManager=m`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"data":{"${key}":"a"}}`, 'application/apply-patch+yaml');
    expect(applied.status, applied.text).toBe(201);
    const patched = await send('PATCH', `${CMS}/${name}`, `{"data":{"${key}":"b","x":"y"}}`, 'application/strategic-merge-patch+json');
    expect(patched.status, patched.text).toBe(200);
    await expectStoredData(name, `{"${key}":"b","x":"y"}`);
  });

  it.each(['__proto__', 'constructor'])('a duration unit %s is unknown', async (unit) => {
    const reply = await send('GET', `${CMS}?timeout=1${unit}`);
    expect(reply.status).toBe(400);
    expect(reply.json<Obj>().message).toBe(`invalid timeout specified in the request URL - time: unknown unit "${unit}" in duration "1${unit}"`);
  });

  it.each(['__proto__', 'constructor'])('a label selector word %s is an identifier, not an operator', async (word) => {
    const reply = await send('GET', `${CMS}?labelSelector=a%20${word}%20(b)`);
    expect(reply.status).toBe(400);
    expect(reply.json<Obj>().message).toBe(`unable to parse requirement: found '${word}', expected: in, notin, =, ==, !=, gt, lt`);
  });

  it.each(['__proto__', 'constructor'])('a DeleteOptions body of kind %s names no registered kind', async (kind) => {
    expect((await send('POST', CMS, `{"metadata":{"name":"del-${kind.replace(/_/g, '')}"}}`)).status).toBe(201);
    const body = `{"kind":"${kind}","apiVersion":"meta.k8s.io/v1"}`;
    const reply = await w.call('DELETE', `${CMS}/del-${kind.replace(/_/g, '')}`, { headers: { ...JSON_CT, 'content-length': String(body.length) }, body });
    expect(reply.status).toBe(500);
    expect(reply.json<Obj>().message).toBe(`no kind "${kind}" is registered for version "meta.k8s.io/v1" in scheme "pkg/apis/meta/internalversion/scheme/register.go:27"`);
    expect((await send('GET', `${CMS}/del-${kind.replace(/_/g, '')}`)).status).toBe(200);
  });
});

describe('__proto__ keys elsewhere', () => {
  it('is an unknown field of a built-in kind: dropped with a warning, never stored', async () => {
    const body = '{"metadata":{"name":"c12","__proto__":{"x":1}},"__proto__":["a"],"data":{"__proto__":"k"}}';
    const created = await send('POST', CMS, body);
    expect(created.status, created.text).toBe(201);
    expect(created.headers.warning).toBe('299 - "unknown field \\"metadata.__proto__\\"", 299 - "unknown field \\"__proto__\\""');
    const got = await send('GET', `${CMS}/c12`);
    const obj = got.json<{ metadata: Obj } & Obj>();
    expect(protoMember(obj)).toBeUndefined();
    expect(protoMember(obj.metadata)).toBeUndefined();
    expect(protoMember(dataOf(obj))).toBe('k');
    const strict = await send('POST', `${CMS}?fieldValidation=Strict`, body.replace('c12', 'c13'));
    expect(strict.status).toBe(400);
    expect(strict.json<Obj>().message).toBe('ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.__proto__", unknown field "__proto__"');
    expect((await send('GET', `${CMS}/c13`)).status).toBe(404);
  });

  it('a Secret stringData key becomes a data key', async () => {
    const created = await send('POST', '/api/v1/namespaces/default/secrets', '{"metadata":{"name":"s1"},"stringData":{"__proto__":"x","a":"y"}}');
    expect(created.status, created.text).toBe(201);
    const got = await send('GET', '/api/v1/namespaces/default/secrets/s1');
    expect(got.text).toContain('"data":{"__proto__":"eA==","a":"eQ=="}');
    expect(protoMember(got.json<Obj>().data)).toBe('eA==');
    expect((await w.call('GET', '/readyz')).status).toBe(200);
  });

  it('an Impersonate-Extra-__proto__ header is an extra like any other', async () => {
    const review = await w.call('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
      headers: { ...JSON_CT, 'impersonate-user': 'alice', 'impersonate-extra-__proto__': 'v', 'impersonate-extra-a': 'b' },
      body: '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}',
    });
    expect(review.status, review.text).toBe(201);
    const extra = review.json<{ status: { userInfo: { extra: Obj } } }>().status.userInfo.extra;
    expect(protoMember(extra)).toEqual(['v']);
    expect(extra.a).toEqual(['b']);
  });

  it('a strategic merge patch $setElementOrder/__proto__ orders a list named __proto__', async () => {
    // The original has no such list, so the patch's list is taken; a ConfigMap has no such field, so
    // decoding then drops it with a warning, as it drops any unknown field.
    expect((await send('POST', CMS, '{"metadata":{"name":"c11"}}')).status).toBe(201);
    const patched = await send('PATCH', `${CMS}/c11`, '{"$setElementOrder/__proto__":["a"],"__proto__":["a"]}', 'application/strategic-merge-patch+json');
    expect(patched.status, patched.text).toBe(200);
    expect(patched.headers.warning).toBe('299 - "unknown field \\"__proto__\\""');
    const got = await send('GET', `${CMS}/c11`);
    expect(protoMember(got.json())).toBeUndefined();
    expect((await w.call('GET', '/readyz')).status).toBe(200);
  });

  it('a new map key named __proto__ has no old value for a transition rule to compare', async () => {
    const path = '/apis/example.com/v1/namespaces/default/gadgets';
    const created = await send('POST', path, '{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g1"},"spec":{"a":"1"}}');
    expect(created.status, created.text).toBe(201);
    const added = await send('PATCH', `${path}/g1`, '{"spec":{"__proto__":"2"}}', 'application/merge-patch+json');
    expect(added.status, added.text).toBe(200);
    const changed = await send('PATCH', `${path}/g1`, '{"spec":{"__proto__":"3"}}', 'application/merge-patch+json');
    expect(changed.status).toBe(422);
    expect(changed.json<{ details: { causes: Obj[] } }>().details.causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: "string": frozen', field: 'spec[__proto__]' }]);
    const got = await send('GET', `${path}/g1`);
    expect(JSON.parse(got.text).spec).toEqual(JSON.parse('{"__proto__":"2","a":"1"}'));
  });
});
