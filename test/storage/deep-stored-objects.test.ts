// Objects nested as deep as Go's decoders go (10,000 levels), stored by another writer of the
// same etcd (kube-apiserver takes such a custom resource body; this server refuses bodies past
// MAX_NESTING_DEPTH): read, listed, watched, replaced and deleted through the server without a
// stack overflow, and the server stays ready.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { BLOBS, createBlobCRD } from '../support/crds.js';
import { etcdBinary, startEtcd, type EtcdProcess } from '../support/etcd.js';
import { call, kubeconfigCredentials, type Credentials, type HttpResult } from '../support/https-client.js';
import { testServerFor } from '../support/memory-server.js';
import { openWatch } from '../support/watch-client.js';

const etcd = etcdBinary();
const KEY = '/registry/example.com/blobs/default/deep';
/** The deepest a body Go decodes may nest: the object's outermost level and the spec's 9,999. */
const GO_MAX_DEPTH = 10_000;

/** `levels` objects, each the member "a" of the one around it (built as text, without recursion). */
const objects = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);

/**
 * Whether a parsed value is `levels` objects nested as objects() writes them, read without
 * recursion (JSON.stringify and vitest's matchers run out of stack on such a value).
 */
function isObjects(value: unknown, levels: number): boolean {
  let at = value as Record<string, unknown> | undefined;
  for (let level = 1; level < levels; level++) {
    if (!at || Object.keys(at).length !== 1) return false;
    at = at.a as Record<string, unknown> | undefined;
  }
  return at !== undefined && at !== null && typeof at === 'object' && Object.keys(at).length === 0;
}

