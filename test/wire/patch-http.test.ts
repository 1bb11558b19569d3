// JSON Patch and fieldValidation over HTTPS, as clients see them: status, reason, message and
// causes of failures, Warning headers for repeated and unknown fields, 400/422 under Strict.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWireServer, type WireServer } from '../support/wire-client.js';

let wire: WireServer;
const NS = '/api/v1/namespaces/default/configmaps';
const JSON_PATCH = { 'content-type': 'application/json-patch+json' };

beforeAll(async () => {
  wire = await startWireServer();
});
afterAll(async () => {
  await wire?.close();
});

async function createConfigMap(name: string, data: Record<string, string>) {
  const r = await wire.call('POST', NS, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }),
  });
  expect(r.status).toBe(201);
}

const warningsOf = (headers: Record<string, string | string[] | undefined>): string[] => {
  const raw = headers.warning;
  const all = raw === undefined ? [] : Array.isArray(raw) ? raw : raw.split(/,(?=\s*299 )/);
  return all.map((w) => w.trim());
};

describe('application/json-patch+json', () => {
  it('applies every operation and answers with the stored object', async () => {
    await createConfigMap('jp-ok', { a: '1', b: '2' });
    const r = await wire.call('PATCH', `${NS}/jp-ok`, {
      headers: JSON_PATCH,
      body: JSON.stringify([
        { op: 'test', path: '/data/a', value: '1' },
        { op: 'add', path: '/metadata/labels', value: { tier: 'web' } },
        { op: 'replace', path: '/data/a', value: 'one' },
        { op: 'copy', from: '/data/b', path: '/data/c' },
        { op: 'move', from: '/data/b', path: '/data/d' },
        { op: 'remove', path: '/data/c' },
      ]),
    });
    expect(r.status).toBe(200);
    const obj = r.json<{ data: Record<string, string>; metadata: { labels: Record<string, string> } }>();
    expect(obj.data).toEqual({ a: 'one', d: '2' });
    expect(obj.metadata.labels).toEqual({ tier: 'web' });
    const got = await wire.call('GET', `${NS}/jp-ok`);
    expect(got.json<{ data: unknown }>().data).toEqual({ a: 'one', d: '2' });
  });

  it('fails a patch whose test does not hold with 422 and leaves the object alone', async () => {
    await createConfigMap('jp-test', { a: '1' });
    const r = await wire.call('PATCH', `${NS}/jp-test`, {
      headers: JSON_PATCH,
      body: JSON.stringify([
        { op: 'replace', path: '/data/a', value: '2' },
        { op: 'test', path: '/data/a', value: '1' },
      ]),
    });
    expect(r.status).toBe(422);
    expect(r.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the server rejected our request due to an error in our request',
      reason: 'Invalid',
      details: { causes: [{ reason: 'UnexpectedServerResponse', message: 'testing value /data/a failed: test failed' }] },
      code: 422,
    });
    const got = await wire.call('GET', `${NS}/jp-test`);
    expect(got.json<{ data: unknown }>().data).toEqual({ a: '1' });
  });

  it('fails an operation on a missing path with 422 naming it', async () => {
    await createConfigMap('jp-missing', { a: '1' });
    const r = await wire.call('PATCH', `${NS}/jp-missing`, {
      headers: JSON_PATCH,
      body: JSON.stringify([{ op: 'remove', path: '/data/zz' }]),
    });
    expect(r.status).toBe(422);
    expect(r.json<{ details: { causes: { message: string }[] } }>().details.causes[0].message).toBe(
      "error in remove for path: '/data/zz': Unable to remove nonexistent key: zz: missing value",
    );
  });

  it('refuses a patch document that is not a list of operations with 400', async () => {
    await createConfigMap('jp-bad', { a: '1' });
    const obj = await wire.call('PATCH', `${NS}/jp-bad`, { headers: JSON_PATCH, body: '{"op":"add"}' });
    expect(obj.status).toBe(400);
    expect(obj.json<{ message: string; reason: string }>()).toMatchObject({
      reason: 'BadRequest',
      message: 'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
    });
    // Without strict decoding, the library's own decoder words it.
    const ignored = await wire.call('PATCH', `${NS}/jp-bad?fieldValidation=Ignore`, { headers: JSON_PATCH, body: '{"op":"add"}' });
    expect(ignored.status).toBe(400);
    expect(ignored.json<{ message: string }>().message).toBe('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  });

  it('is 404 for a missing object', async () => {
    const r = await wire.call('PATCH', `${NS}/jp-nothing`, { headers: JSON_PATCH, body: '[]' });
    expect(r.status).toBe(404);
  });
});

describe('fieldValidation and repeated members', () => {
  const dupBody = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"NAME"},"data":{"k":"1","k":"2"},"bogus":1}';

  it('warns of each repeated and unknown field under Warn (the default)', async () => {
    const r = await wire.call('POST', NS, { headers: { 'content-type': 'application/json' }, body: dupBody.replace('NAME', 'dup-warn') });
    expect(r.status).toBe(201);
    expect(warningsOf(r.headers)).toEqual(['299 - "duplicate field \\"data.k\\""', '299 - "unknown field \\"bogus\\""']);
    expect(r.json<{ data: unknown }>().data).toEqual({ k: '2' });
  });

  it('refuses them with 400 under Strict, naming each', async () => {
    const r = await wire.call('POST', `${NS}?fieldValidation=Strict`, {
      headers: { 'content-type': 'application/json' },
      body: dupBody.replace('NAME', 'dup-strict'),
    });
    expect(r.status).toBe(400);
    expect(r.json<{ message: string }>().message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data.k", unknown field "bogus"',
    );
  });

  it('says nothing under Ignore', async () => {
    const r = await wire.call('POST', `${NS}?fieldValidation=Ignore`, {
      headers: { 'content-type': 'application/json' },
      body: dupBody.replace('NAME', 'dup-ignore'),
    });
    expect(r.status).toBe(201);
    expect(r.headers.warning).toBeUndefined();
  });

  it('reports repeated YAML keys with their line', async () => {
    const yaml = ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: dup-yaml', 'data:', '  k: "1"', '  k: "2"', ''].join('\n');
    const strict = await wire.call('POST', `${NS}?fieldValidation=Strict`, { headers: { 'content-type': 'application/yaml' }, body: yaml });
    expect(strict.status).toBe(400);
    expect(strict.json<{ message: string }>().message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: line 7: key "k" already set in map',
    );
    const warn = await wire.call('POST', NS, { headers: { 'content-type': 'application/yaml' }, body: yaml });
    expect(warn.status).toBe(201);
    expect(warningsOf(warn.headers)).toEqual(['299 - "line 7: key \\"k\\" already set in map"']);
  });

  it('checks update bodies the same way', async () => {
    await createConfigMap('dup-update', { a: '1' });
    const body = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup-update","name":"dup-update"},"data":{"a":"2"}}';
    const r = await wire.call('PUT', `${NS}/dup-update?fieldValidation=Strict`, { headers: { 'content-type': 'application/json' }, body });
    expect(r.status).toBe(400);
    expect(r.json<{ message: string }>().message).toContain('strict decoding error: duplicate field "metadata.name"');
  });

  it('warns of repeated members of a merge patch and of unknown fields it introduces', async () => {
    await createConfigMap('dup-patch', { a: '1' });
    const r = await wire.call('PATCH', `${NS}/dup-patch`, {
      headers: { 'content-type': 'application/merge-patch+json' },
      body: '{"data":{"a":"x","a":"y"},"extra":true}',
    });
    expect(r.status).toBe(200);
    expect(warningsOf(r.headers)).toEqual(['299 - "duplicate field \\"data.a\\""', '299 - "unknown field \\"extra\\""']);
    expect(r.json<{ data: unknown }>().data).toEqual({ a: 'y' });
  });

  it('refuses a Strict patch with 422 on the field patch', async () => {
    await createConfigMap('strict-patch', { a: '1' });
    const r = await wire.call('PATCH', `${NS}/strict-patch?fieldValidation=Strict`, {
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: '{"extra":true}',
    });
    expect(r.status).toBe(422);
    const status = r.json<{ reason: string; message: string; details: { causes: { field: string; reason: string; message: string }[] } }>();
    expect(status.reason).toBe('Invalid');
    expect(status.message).toMatch(/^ "" is invalid: patch: Invalid value: "\{.*\}": strict decoding error: unknown field "extra"$/);
    expect(status.details.causes).toEqual([{ reason: 'FieldValueInvalid', field: 'patch', message: expect.stringMatching(/strict decoding error: unknown field "extra"$/) }]);
    const got = await wire.call('GET', `${NS}/strict-patch`);
    expect(got.json<{ extra?: unknown }>().extra).toBeUndefined();
  });
});

