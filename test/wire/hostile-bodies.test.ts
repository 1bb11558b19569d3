// Hostile request bodies over HTTPS: nesting deep enough to exhaust a recursive walk, and bodies
// that do not parse at all. Each is refused with the Status kube-apiserver's decoders give (Go's
// encoding/json, go-yaml and fxamacker/cbor wording; nesting is refused past MAX_NESTING_DEPTH,
// below Go's 10,000, see runtime/machinery/nesting.ts), the server keeps answering, and nothing
// is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeCBOR } from '../../runtime/api/cbor.js';
import { encodeObject, loadDescriptorRoot } from '../../runtime/api/protobuf/index.js';
import { generatedPath } from '../../runtime/generated-files.js';
import { MAX_NESTING_DEPTH } from '../../runtime/machinery/nesting.js';
import { startWireServer, type WireResult, type WireServer } from '../support/wire-client.js';

let wire: WireServer;
const CM = '/api/v1/namespaces/default/configmaps';
const JSON_TYPE = { 'content-type': 'application/json' };

beforeAll(async () => {
  wire = await startWireServer({ featureGates: { CBORServingAndStorage: true } });
});
afterAll(async () => {
  await wire?.close();
});

/** `levels` arrays, one inside the other. */
const arrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
/** `levels` objects, each the member "a" of the one around it. */
const objects = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
/** A ConfigMap whose unknown member "junk" holds `value`: one level more than the value. */
const configMapWith = (name: string, value: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},"junk":${value}}`;

/** Node sends a DELETE body only with its length given. */
const withLength = (body: string) => ({ ...JSON_TYPE, 'content-length': String(Buffer.byteLength(body)) });

function expectStatus(res: WireResult, code: number, reason: string, message: string) {
  expect(res.json()).toMatchObject({ kind: 'Status', status: 'Failure', code, reason, message });
  expect(res.status).toBe(code);
}

/** A decoder's error that kube-apiserver's handler sends on unwrapped: 500, no reason. */
function expectDecoderFailure(res: WireResult, message: string) {
  expect(res.status).toBe(500);
  const status = res.json() as { reason?: string };
  expect(status).toMatchObject({ kind: 'Status', status: 'Failure', code: 500, message });
  expect(status.reason ?? '').toBe('');
}

/** kube-apiserver's summary of a refused create or update body: its first 30 bytes. */
function summary(body: string): string {
  const bytes = Buffer.from(body);
  const head = bytes.subarray(0, 30);
  const text = bytes[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return bytes.length > 30 ? `${text} ...` : text;
}

const unrecognized = (kind: string, why: string, body: string) => `the object provided is unrecognized (must be of type ${kind}): ${why} (${summary(body)})`;

async function expectServing() {
  const ready = await wire.call('GET', '/readyz');
  expect(ready.status).toBe(200);
  expect(ready.text).toBe('ok');
}

async function expectAbsent(name: string) {
  expect((await wire.call('GET', `${CM}/${name}`)).status).toBe(404);
}

async function resourceVersionOf(name: string): Promise<string> {
  const res = await wire.call('GET', `${CM}/${name}`);
  expect(res.status).toBe(200);
  return res.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
}

async function create(name: string) {
  const res = await wire.call('POST', CM, { headers: JSON_TYPE, body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { a: 'b' } }) });
  expect(res.status).toBe(201);
}

describe('nesting: refused past the limit with the decoders\' messages, never a stack overflow', () => {
  // Beyond Go's own limit, and at the first level past ours.
  const tooDeep = [10_001, MAX_NESTING_DEPTH];

  it('accepts a create or update body nested exactly to the limit', async () => {
    const body = configMapWith('at-limit', arrays(MAX_NESTING_DEPTH - 1));
    const created = await wire.call('POST', CM, { headers: JSON_TYPE, body });
    expect(created.status).toBe(201);
    // The unknown member is dropped, as decoding into the Go struct drops it.
    expect(created.json()).not.toHaveProperty('junk');
    const updated = await wire.call('PUT', `${CM}/at-limit`, { headers: JSON_TYPE, body: configMapWith('at-limit', objects(MAX_NESTING_DEPTH - 1)) });
    expect(updated.status).toBe(200);
  });

  it.each(tooDeep)('refuses a JSON create body with %i nested arrays or objects', async (levels) => {
    for (const [shape, value, bracket] of [['a', arrays(levels), '['], ['o', objects(levels), '{']]) {
      const body = configMapWith(`deep-${shape}-${levels}`, value);
      const res = await wire.call('POST', CM, { headers: JSON_TYPE, body });
      expectStatus(res, 400, 'BadRequest', unrecognized('ConfigMap', `couldn't get version/kind; json parse error: invalid character '${bracket}' exceeded max depth`, body));
      await expectAbsent(`deep-${shape}-${levels}`);
    }
    await expectServing();
  });

  it.each(tooDeep)('refuses a YAML create body with %i levels, flow or block style', async (levels) => {
    const flow = configMapWith(`yaml-flow-${levels}`, arrays(levels));
    let block = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: yaml-block-${levels}\njunk:\n`;
    // The top mapping, then one more for each line: `levels` + 1 in all.
    for (let i = 1; i <= Math.min(levels, 600); i++) block += `${' '.repeat(2 * i)}a:\n`;
    for (const [name, body] of [[`yaml-flow-${levels}`, flow], [`yaml-block-${levels}`, block]]) {
      const res = await wire.call('POST', CM, { headers: { 'content-type': 'application/yaml' }, body });
      expectStatus(res, 400, 'BadRequest', unrecognized('ConfigMap', `yaml: exceeded max depth of ${MAX_NESTING_DEPTH}`, body));
      await expectAbsent(name);
    }
    await expectServing();
  });

  it.each(tooDeep)('refuses an update body with %i levels and keeps the stored object', async (levels) => {
    await create(`put-${levels}`);
    const before = await resourceVersionOf(`put-${levels}`);
    const body = configMapWith(`put-${levels}`, objects(levels));
    const res = await wire.call('PUT', `${CM}/put-${levels}`, { headers: JSON_TYPE, body });
    expectStatus(res, 400, 'BadRequest', unrecognized('ConfigMap', "couldn't get version/kind; json parse error: invalid character '{' exceeded max depth", body));
    expect(await resourceVersionOf(`put-${levels}`)).toBe(before);
    await expectServing();
  });

  it.each(tooDeep)('refuses patch documents with %i levels, each as its decoder words it', async (levels) => {
    await create(`patch-${levels}`);
    const before = await resourceVersionOf(`patch-${levels}`);
    const path = `${CM}/patch-${levels}`;
    const patch = (type: string, body: string, query = '') => wire.call('PATCH', `${path}${query}`, { headers: { 'content-type': type }, body });
    const merge = `{"junk":${arrays(levels)}}`;
    // Warn and Strict decode the patch strictly first; under Ignore json-patch's MergePatch answers any syntax error so.
    expectStatus(await patch('application/merge-patch+json', merge), 400, 'BadRequest', "error decoding patch: invalid character '[' exceeded max depth");
    expectStatus(await patch('application/merge-patch+json', merge, '?fieldValidation=Ignore'), 400, 'BadRequest', 'Invalid JSON Patch');
    expectStatus(await patch('application/strategic-merge-patch+json', `{"junk":${objects(levels)}}`), 400, 'BadRequest', "invalid character '{' exceeded max depth");
    const jsonPatch = `[{"op":"add","path":"/junk","value":${arrays(levels)}}]`;
    expectStatus(await patch('application/json-patch+json', jsonPatch), 400, 'BadRequest', "error decoding patch: invalid character '[' exceeded max depth");
    expectStatus(await patch('application/json-patch+json', jsonPatch, '?fieldValidation=Ignore'), 400, 'BadRequest', "invalid character '[' exceeded max depth");
    const apply = configMapWith(`patch-${levels}`, objects(levels));
    expectStatus(
      await patch('application/apply-patch+yaml', apply, '?fieldManager=deep'),
      400,
      'BadRequest',
      `error decoding YAML: error converting YAML to JSON: yaml: exceeded max depth of ${MAX_NESTING_DEPTH}`,
    );
    expect(await resourceVersionOf(`patch-${levels}`)).toBe(before);
    await expectServing();
  });

  it('accepts patch documents nested to the limit', async () => {
    await create('patch-at-limit');
    const path = `${CM}/patch-at-limit`;
    const merge = await wire.call('PATCH', path, { headers: { 'content-type': 'application/merge-patch+json' }, body: `{"junk":${arrays(MAX_NESTING_DEPTH - 1)}}` });
    expect(merge.status).toBe(200);
    const smp = await wire.call('PATCH', path, { headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: `{"junk":${objects(MAX_NESTING_DEPTH - 1)}}` });
    expect(smp.status).toBe(200);
    const json = await wire.call('PATCH', path, { headers: { 'content-type': 'application/json-patch+json' }, body: `[{"op":"add","path":"/junk","value":${arrays(MAX_NESTING_DEPTH - 2)}}]` });
    expect(json.status).toBe(200);
    expect(json.json()).not.toHaveProperty('junk');
  });

  it('stops a JSON Patch whose operations nest the document past the limit (an add at a deep path, a copy doubling a branch)', async () => {
    await create('grow');
    const before = await resourceVersionOf('grow');
    const levels = 150;
    const inner = `/junk${'/a'.repeat(levels - 1)}/x`;
    const cases = [
      [{ op: 'add', path: '/junk', value: JSON.parse(objects(levels)) }, { op: 'add', path: inner, value: JSON.parse(objects(levels)) }],
      [{ op: 'add', path: '/junk', value: JSON.parse(objects(levels)) }, { op: 'copy', from: '/junk', path: inner }],
    ];
    for (const ops of cases) {
      const res = await wire.call('PATCH', `${CM}/grow`, { headers: { 'content-type': 'application/json-patch+json' }, body: JSON.stringify(ops) });
      const status = res.json<{ code: number; reason: string; message: string; details: { causes: { field: string }[] } }>();
      expect(res.status).toBe(422);
      expect(status.reason).toBe('Invalid');
      // kube-apiserver's answer to a patched document its decoder refuses: the document quoted, then Go's error.
      expect(status.message).toMatch(/^ "" is invalid: patch: Invalid value: "\{\\"apiVersion\\":\\"v1\\",/);
      expect(status.message.endsWith(`: couldn't get version/kind; json parse error: invalid character '{' exceeded max depth`)).toBe(true);
      expect(status.details.causes[0].field).toBe('patch');
    }
    expect(await resourceVersionOf('grow')).toBe(before);
    // The same operations within the limit are applied (the unknown member then dropped).
    const fits = [{ op: 'add', path: '/junk', value: JSON.parse(objects(100)) }, { op: 'copy', from: '/junk', path: `/junk${'/a'.repeat(99)}/x` }];
    const ok = await wire.call('PATCH', `${CM}/grow`, { headers: { 'content-type': 'application/json-patch+json' }, body: JSON.stringify(fits) });
    expect(ok.status).toBe(200);
    expect(ok.json()).not.toHaveProperty('junk');
    await expectServing();
  });

  it('serves the deepest object it stores in every format', async () => {
    // managedFields' fieldsV1 is the one member kept whatever its shape: nest it to the limit.
    const fields = '{"f:a":'.repeat(MAX_NESTING_DEPTH - 6) + '{}' + '}'.repeat(MAX_NESTING_DEPTH - 6);
    const body = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep-fields","managedFields":[{"manager":"m","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":${fields}}]}}`;
    expect((await wire.call('POST', CM, { headers: JSON_TYPE, body })).status).toBe(201);
    for (const accept of ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/cbor', 'application/json;as=Table;v=v1;g=meta.k8s.io']) {
      expect((await wire.call('GET', `${CM}/deep-fields`, { headers: { accept } })).status, accept).toBe(200);
      expect((await wire.call('GET', CM, { headers: { accept } })).status, accept).toBe(200);
    }
    const merged = await wire.call('PATCH', `${CM}/deep-fields`, { headers: { 'content-type': 'application/strategic-merge-patch+json' }, body: '{"data":{"k":"v"}}' });
    expect(merged.status).toBe(200);
  });

  it('refuses a protobuf body whose embedded JSON (managedFields) nests past the limit', async () => {
    const root = loadDescriptorRoot(generatedPath('protobuf/descriptors.json'));
    const withFields = (name: string, levels: number) =>
      new Uint8Array(
        encodeObject(root, 'k8s.io.api.core.v1.ConfigMap', {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name, managedFields: [{ manager: 'm', operation: 'Update', apiVersion: 'v1', fieldsType: 'FieldsV1', fieldsV1: JSON.parse(objects(levels)) }] },
        }),
      );
    const headers = { 'content-type': 'application/vnd.kubernetes.protobuf' };
    const res = await wire.call('POST', CM, { headers, body: withFields('pb-deep', MAX_NESTING_DEPTH + 1) });
    expectStatus(res, 400, 'BadRequest', "unable to decode ConfigMap from protobuf: invalid character '{' exceeded max depth");
    await expectAbsent('pb-deep');
    expect((await wire.call('POST', CM, { headers, body: withFields('pb-fits', 200) })).status).toBe(201);
    await expectServing();
  });

  it.each(tooDeep)('refuses DeleteOptions nested %i levels and deletes nothing', async (levels) => {
    await create(`del-${levels}`);
    const body = `{"kind":"DeleteOptions","apiVersion":"v1","junk":${arrays(levels)}}`;
    const res = await wire.call('DELETE', `${CM}/del-${levels}`, { headers: withLength(body), body });
    // The delete handler passes its decoder's error on as it is (no transformDecodeError there): a 500 without a reason.
    expectDecoderFailure(res, "couldn't get version/kind; json parse error: invalid character '[' exceeded max depth");
    await resourceVersionOf(`del-${levels}`);
    await expectServing();
  });

  describe('CBOR (kube refuses past 64 levels of arrays, maps and tags)', () => {
    const cbor = { 'content-type': 'application/cbor' };
    /** Arrays nested `levels` deep, self-described: one level more for the tag. */
    const deepArrays = (levels: number) => Uint8Array.from([0xd9, 0xd9, 0xf7, ...new Array(levels - 1).fill(0x81), 0x80]);
    const nestedValue = (levels: number): unknown => (levels === 1 ? [] : [nestedValue(levels - 1)]);
    const hex = (bytes: Uint8Array) => {
      const head = Buffer.from(bytes.subarray(0, 30)).toString('hex');
      return bytes.length > 30 ? `${head} ...` : head;
    };

    it('takes 64 levels, the self-described tag and the object among them', async () => {
      const body = encodeCBOR({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cbor-64' }, junk: nestedValue(62) });
      expect((await wire.call('POST', CM, { headers: cbor, body })).status).toBe(201);
    });

    it.each([65, 10_001])('refuses %i levels on create and on apply', async (levels) => {
      const body = levels === 65 ? encodeCBOR({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cbor-65' }, junk: nestedValue(63) }) : deepArrays(levels);
      const res = await wire.call('POST', CM, { headers: cbor, body });
      expectStatus(res, 400, 'BadRequest', `the object provided is unrecognized (must be of type ConfigMap): unable to determine group/version/kind: cbor: exceeded max nested level 64 (${hex(body)})`);
      await expectAbsent('cbor-65');
      const apply = await wire.call('PATCH', `${CM}/cbor-apply?fieldManager=m`, { headers: { 'content-type': 'application/apply-patch+cbor' }, body });
      expectStatus(apply, 400, 'BadRequest', 'error decoding patch: cbor: exceeded max nested level 64');
      await expectAbsent('cbor-apply');
      await expectServing();
    });
  });
});

describe('YAML syntax errors: the first one only', () => {
  // The YAML library makes one error, with a quoted excerpt, of every stray token: a body of
  // stray brackets (under the 3 MiB limit) would hold the event loop for minutes.
  it.each([
    ['flow-seq-end', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: strays}\ndata: [${']'.repeat(2_000_000)}`, 'Unexpected flow-seq-end token in YAML stream'],
    ['flow-map-end', `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: strays}\n${'}'.repeat(2_000_000)}`, 'Unexpected flow-map-end token in YAML stream'],
  ])('refuses a create of 2 MB of stray %s tokens with the first error', async (_name, body, first) => {
    const res = await wire.call('POST', CM, { headers: { 'content-type': 'application/yaml' }, body });
    expect(res.status).toBe(400);
    const message = res.json<{ message: string }>().message;
    expect(message).toContain(`couldn't get version/kind; yaml parse error: ${first}`);
    await expectAbsent('strays');
    await expectServing();
  });
});

describe('bodies that do not parse: Go\'s syntax errors in each endpoint\'s wrapper', () => {
  it('answers YAML sent as JSON as kube-apiserver does', async () => {
    const body = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: yaml-as-json\n';
    const res = await wire.call('POST', '/api/v1/namespaces', { headers: JSON_TYPE, body });
    expectStatus(res, 400, 'BadRequest', unrecognized('Namespace', "couldn't get version/kind; json parse error: invalid character 'a' looking for beginning of value", body));
    expect(res.json<{ message: string }>().message).toContain('(61706956657273696f6e3a2076310a6b696e643a204e616d657370616365 ...)');
    expect((await wire.call('GET', '/api/v1/namespaces/yaml-as-json')).status).toBe(404);
    await expectServing();
  });

  it.each<[string, string, string]>([
    ['a truncated object', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t"', 'unexpected end of JSON input'],
    ['a trailing comma', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t"},}', "invalid character '}' looking for beginning of object key string"],
    ['a bad escape', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t\\x"}}', "invalid character 'x' in string escape code"],
    ['a missing colon', '{"apiVersion" "v1"}', 'invalid character \'"\' after object key'],
    ['two documents', '{"apiVersion":"v1"} {}', "invalid character '{' after top-level value"],
    ['a raw newline in a string', '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a\nb"}}', "invalid character '\\n' in string literal"],
    ['an empty body', '', 'unexpected end of JSON input'],
  ])('refuses %s on create and update', async (_name, body, why) => {
    const created = await wire.call('POST', CM, { headers: JSON_TYPE, body });
    const summaryOf = body === '' ? '<empty>' : summary(body);
    expectStatus(created, 400, 'BadRequest', `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: ${why} (${summaryOf})`);
    await expectAbsent('t');
    const updated = await wire.call('PUT', `${CM}/t`, { headers: JSON_TYPE, body });
    expectStatus(updated, 400, 'BadRequest', `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: ${why} (${summaryOf})`);
    await expectAbsent('t');
  });

  it('refuses DeleteOptions that do not parse with Go\'s text', async () => {
    await create('del-bad');
    const body = '{"gracePeriodSeconds":0,';
    const res = await wire.call('DELETE', `${CM}/del-bad`, { headers: withLength(body), body });
    expectDecoderFailure(res, "couldn't get version/kind; json parse error: unexpected end of JSON input");
    await resourceVersionOf('del-bad');
  });

  it('refuses patch documents that do not parse with each patch type\'s wording', async () => {
    await create('bad-patches');
    const before = await resourceVersionOf('bad-patches');
    const patch = (type: string, body: string, query = '') => wire.call('PATCH', `${CM}/bad-patches${query}`, { headers: { 'content-type': type }, body });
    const why = "invalid character 'd' looking for beginning of value";
    expectStatus(await patch('application/merge-patch+json', 'data: {a: b}'), 400, 'BadRequest', `error decoding patch: ${why}`);
    expectStatus(await patch('application/merge-patch+json', 'data: {a: b}', '?fieldValidation=Ignore'), 400, 'BadRequest', 'Invalid JSON Patch');
    expectStatus(await patch('application/strategic-merge-patch+json', '{"data":{"a":"b"},}'), 400, 'BadRequest', "invalid character '}' looking for beginning of object key string");
    expectStatus(await patch('application/json-patch+json', '[{"op":"add","path":"/data/a","value":tru}]'), 400, 'BadRequest', "error decoding patch: invalid character '}' in literal true (expecting 'e')");
    expectStatus(await patch('application/json-patch+json', '[{"op":"add"', '?fieldValidation=Ignore'), 400, 'BadRequest', 'unexpected end of JSON input');
    expect(await resourceVersionOf('bad-patches')).toBe(before);
    await expectServing();
  });
});