describe.skipIf(!etcd)('a custom resource nested 10,000 levels deep in storage', () => {
  let etcdProcess: EtcdProcess;
  let server: RunningServer;
  let creds: Credentials;
  let raw: Etcd3;
  let dir: string;

  const send = (method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<HttpResult> =>
    call(server.url, path, creds, { method, headers: { 'content-type': 'application/json', ...headers }, body });

  async function expectServing() {
    const ready = await send('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toBe('ok');
  }

  beforeAll(async () => {
    etcdProcess = await startEtcd(etcd!);
    dir = mkdtempSync(join(tmpdir(), 'deep-stored-'));
    server = await startServer({ etcdServers: etcdProcess.endpoints, dataDir: join(dir, 'data') });
    creds = kubeconfigCredentials(server.kubeconfig);
    raw = new Etcd3({ hosts: etcdProcess.endpoints });
    await createBlobCRD(testServerFor(server));
  });
  afterAll(async () => {
    raw?.close();
    await server?.close();
    await etcdProcess?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const deepSpec = objects(GO_MAX_DEPTH - 1);

  it('is read, listed and watched whole', async () => {
    const created = await send('POST', BLOBS, '{"apiVersion":"example.com/v1","kind":"Blob","metadata":{"name":"deep"},"spec":{}}');
    expect(created.status).toBe(201);
    const before = created.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const watch = await openWatch(server.url, `${BLOBS}?watch=true&resourceVersion=${before}`, creds);
    // The stored form as this server wrote it, with the spec replaced by the deep one.
    const storedText = await raw.get(KEY).string();
    expect(storedText).toContain('"spec":{}');
    await raw.put(KEY).value(storedText!.replace('"spec":{}', `"spec":${deepSpec}`));

    const events = await watch.until((e) => e.type === 'MODIFIED');
    watch.close();
    expect(isObjects(events.at(-1)?.object.spec, GO_MAX_DEPTH - 1)).toBe(true);
    const got = await send('GET', `${BLOBS}/deep`);
    expect(got.status, got.body.slice(0, 300)).toBe(200);
    expect(got.body).toContain(`"spec":${deepSpec}`);
    expect(isObjects(got.json<{ spec: unknown }>().spec, GO_MAX_DEPTH - 1)).toBe(true);
    const list = await send('GET', BLOBS);
    expect(list.status, list.body.slice(0, 300)).toBe(200);
    expect(isObjects(list.json<{ items: { spec: unknown }[] }>().items[0].spec, GO_MAX_DEPTH - 1)).toBe(true);
    // A list read from etcd itself rather than the watch cache.
    const exact = await send('GET', `${BLOBS}?resourceVersion=&limit=10`);
    expect(exact.status, exact.body.slice(0, 300)).toBe(200);
    expect(isObjects(exact.json<{ items: { spec: unknown }[] }>().items[0].spec, GO_MAX_DEPTH - 1)).toBe(true);
    await expectServing();
  });

  it('is served as a Table and as YAML', async () => {
    const table = await send('GET', `${BLOBS}/deep`, undefined, { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' });
    expect(table.status, table.body.slice(0, 300)).toBe(200);
    expect(table.json<{ rows: { cells: unknown[] }[] }>().rows[0].cells[0]).toBe('deep');
    const yaml = await send('GET', `${BLOBS}/deep`, undefined, { accept: 'application/yaml' });
    expect(yaml.status, yaml.body.slice(0, 300)).toBe(200);
    await expectServing();
  });

  /** Stores the deep spec in place of the object's, as another writer would, and waits until the server serves it. */
  async function storeDeep(): Promise<void> {
    const storedText = (await raw.get(KEY).string())!;
    const { spec } = JSON.parse(storedText) as { spec: unknown };
    await raw.put(KEY).value(storedText.replace(`"spec":${JSON.stringify(spec)}`, `"spec":${deepSpec}`));
    for (let tries = 0; tries < 200; tries++) {
      if ((await send('GET', `${BLOBS}/deep`)).body.includes(`"spec":${deepSpec}`)) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('the server never served the deep object');
  }

  it('is replaced by an update', async () => {
    const { metadata } = (await send('GET', `${BLOBS}/deep`)).json<{ metadata: { resourceVersion: string } }>();
    const updated = await send('PUT', `${BLOBS}/deep`, `{"apiVersion":"example.com/v1","kind":"Blob","metadata":{"name":"deep","resourceVersion":"${metadata.resourceVersion}"},"spec":{"small":true}}`);
    expect(updated.status, updated.body.slice(0, 300)).toBe(200);
    expect(updated.json<{ spec: unknown }>().spec).toEqual({ small: true });
    await expectServing();
  });

  it('is merge-patched, JSON-patched, applied to and deleted', async () => {
    await storeDeep();
    const deepA = `"a":${objects(GO_MAX_DEPTH - 2)}`;
    const merged = await send('PATCH', `${BLOBS}/deep`, '{"spec":{"b":1}}', { 'content-type': 'application/merge-patch+json' });
    expect(merged.status, merged.body.slice(0, 300)).toBe(200);
    expect(merged.body).toContain(`"spec":{${deepA},"b":1}`);
    const jsonPatched = await send('PATCH', `${BLOBS}/deep`, '[{"op":"add","path":"/spec/c","value":2}]', { 'content-type': 'application/json-patch+json' });
    expect(jsonPatched.status, jsonPatched.body.slice(0, 300)).toBe(200);
    expect(jsonPatched.body).toContain(`"spec":{${deepA},"b":1,"c":2}`);
    const applied = await send('PATCH', `${BLOBS}/deep?fieldManager=deep`, '{"apiVersion":"example.com/v1","kind":"Blob","metadata":{"name":"deep"},"spec":{"d":3}}', {
      'content-type': 'application/apply-patch+yaml',
    });
    expect(applied.status, applied.body.slice(0, 300)).toBe(200);
    expect(applied.body).toContain(`"spec":{${deepA},"b":1,"c":2,"d":3}`);
    expect((await send('GET', `${BLOBS}/deep`)).body).toContain(`"spec":{${deepA},"b":1,"c":2,"d":3}`);
    const deleted = await send('DELETE', `${BLOBS}/deep`);
    expect(deleted.status, deleted.body.slice(0, 300)).toBe(200);
    expect((await send('GET', `${BLOBS}/deep`)).status).toBe(404);
    await expectServing();
  });
});

describe.skipIf(!etcd)('a ConfigMap whose managedFields nest 10,000 levels deep in storage', () => {
  // fieldsV1 is free-form JSON in every kind: kube-apiserver stores a client's as it was sent.
  let etcdProcess: EtcdProcess;
  let server: RunningServer;
  let creds: Credentials;
  let raw: Etcd3;
  let dir: string;
  const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
  const KEY = '/registry/configmaps/default/cm';

  const send = (method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<HttpResult> =>
    call(server.url, path, creds, { method, headers: { 'content-type': 'application/json', ...headers }, body });

  beforeAll(async () => {
    etcdProcess = await startEtcd(etcd!);
    dir = mkdtempSync(join(tmpdir(), 'deep-fields-'));
    server = await startServer({ etcdServers: etcdProcess.endpoints, dataDir: join(dir, 'data') });
    creds = kubeconfigCredentials(server.kubeconfig);
    raw = new Etcd3({ hosts: etcdProcess.endpoints });
  });
  afterAll(async () => {
    raw?.close();
    await server?.close();
    await etcdProcess?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The object, metadata, managedFields and the entry are four levels: fieldsV1 holds the rest. */
  const fields = '{"f:a":'.repeat(GO_MAX_DEPTH - 5) + '{}' + '}'.repeat(GO_MAX_DEPTH - 5);
  const deepEntry = `{"manager":"deep","operation":"Update","apiVersion":"v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":${fields}}`;
  const managers = (res: HttpResult) => (res.json<{ metadata: { managedFields?: { manager?: string }[] } }>().metadata.managedFields ?? []).map((m) => m.manager ?? '');

  it('is served as JSON, protobuf and Table, updated and patched keeping that entry, and deleted', async () => {
    expect((await send('POST', `${CONFIGMAPS}?fieldManager=creator`, '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"k":"v"}}')).status).toBe(201);
    const storedText = (await raw.get(KEY).string())!;
    expect(storedText).toContain('"managedFields":[');
    await raw.put(KEY).value(storedText.replace('"managedFields":[', `"managedFields":[${deepEntry},`));
    for (let tries = 0; tries < 200 && !(await send('GET', `${CONFIGMAPS}/cm`)).body.includes(deepEntry); tries++) await new Promise((r) => setTimeout(r, 25));

    // (YAML of a deep value, block style, grows with the square of the depth: it is read above, on the custom resource.)
    for (const accept of ['application/json', 'application/vnd.kubernetes.protobuf', 'application/json;as=Table;v=v1;g=meta.k8s.io']) {
      const got = await send('GET', `${CONFIGMAPS}/cm`, undefined, { accept });
      expect(got.status, `${accept}: ${got.body.slice(0, 200)}`).toBe(200);
      const list = await send('GET', CONFIGMAPS, undefined, { accept });
      expect(list.status, `${accept}: ${list.body.slice(0, 200)}`).toBe(200);
    }
    expect((await send('GET', `${CONFIGMAPS}/cm`)).body).toContain(deepEntry);

    // Another manager's writes leave the deep entry as it is (its fields are not theirs).
    const { metadata } = (await send('GET', `${CONFIGMAPS}/cm`)).json<{ metadata: { resourceVersion: string } }>();
    const updated = await send('PUT', `${CONFIGMAPS}/cm?fieldManager=updater`, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","resourceVersion":"${metadata.resourceVersion}"},"data":{"k":"v2"}}`);
    expect(updated.status, updated.body.slice(0, 300)).toBe(200);
    expect(managers(updated).sort()).toEqual(['creator', 'deep', 'updater']);
    expect(updated.body).toContain(`"fieldsV1":${fields}`);
    const patched = await send('PATCH', `${CONFIGMAPS}/cm?fieldManager=patcher`, '{"data":{"k3":"v3"}}', { 'content-type': 'application/strategic-merge-patch+json' });
    expect(patched.status, patched.body.slice(0, 300)).toBe(200);
    expect(managers(patched).sort()).toEqual(['creator', 'deep', 'patcher', 'updater']);
    expect(patched.body).toContain(`"fieldsV1":${fields}`);
    expect((await send('DELETE', `${CONFIGMAPS}/cm`)).status).toBe(200);
    const ready = await send('GET', '/readyz');
    expect(ready.status).toBe(200);
  });
});
