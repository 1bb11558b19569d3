// Paths kube-apiserver has no route for are answered by its router, never by a handler that would
// say the object is missing: below /api and below /apis/<group> of a served group, go-restful's
// 404 (or 405 when the path has routes, none for the method) turned into a Status with no
// details; below a group it does not serve, Go's plain-text `404 page not found`. kubectl shows
// the router's text, not "pods "p" not found". Nothing is stored by a request that had no route.
import { describe, expect, it } from 'vitest';
import { createCRD } from '../support/crds.js';
import { kubectlVersions, startKubectlServer } from '../support/kubectl.js';
import { useMemoryServer } from '../support/memory-server.js';
import type { HttpResult } from '../support/https-client.js';

const api = useMemoryServer();
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

const body = (method: string) => (method === 'GET' || method === 'DELETE' ? undefined : { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } });
const headers = (method: string): Record<string, string> => (method === 'PATCH' ? { 'content-type': 'application/merge-patch+json' } : {});

function expectRouterStatus(res: HttpResult, code: 404 | 405) {
  expect(res.headers['content-type']).toBe('application/json');
  expect(res.json()).toEqual({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: code === 404 ? 'the server could not find the requested resource' : 'the server does not allow this method on the requested resource',
    reason: code === 404 ? 'NotFound' : 'MethodNotAllowed',
    details: {},
    code,
  });
  expect(res.status).toBe(code);
}

describe('paths below a served group that no route has: 404 Status with empty details', () => {
  const paths = [
    '/api/v1/namespaces/default/pods/p/scale', // unknown subresource of a served resource
    '/api/v1/namespaces/default/services', // resource not served in a served group version
    '/api/v1/namespaces/default/services/s',
    '/apis/storage.k8s.io/v1/foos',
    '/apis/storage.k8s.io/v9/csidrivers', // served group, unknown version
    '/apis/storage.k8s.io/v1beta1/volumeattributesclasses', // a version not enabled
    '/api/v2/pods',
    '/api/v1/pods/p', // a namespaced object has no route outside its namespace
    '/api/v1/namespaces/default/persistentvolumes/pv', // a cluster-scoped one none inside one
    '/api/v1/namespaces/default/pods/p/status/more',
    '/api/v1/watch/namespaces/default/pods/p/status',
    '/apis/authentication.k8s.io/v1/selfsubjectreviews/me',
  ];
  for (const method of METHODS) {
    it.each(paths)(`${method} %s`, async (path) => {
      expectRouterStatus(await api.raw(method, path, body(method), headers(method)), 404);
    });
  }

  it.each(['/api/v2', '/apis/storage.k8s.io/v9', '/apis/storage.k8s.io/v1beta1'])('GET %s (no discovery there)', async (path) => {
    expectRouterStatus(await api.raw('GET', path), 404);
  });
});

describe('paths below a group the server does not serve: Go plain-text 404', () => {
  const paths = ['/apis/apps/v1/namespaces/default/deployments', '/apis/apps/v1/namespaces/default/deployments/d', '/apis/apps/v1/deployments', '/apis/apps/v1', '/apis/apps'];
  for (const method of METHODS) {
    it.each(paths)(`${method} %s`, async (path) => {
      const res = await api.raw(method, path, body(method), headers(method));
      expect(res.status).toBe(404);
      expect(res.body).toBe('404 page not found\n');
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    });
  }
});

function expectGoNotFound(res: HttpResult) {
  expect(res.status).toBe(404);
  expect(res.body).toBe('404 page not found\n');
  expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
}

it('a custom resource\'s group is claimed by the router while its CRD serves it, and no longer once it is gone', async () => {
  const group = 'routed.example.com';
  const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
  const things = `/apis/${group}/v1/namespaces/default/things`;
  const unrouted = [`/apis/${group}/v9/things`, `/apis/${group}/v1/namespaces/default/others`, `/apis/${group}/v1/namespaces/default/things/t/scale`];
  for (const path of [things, ...unrouted]) expectGoNotFound(await api.raw('GET', path));
  const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
  await createCRD(
    api,
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `things.${group}` },
      spec: { group, scope: 'Namespaced', names: { plural: 'things', kind: 'Thing' }, versions: [{ name: 'v1', served: true, storage: true, schema }] },
    },
    things,
  );
  for (const path of unrouted) expectRouterStatus(await api.raw('GET', path), 404);
  expect((await api.send('DELETE', `${crds}/things.${group}`)).status).toBe(200);
  for (let i = 0; i < 200 && (await api.raw('GET', things)).status === 200; i++) await new Promise((r) => setTimeout(r, 25));
  for (const path of [things, ...unrouted]) expectGoNotFound(await api.raw('GET', path));
  // The built-in groups keep their router.
  expectRouterStatus(await api.raw('GET', '/apis/storage.k8s.io/v1/foos'), 404);
});

