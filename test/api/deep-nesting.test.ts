// Deeply nested bodies of a custom resource whose schema keeps unknown fields
// (x-kubernetes-preserve-unknown-fields), where any shape a client sends is stored: every verb
// takes a body nested to MAX_NESTING_DEPTH and stores it whole; deeper bodies (Go's 10,000 and
// 10,001 levels) are a 400 with the decoders' messages and change nothing; the server answers
// /readyz after each. (Bodies nest at most MAX_NESTING_DEPTH here, below Go's 10,000: see
// runtime/machinery/nesting.ts and the README's limits.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { MAX_NESTING_DEPTH } from '../../runtime/machinery/nesting.js';
import { BLOBS, createBlobCRD } from '../support/crds.js';
import { call, kubeconfigCredentials, type Credentials, type HttpResult } from '../support/https-client.js';
import { testServerFor } from '../support/memory-server.js';
import { openWatch } from '../support/watch-client.js';

let server: RunningServer;
let creds: Credentials;

const GROUP_VERSION = 'example.com/v1';
const JSON_TYPE = 'application/json';

const send = (method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<HttpResult> =>
  call(server.url, path, creds, { method, headers: body === undefined ? headers : { 'content-type': JSON_TYPE, ...headers }, body });

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  creds = kubeconfigCredentials(server.kubeconfig);
  await createBlobCRD(testServerFor(server));
});
afterAll(async () => {
  await server?.close();
});

/** `levels` objects, each the member "a" of the one around it (built as text, without recursion). */
const objects = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
/** `levels` arrays, one inside the other. */
const arrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
/** A Blob whose spec is `spec` (JSON text): the body nests one level more than the spec. */
const blob = (name: string, spec: string, resourceVersion?: string) =>
  `{"apiVersion":"${GROUP_VERSION}","kind":"Blob","metadata":{"name":"${name}"${resourceVersion ? `,"resourceVersion":"${resourceVersion}"` : ''}},"spec":${spec}}`;

/** The spec nested to the limit: the outermost object of the body is one level, the spec the rest. */
const AT_LIMIT = MAX_NESTING_DEPTH - 1;

async function expectServing() {
  const ready = await send('GET', '/readyz');
  expect(ready.status).toBe(200);
  expect(ready.body).toBe('ok');
}

/** The stored Blob as read back, its spec as JSON text (compared as text: no recursive matcher walks it). */
async function stored(name: string): Promise<{ resourceVersion: string; spec: string }> {
  const res = await send('GET', `${BLOBS}/${name}`);
  expect(res.status, res.body.slice(0, 300)).toBe(200);
  const obj = res.json<{ metadata: { resourceVersion: string }; spec: unknown }>();
  return { resourceVersion: obj.metadata.resourceVersion, spec: JSON.stringify(obj.spec) };
}

function expectStatus(res: HttpResult, code: number, reason: string, message: string) {
  expect(res.status, res.body.slice(0, 300)).toBe(code);
  expect(res.json()).toMatchObject({ kind: 'Status', status: 'Failure', code, reason, message });
}

/** kube-apiserver's summary of a refused create or update body: its first 30 bytes. */
const summary = (body: string) => `${body.slice(0, 30)} ...`;