// Server-side apply decodes its body a second time, strictly, after the merge: repeated keys of a
// YAML or JSON body are a 400 under Strict, one Warning each under Warn (the default), nothing
// under Ignore.
describe('application/apply-patch+yaml and fieldValidation', () => {
  const APPLY = { 'content-type': 'application/apply-patch+yaml' };
  const yamlBody = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n  a: "2"\n`;
  const jsonBody = (name: string) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"},\n"data":{"a":"1","a":"2"}}`;
  const apply = (name: string, body: string, validation?: string) =>
    wire.call('PATCH', `${NS}/${name}?fieldManager=test${validation ? `&fieldValidation=${validation}` : ''}`, { headers: APPLY, body });

  it.each([
    ['YAML', 'sa-strict-yaml', yamlBody, 7],
    ['JSON', 'sa-strict-json', jsonBody, 2],
  ])('refuses a %s body with a repeated key under Strict', async (_kind, name, body, line) => {
    const r = await apply(name, body(name), 'Strict');
    expect(r.status).toBe(400);
    const status = r.json<{ reason: string; message: string }>();
    expect(status.reason).toBe('BadRequest');
    expect(status.message).toBe(`error strict decoding YAML: error converting YAML to JSON: yaml: unmarshal errors:\n  line ${line}: key "a" already set in map`);
    expect((await wire.call('GET', `${NS}/${name}`)).status).toBe(404);
  });

  it.each([
    ['YAML', 'sa-warn-yaml', yamlBody, 7, undefined],
    ['JSON', 'sa-warn-json', jsonBody, 2, 'Warn'],
  ])('warns of a %s body with a repeated key under Warn', async (_kind, name, body, line, validation) => {
    const r = await apply(name, body(name), validation);
    expect(r.status).toBe(201);
    expect(warningsOf(r.headers)).toEqual([`299 - "line ${line}: key \\"a\\" already set in map"`]);
    expect(r.json<{ data: Record<string, string> }>().data).toEqual({ a: '2' });
  });

  it.each([
    ['YAML', 'sa-ignore-yaml', yamlBody],
    ['JSON', 'sa-ignore-json', jsonBody],
  ])('says nothing of a %s body with a repeated key under Ignore', async (_kind, name, body) => {
    const r = await apply(name, body(name), 'Ignore');
    expect(r.status).toBe(201);
    expect(warningsOf(r.headers)).toEqual([]);
  });

  it('accepts a body without repeated keys under Strict', async () => {
    const r = await apply('sa-strict-ok', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sa-strict-ok\ndata:\n  a: "1"\n', 'Strict');
    expect(r.status).toBe(201);
    expect(warningsOf(r.headers)).toEqual([]);
  });
});

// force is read as kube's parameter codec reads booleans: only "0" and "false" (any case) are
// false; an empty value is true.
describe('apply force query parameter', () => {
  const APPLY = { 'content-type': 'application/apply-patch+yaml' };
  const body = (value: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sa-force\ndata:\n  a: "${value}"\n`;

  beforeAll(async () => {
    const r = await wire.call('PATCH', `${NS}/sa-force?fieldManager=owner`, { headers: APPLY, body: body('1') });
    expect(r.status).toBe(201);
  });

  it.each([
    ['force=false', 'force=false', 409],
    ['force=FALSE', 'force=FALSE', 409],
    ['force=0', 'force=0', 409],
    ['force=1', 'force=1', 200],
    ['an empty force', 'force=', 200],
  ])('%s', async (_name, query, status) => {
    const r = await wire.call('PATCH', `${NS}/sa-force?fieldManager=other-${status}-${query.length}&${query}`, { headers: APPLY, body: body(`${query.length}`) });
    expect(r.status).toBe(status);
    if (status === 409) expect(r.json<{ reason: string }>().reason).toBe('Conflict');
  });
});

// Merge patch bodies that are not objects: Warn (the default) and Strict decode the patch into a
// map first, and json-patch's MergePatch refuses a null patch.
describe('application/merge-patch+json bodies that are not objects', () => {
  it.each([
    ['an array', 'arr', '[1]', 'error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}'],
    ['a string', 'str', '"x"', 'error decoding patch: json: cannot unmarshal string into Go value of type map[string]interface {}'],
    ['null', 'null', 'null', 'Invalid JSON Patch'],
  ])('refuses %s with a 400', async (_name, suffix, body, message) => {
    await createConfigMap(`mp-bad-${suffix}`, { a: '1' });
    const r = await wire.call('PATCH', `${NS}/mp-bad-${suffix}`, { headers: { 'content-type': 'application/merge-patch+json' }, body });
    expect(r.status).toBe(400);
    expect(r.json<{ reason: string; message: string }>()).toMatchObject({ reason: 'BadRequest', message });
  });

  // Under Ignore nothing decodes the patch first: MergePatch refuses null and scalars itself (400),
  // and returns an array as the patched document, whose decoding into the object is a 422.
  it.each([
    ['a string', 'str', '"x"'],
    ['a number', 'num', '1.5'],
    ['null', 'null', 'null'],
  ])('refuses %s under fieldValidation=Ignore as MergePatch does (400)', async (_name, suffix, body) => {
    await createConfigMap(`mp-ign-${suffix}`, { a: '1' });
    const r = await wire.call('PATCH', `${NS}/mp-ign-${suffix}?fieldValidation=Ignore`, { headers: { 'content-type': 'application/merge-patch+json' }, body });
    expect(r.status).toBe(400);
    expect(r.json<{ reason: string; message: string }>()).toMatchObject({ reason: 'BadRequest', message: 'Invalid JSON Patch' });
  });

  it('answers an array under fieldValidation=Ignore with a 422 quoting it, nulls pruned', async () => {
    await createConfigMap('mp-ign-arr', { a: '1' });
    const r = await wire.call('PATCH', `${NS}/mp-ign-arr?fieldValidation=Ignore`, {
      headers: { 'content-type': 'application/merge-patch+json' },
      body: '[1, null, {"b": 2, "a": null}]',
    });
    expect(r.status).toBe(422);
    const why =
      'couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';
    const detail = `Invalid value: ${JSON.stringify('[1,{"b":2}]')}: ${why}`;
    expect(r.json()).toMatchObject({
      reason: 'Invalid',
      message: ` "" is invalid: patch: ${detail}`,
      details: { causes: [{ reason: 'FieldValueInvalid', field: 'patch', message: detail }] },
    });
  });

  it('drops null items of an array that lands on a missing field', async () => {
    await createConfigMap('mp-null-items', { a: '1' });
    const r = await wire.call('PATCH', `${NS}/mp-null-items`, {
      headers: { 'content-type': 'application/merge-patch+json' },
      body: '{"metadata":{"finalizers":["example.com/keep",null]}}',
    });
    expect(r.status).toBe(200);
    expect(r.json<{ metadata: { finalizers: string[] } }>().metadata.finalizers).toEqual(['example.com/keep']);
  });

  it('accepts an object', async () => {
    await createConfigMap('mp-ok', { a: '1' });
    const r = await wire.call('PATCH', `${NS}/mp-ok`, { headers: { 'content-type': 'application/merge-patch+json' }, body: '{"data":{"b":"2"}}' });
    expect(r.status).toBe(200);
  });
});

// A merged map deletes the members the patch sets to null; a map the original lacks is taken with
// its null members dropped; a `$patch: replace` map is taken as written, and a null in it decodes
// as Go does, into the label's zero value "".
describe('application/strategic-merge-patch+json values taken as written', () => {
  const SMP = { 'content-type': 'application/strategic-merge-patch+json' };
  it.each([
    ['a $patch: replace map drops the labels it does not name', '{"metadata":{"labels":{"$patch":"replace","z":"9"}}}', { z: '9' }],
    // Taken with its null, which decodes into the label's zero value: kept, empty.
    ['a $patch: replace map keeps a null label as ""', '{"metadata":{"labels":{"$patch":"replace","z":"9","b":null}}}', { z: '9', b: '' }],
    ['a merged map deletes a null label', '{"metadata":{"labels":{"z":"9","b":null}}}', { a: '1', z: '9' }],
    ['a new map drops a null label', '{"metadata":{"labels":{"z":"9","b":null}}}', { z: '9' }],
  ])('%s', async (name, body, labels) => {
    const cm = `smp-raw-${name.length}-${labels.z}${Object.keys(labels).length}`;
    const r0 = await wire.call('POST', NS, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: name.startsWith('a new') ? { name: cm } : { name: cm, labels: { a: '1', b: '2' } } }),
    });
    expect(r0.status).toBe(201);
    const r = await wire.call('PATCH', `${NS}/${cm}`, { headers: SMP, body });
    expect(r.status).toBe(200);
    expect(r.json<{ metadata: { labels: Record<string, string> } }>().metadata.labels).toEqual(labels);
  });
});