describe('methods a path has no route for: 405 Status with empty details', () => {
  it.each([
    ['POST', '/api/v1/pods'], // across namespaces only list and watch are routed
    ['DELETE', '/api/v1/pods'],
    ['PUT', '/api/v1/namespaces/default/configmaps'],
    ['PATCH', '/api/v1/namespaces/default/configmaps'],
    ['POST', '/api/v1/namespaces/default/configmaps/cm'],
    ['DELETE', '/api/v1/namespaces'], // Namespaces have no deletecollection
    ['GET', '/api/v1/namespaces/default/finalize'], // finalize is only written
    ['GET', '/api/v1/namespaces/default/pods/p/eviction'], // eviction is only created
    ['DELETE', '/api/v1/namespaces/default/pods/p/status'],
    ['GET', '/apis/authentication.k8s.io/v1/selfsubjectreviews'],
    ['POST', '/api/v1/watch/namespaces/default/configmaps'],
  ])('%s %s', async (method, path) => {
    expectRouterStatus(await api.raw(method, path, body(method), headers(method)), 405);
  });
});

it('stores nothing for a request no route took, and still serves the real routes', async () => {
  expect((await api.raw('POST', '/api/v1/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } })).status).toBe(405);
  expect((await api.send('GET', '/api/v1/namespaces/default/pods/p')).status).toBe(404);
  expect((await api.send('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'cm' } })).status).toBe(201);
  // A missing object of a served resource is still the handler's own 404, naming it.
  const missing = await api.send<{ message: string; details: unknown }>('GET', '/api/v1/namespaces/default/configmaps/none');
  expect(missing.body).toMatchObject({ message: 'configmaps "none" not found', details: { name: 'none', kind: 'configmaps' } });
});

for (const { version, path } of kubectlVersions()) {
  describe.skipIf(!path)(`kubectl ${version}`, () => {
    it('reports an unknown subresource as the router does, not as a missing pod', async () => {
      const cluster = await startKubectlServer('unserved-', { storage: 'memory' });
      try {
        expect((await cluster.kubectl(path!, ['run', 'p', '--image=nginx'])).code).toBe(0);
        const res = await cluster.kubectl(path!, ['get', 'pod', 'p', '--subresource=scale']);
        expect(res.code).not.toBe(0);
        expect(res.stderr).toContain('the server could not find the requested resource');
        expect(res.stderr).not.toContain('pods "p" not found');
      } finally {
        await cluster.close();
      }
    });
  });
}

describe("a resource's routes, learned once per resource and place", () => {
  it('answers each place of one resource with its own methods, however the requests interleave', async () => {
    const pods = '/api/v1/namespaces/default/pods';
    for (let round = 0; round < 2; round++) {
      expectRouterStatus(await api.raw('PUT', pods, body('PUT')), 405);
      expect((await api.raw('GET', `${pods}/missing`)).json()).toMatchObject({ reason: 'NotFound', details: { name: 'missing', kind: 'pods' } });
      expectRouterStatus(await api.raw('POST', `${pods}/missing`, body('POST')), 405);
      expectRouterStatus(await api.raw('POST', `${pods}/missing/status`, body('POST')), 405);
      expect((await api.raw('GET', `${pods}/missing/status`)).json()).toMatchObject({ reason: 'NotFound', details: { name: 'missing' } });
      expectRouterStatus(await api.raw('GET', `/api/v1/watch/namespaces/default/pods/missing/status`), 404);
      expectRouterStatus(await api.raw('POST', '/api/v1/watch/namespaces/default/pods', body('POST')), 405);
      expectRouterStatus(await api.raw('DELETE', '/api/v1/pods'), 405);
    }
    // Nothing was stored by any of them.
    expect((await api.send<{ items: unknown[] }>('GET', pods)).body.items).toEqual([]);
  });
});