describe('a preserve-unknown-fields custom resource nested to the limit', () => {
  it('is created, read back whole, listed and sent to watchers', async () => {
    const watch = await openWatch(server.url, `${BLOBS}?watch=true`, creds);
    expect(watch.status).toBe(200);
    const created = await send('POST', BLOBS, blob('deep', objects(AT_LIMIT)));
    expect(created.status, created.body.slice(0, 300)).toBe(201);
    expect(JSON.stringify(created.json<{ spec: unknown }>().spec)).toBe(objects(AT_LIMIT));
    expect((await stored('deep')).spec).toBe(objects(AT_LIMIT));
    const events = await watch.until((e) => e.object.metadata?.name === 'deep');
    watch.close();
    expect(events.at(-1)?.type).toBe('ADDED');
    expect(JSON.stringify(events.at(-1)?.object.spec)).toBe(objects(AT_LIMIT));
    const list = await send('GET', BLOBS);
    expect(list.status).toBe(200);
    const item = list.json<{ items: { metadata: { name: string }; spec: unknown }[] }>().items.find((i) => i.metadata.name === 'deep');
    expect(JSON.stringify(item?.spec)).toBe(objects(AT_LIMIT));
    await expectServing();
  });

  it('is served as YAML and as a Table', async () => {
    // The spec is an object (its schema's type): arrays below its member.
    const spec = `{"list":${arrays(AT_LIMIT - 1)}}`;
    expect((await send('POST', BLOBS, blob('formats', spec))).status).toBe(201);
    const yaml = await send('GET', `${BLOBS}/formats`, undefined, { accept: 'application/yaml' });
    expect(yaml.status).toBe(200);
    expect(JSON.stringify((parseYaml(yaml.body) as { spec: unknown }).spec)).toBe(spec);
    const table = await send('GET', `${BLOBS}/formats`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(table.status).toBe(200);
    expect(table.json<{ rows: { cells: unknown[] }[] }>().rows[0].cells[0]).toBe('formats');
    await expectServing();
  });

  it('is replaced by an update nested to the limit', async () => {
    await send('POST', BLOBS, blob('update', '{}'));
    const { resourceVersion } = await stored('update');
    const spec = `{"list":${arrays(AT_LIMIT - 1)}}`;
    const updated = await send('PUT', `${BLOBS}/update`, blob('update', spec, resourceVersion));
    expect(updated.status, updated.body.slice(0, 300)).toBe(200);
    expect((await stored('update')).spec).toBe(spec);
    await expectServing();
  });

  it('is patched to the limit by a merge patch, a JSON patch and server-side apply', async () => {
    await send('POST', BLOBS, blob('patch', '{"keep":true}'));
    const path = `${BLOBS}/patch`;
    // The body's outermost object and "spec" are two levels; "x" holds the rest.
    const merge = await send('PATCH', path, `{"spec":{"x":${objects(AT_LIMIT - 1)}}}`, { 'content-type': 'application/merge-patch+json' });
    expect(merge.status, merge.body.slice(0, 300)).toBe(200);
    expect((await stored('patch')).spec).toBe(`{"keep":true,"x":${objects(AT_LIMIT - 1)}}`);
    // A JSON patch document is an array of operations around the value: two levels above it.
    const jsonPatch = await send('PATCH', path, `[{"op":"add","path":"/spec/y","value":${arrays(MAX_NESTING_DEPTH - 2)}}]`, { 'content-type': 'application/json-patch+json' });
    expect(jsonPatch.status, jsonPatch.body.slice(0, 300)).toBe(200);
    expect((await stored('patch')).spec).toBe(`{"keep":true,"x":${objects(AT_LIMIT - 1)},"y":${arrays(MAX_NESTING_DEPTH - 2)}}`);
    const applied = await send('PATCH', `${BLOBS}/applied?fieldManager=deep`, blob('applied', objects(AT_LIMIT)), { 'content-type': 'application/apply-patch+yaml' });
    expect(applied.status, applied.body.slice(0, 300)).toBe(201);
    expect((await stored('applied')).spec).toBe(objects(AT_LIMIT));
    const block = `apiVersion: ${GROUP_VERSION}\nkind: Blob\nmetadata:\n  name: applied\nspec:\n${Array.from({ length: AT_LIMIT - 1 }, (_, i) => `${'  '.repeat(i + 1)}a:\n`).join('')}${'  '.repeat(AT_LIMIT)}b: 1\n`;
    const reapplied = await send('PATCH', `${BLOBS}/applied?fieldManager=deep`, block, { 'content-type': 'application/apply-patch+yaml' });
    expect(reapplied.status, reapplied.body.slice(0, 300)).toBe(200);
    expect((await stored('applied')).spec).toBe('{"a":'.repeat(AT_LIMIT - 1) + '{"b":1}' + '}'.repeat(AT_LIMIT - 1));
    await expectServing();
  });

  it('is answered but not stored on a dry run', async () => {
    const res = await send('POST', `${BLOBS}?dryRun=All`, blob('dry', objects(AT_LIMIT)));
    expect(res.status, res.body.slice(0, 300)).toBe(201);
    expect(JSON.stringify(res.json<{ spec: unknown }>().spec)).toBe(objects(AT_LIMIT));
    expect((await send('GET', `${BLOBS}/dry`)).status).toBe(404);
    await expectServing();
  });
});

describe('a custom resource nested deeper than the limit', () => {
  // Go's decoders take 10,000 levels and refuse the 10,001st; both are refused here.
  const tooDeep = [10_000, 10_001];

  it.each(tooDeep)('is refused on create and update with %i levels', async (levels) => {
    const body = blob(`refused-${levels}`, objects(levels - 1));
    const created = await send('POST', BLOBS, body);
    expectStatus(created, 400, 'BadRequest', `the object provided is unrecognized (must be of type Blob): couldn't get version/kind; json parse error: invalid character '{' exceeded max depth (${summary(body)})`);
    expect((await send('GET', `${BLOBS}/refused-${levels}`)).status).toBe(404);

    await send('POST', BLOBS, blob(`kept-${levels}`, '{"v":1}'));
    const before = await stored(`kept-${levels}`);
    const update = blob(`kept-${levels}`, arrays(levels - 1), before.resourceVersion);
    expectStatus(await send('PUT', `${BLOBS}/kept-${levels}`, update), 400, 'BadRequest', `the object provided is unrecognized (must be of type Blob): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth (${summary(update)})`);
    expect(await stored(`kept-${levels}`)).toEqual(before);
    await expectServing();
  });

  it.each(tooDeep)('is refused by every patch type with %i levels', async (levels) => {
    await send('POST', BLOBS, blob(`patched-${levels}`, '{"v":1}'));
    const before = await stored(`patched-${levels}`);
    const path = `${BLOBS}/patched-${levels}`;
    const patch = (type: string, body: string, query = '') => send('PATCH', `${path}${query}`, body, { 'content-type': type });
    expectStatus(await patch('application/merge-patch+json', `{"spec":${arrays(levels - 1)}}`), 400, 'BadRequest', "error decoding patch: invalid character '[' exceeded max depth");
    expectStatus(await patch('application/json-patch+json', `[{"op":"add","path":"/spec/x","value":${objects(levels - 1)}}]`), 400, 'BadRequest', "error decoding patch: invalid character '{' exceeded max depth");
    expectStatus(
      await patch('application/apply-patch+yaml', blob(`patched-${levels}`, objects(levels - 1)), '?fieldManager=deep'),
      400,
      'BadRequest',
      `error decoding YAML: error converting YAML to JSON: yaml: exceeded max depth of ${MAX_NESTING_DEPTH}`,
    );
    // Custom resources have no strategic merge patch, however the body nests.
    expect((await patch('application/strategic-merge-patch+json', `{"spec":${arrays(levels - 1)}}`)).status).toBe(415);
    expect(await stored(`patched-${levels}`)).toEqual(before);
    await expectServing();
  });

  it('is refused on a dry run too, and nothing is stored', async () => {
    const body = blob('dry-deep', objects(10_000));
    expect((await send('POST', `${BLOBS}?dryRun=All`, body)).status).toBe(400);
    expect((await send('GET', `${BLOBS}/dry-deep`)).status).toBe(404);
    await expectServing();
  });
});

describe('a ConfigMap whose managedFields nest to the limit', () => {
  // fieldsV1 is free-form JSON in every kind: the one member of a built-in kind kept whatever its shape.
  const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
  /** fieldsV1 nested so that the body reaches the limit: object, metadata, managedFields, the entry, fieldsV1. */
  const fields = '{"f:a":'.repeat(MAX_NESTING_DEPTH - 5) + '{}' + '}'.repeat(MAX_NESTING_DEPTH - 5);
  const configMap = (name: string, fieldsV1: string) =>
    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}","managedFields":[{"manager":"deep","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":${fieldsV1}}]},"data":{"k":"v"}}`;

  it('is created with its fieldsV1 whole, then patched and read in every format', async () => {
    const created = await send('POST', CONFIGMAPS, configMap('deep-fields', fields));
    expect(created.status, created.body.slice(0, 300)).toBe(201);
    const managed = (res: HttpResult) => res.json<{ metadata: { managedFields?: { manager: string; fieldsV1: unknown }[] } }>().metadata.managedFields ?? [];
    const deepEntry = (res: HttpResult) => JSON.stringify(managed(res).find((m) => m.manager === 'deep')?.fieldsV1);
    expect(deepEntry(await send('GET', `${CONFIGMAPS}/deep-fields`))).toBe(fields);
    const merged = await send('PATCH', `${CONFIGMAPS}/deep-fields`, '{"data":{"k2":"v2"}}', { 'content-type': 'application/strategic-merge-patch+json' });
    expect(merged.status, merged.body.slice(0, 300)).toBe(200);
    expect(deepEntry(merged)).toBe(fields);
    for (const accept of ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf', 'application/json;as=Table;v=v1;g=meta.k8s.io']) {
      expect((await send('GET', `${CONFIGMAPS}/deep-fields`, undefined, { accept })).status, accept).toBe(200);
    }
    await expectServing();
  });

  it.each([10_000, 10_001])('is refused with fieldsV1 nested to %i levels', async (levels) => {
    const deep = '{"f:a":'.repeat(levels - 5) + '{}' + '}'.repeat(levels - 5);
    const body = configMap(`fields-${levels}`, deep);
    const res = await send('POST', CONFIGMAPS, body);
    expectStatus(res, 400, 'BadRequest', `the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '{' exceeded max depth (${summary(body)})`);
    expect((await send('GET', `${CONFIGMAPS}/fields-${levels}`)).status).toBe(404);
    await expectServing();
  });
});
