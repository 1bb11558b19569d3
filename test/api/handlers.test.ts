// The verb handlers over HTTP-shaped requests: web Request in, Response out, as the server calls them.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createResourceHandler, type ResourceHandler } from '../../runtime/api/resource-handler.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import { newRequestInfo } from '../../runtime/machinery/request-info.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';
import { definitions } from '../support/registry-fixtures.js';

let storage: MemoryStorage;
let registry: ResourceRegistry;
let handler: ResourceHandler;

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const url = `https://127.0.0.1:6443${path}`;
  const init: RequestInit = { method, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers } };
  if (body !== undefined) init.body = typeof body === 'string' ? body : JSON.stringify(body);
  const response = await handler(new Request(url, init), newRequestInfo(method, path));
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

beforeEach(async () => {
  storage = new MemoryStorage();
  registry = new ResourceRegistry(storage, definitions);
  handler = createResourceHandler({ registry });
  await call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});
afterEach(async () => {
  await registry.namespaceDeleter?.idle();
  await storage.close();
});

describe('resource handler', () => {
  it('create 201, get 200, list 200, update 200, patch 200, delete 200 with Status', async () => {
    const created = await call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { k: 'v' } });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/json');
    expect(created.body).toMatchObject({ kind: 'ConfigMap', metadata: { name: 'a', namespace: 'default' } });

    const got = await call('GET', '/api/v1/namespaces/default/configmaps/a');
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual({ k: 'v' });

    const list = await call('GET', '/api/v1/namespaces/default/configmaps');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1', items: [{ metadata: { name: 'a' } }] });

    const updated = await call('PUT', '/api/v1/namespaces/default/configmaps/a', { ...got.body, data: { k: 'w' } });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toEqual({ k: 'w' });

    const patched = await call('PATCH', '/api/v1/namespaces/default/configmaps/a', { data: { extra: '1' } }, { 'content-type': 'application/merge-patch+json' });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toEqual({ k: 'w', extra: '1' });

    const deleted = await call('DELETE', '/api/v1/namespaces/default/configmaps/a');
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name: 'a', kind: 'configmaps', uid: created.body.metadata.uid } });
  });

  it('errors are Status objects with kube-apiserver codes', async () => {
    const missing = await call('GET', '/api/v1/namespaces/default/configmaps/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'configmaps "nope" not found', reason: 'NotFound', details: { name: 'nope', kind: 'configmaps' }, code: 404,
    });
    // In Go's field order, as kube-apiserver writes a Status: reason and details before code.
    expect(Object.keys(missing.body)).toEqual(['kind', 'apiVersion', 'metadata', 'status', 'message', 'reason', 'details', 'code']);
    expect((await call('GET', '/api/v1/namespaces/default/widgets')).status).toBe(404);
    const notAllowed = await call('DELETE', '/api/v1/namespaces');
    expect(notAllowed.status).toBe(405);
    expect(notAllowed.body.reason).toBe('MethodNotAllowed');
  });

  it('malformed JSON and a mismatched apiVersion are 400', async () => {
    const malformed = await call('POST', '/api/v1/namespaces/default/configmaps', '{"metadata": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body.reason).toBe('BadRequest');
    expect(malformed.body.message).toMatch(/^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: unexpected end of JSON input/);
    const wrongVersion = await call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v2', kind: 'ConfigMap', metadata: { name: 'x' } });
    expect(wrongVersion.status).toBe(400);
    expect(wrongVersion.body.message).toBe('the API version in the data (v2) does not match the expected API version (v1)');
  });

  it('body without apiVersion/kind takes the endpoint types', async () => {
    const created = await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'bare' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
  });

  it('?dryRun=All persists nothing; a bad dryRun value is 422', async () => {
    const dry = await call('POST', '/api/v1/namespaces/default/configmaps?dryRun=All', { metadata: { name: 'dry' } });
    expect(dry.status).toBe(201);
    expect((await call('GET', '/api/v1/namespaces/default/configmaps/dry')).status).toBe(404);
    const bad = await call('POST', '/api/v1/namespaces/default/configmaps?dryRun=Some', { metadata: { name: 'dry' } });
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: ["Some"]: supported values: "All"');
  });

  it('fieldManager is accepted', async () => {
    expect((await call('POST', '/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create', { metadata: { name: 'fm' } })).status).toBe(201);
  });

  it('unsupported patch types are 415', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'p' } });
    const res = await call('PATCH', '/api/v1/namespaces/default/configmaps/p', '[]', { 'content-type': 'application/vnd.example+json' });
    expect(res.status).toBe(415);
    expect(res.body.reason).toBe('UnsupportedMediaType');
  });

  it('label selector parse errors are 400', async () => {
    const res = await call('GET', '/api/v1/namespaces/default/configmaps?labelSelector=' + encodeURIComponent('a in b'));
    expect(res.status).toBe(400);
    expect(res.body.message).toBe("unable to parse requirement: found 'b' expected: '('");
  });

  it('namespace status and finalize subresources', async () => {
    const status = await call('GET', '/api/v1/namespaces/default/status');
    expect(status.status).toBe(200);
    expect(status.body.status).toEqual({ phase: 'Active' });
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'fin' }, spec: { finalizers: ['example.com/x'] } });
    const ns = (await call('GET', '/api/v1/namespaces/fin')).body;
    const finalized = await call('PUT', '/api/v1/namespaces/fin/finalize', { ...ns, spec: { finalizers: [] } });
    expect(finalized.status).toBe(200);
    // finalizers is omitempty upstream: an emptied list leaves `spec: {}`, as a Go round trip gives.
    expect(finalized.body.spec).toEqual({});
    const deleted = await call('DELETE', '/api/v1/namespaces/fin');
    // The first delete of a namespace returns it, Terminating.
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ kind: 'Namespace', status: { phase: 'Terminating' } });
    await registry.namespaceDeleter!.idle();
    expect((await call('GET', '/api/v1/namespaces/fin')).status).toBe(404);
  });

  it('deletecollection returns the deleted list', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'l1', labels: { x: 'y' } } });
    await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'l2' } });
    const res = await call('DELETE', '/api/v1/namespaces/default/configmaps?labelSelector=x%3Dy');
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('ConfigMapList');
    expect(res.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['l1']);
  });

  it('watch streams one JSON event per line', async () => {
    await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'w1' } });
    const controller = new AbortController();
    const path = '/api/v1/namespaces/default/configmaps?watch=1';
    const response = await handler(new Request(`https://127.0.0.1:6443${path}`, { signal: controller.signal }), newRequestInfo('GET', path));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first.endsWith('\n')).toBe(true);
    expect(JSON.parse(first)).toMatchObject({ type: 'ADDED', object: { kind: 'ConfigMap', metadata: { name: 'w1' } } });
    await call('DELETE', '/api/v1/namespaces/default/configmaps/w1');
    const second = JSON.parse(new TextDecoder().decode((await reader.read()).value));
    expect(second).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'w1' } } });
    controller.abort();
    expect((await reader.read()).done).toBe(true);
  });
});
