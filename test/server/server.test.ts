import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StatusError, tooLargeResourceVersion } from '../../runtime/errors/status-error.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { notFoundHandler, type ApiHandler } from '../../runtime/server/app.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';

/** Resolves when the request's deadline signal fires. */
const untilAborted = (signal: AbortSignal) => new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

describe('the HTTPS server', () => {
  let server: RunningServer;
  let admin: ReturnType<typeof kubeconfigCredentials>;
  let releaseBlocked: () => void = () => {};
  let blocked: Promise<void> = Promise.resolve();
  let enteredBlocked: () => void = () => {};
  let blockedEntered: Promise<void> = Promise.resolve();
  let slowHandlerAborted = false;
  const logged: string[] = [];
  const logger = { debug: () => {}, info: () => {}, error: (m: string, ...a: unknown[]) => logged.push([m, ...a.map(String)].join(' ')) };

  const routes: Record<string, ApiHandler> = {
    '/api/v1/namespaces/default/configmaps/echo': (c) => c.json({ info: c.get('requestInfo'), user: c.get('user').name }),
    '/api/v1/namespaces/default/configmaps/cached': () =>
      new Response('{}', { headers: { 'content-type': 'application/json', 'cache-control': 'public, max-age=60' } }),
    '/api/v1/namespaces/default/configmaps/throw': () => {
      throw new Error('handler exploded');
    },
    '/api/v1/namespaces/default/configmaps/throw-string': () => {
      // Not an Error: Hono passes it up instead of to onError.
      throw 'a string, not an Error';
    },
    '/api/v1/namespaces/default/configmaps/reject': async () => {
      await Promise.resolve();
      throw new Error('async failure');
    },
    '/api/v1/namespaces/default/configmaps/too-large-rv': () => {
      throw tooLargeResourceVersion(100, 5, 2);
    },
    '/api/v1/namespaces/default/configmaps/conflict': () => {
      throw new StatusError(409, 'Conflict', 'no', { name: 'conflict', kind: 'configmaps' });
    },
    '/api/v1/namespaces/default/configmaps/slow': async (c) => {
      await untilAborted(c.get('deadline').signal);
      slowHandlerAborted = true;
      return c.json({ late: true });
    },
    '/api/v1/namespaces/default/configmaps/blocked': async (c) => {
      enteredBlocked();
      await blocked;
      return c.json({ unblocked: true });
    },
  };

  beforeAll(async () => {
    server = await startServer({
      storage: 'memory',
      maxRequestsInflight: 1,
      // The health and version endpoints are asked without credentials below.
      anonymousAuth: true,
      logger,
      // The stub API has no RBAC to offer.
      authorizationMode: 'AlwaysAllow',
      api: () => ({
        handler: (c) => {
          const route = routes[c.get('requestInfo').path];
          if (!route) throw new StatusError(404, 'NotFound', 'the server could not find the requested resource', {});
          return route(c);
        },
        healthChecks: { readyz: [{ name: 'etcd', check: () => {} }], livez: [{ name: 'broken', check: () => Promise.reject(new Error('disk on fire')) }] },
      }),
    });
    admin = kubeconfigCredentials(server.kubeconfig);
  });
  afterAll(() => server.close());

  it('listens on a free loopback port and says so in the kubeconfig', () => {
    expect(server.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(server.port).toBeGreaterThan(0);
    expect(admin.server).toBe(server.url);
  });

  it('round-trips a request with the parsed RequestInfo and user', async () => {
    const res = await call(server.url, '/api/v1/namespaces/default/configmaps/echo', admin);
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({
      user: 'admin',
      info: {
        isResourceRequest: true,
        path: '/api/v1/namespaces/default/configmaps/echo',
        verb: 'get',
        apiPrefix: 'api',
        apiGroup: '',
        apiVersion: 'v1',
        namespace: 'default',
        resource: 'configmaps',
        subresource: '',
        name: 'echo',
        parts: ['configmaps', 'echo'],
      },
    });
    expect(res.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['cache-control']).toBe('no-cache, private');
  });

  it("keeps a handler's own Cache-Control, echoes a client's Audit-Id, and marks error responses too", async () => {
    const cached = await call(server.url, '/api/v1/namespaces/default/configmaps/cached', admin, { headers: { 'audit-id': 'my-audit-id' } });
    expect(cached.status).toBe(200);
    expect(cached.headers['cache-control']).toBe('public, max-age=60');
    expect(cached.headers['audit-id']).toBe('my-audit-id');
    const failed = await call(server.url, '/api/v1/namespaces/default/configmaps/throw', admin);
    expect(failed.status).toBe(500);
    expect(failed.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(failed.headers['cache-control']).toBe('no-cache, private');
    const missing = await call(server.url, '/api/v1/namespaces/default/configmaps/nothing-here', admin);
    expect(missing.status).toBe(404);
    expect(missing.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect((await call(server.url, '/api/v1/namespaces/default/configmaps/echo', admin)).status).toBe(200);
  });

  it('turns a thrown Error into a 500 InternalError Status and keeps serving', async () => {
    for (const path of ['throw', 'reject']) {
      const res = await call(server.url, `/api/v1/namespaces/default/configmaps/${path}`, admin);
      expect(res.status).toBe(500);
      expect(res.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'InternalError', code: 500 });
    }
    expect((await call(server.url, '/api/v1/namespaces/default/configmaps/throw', admin)).json()).toMatchObject({
      message: 'Internal error occurred: handler exploded',
    });
    expect((await call(server.url, '/api/v1/namespaces/default/configmaps/echo', admin)).status).toBe(200);
    // A non-StatusError is a bug, so it is logged.
    expect(logged.some((l) => l.includes('/configmaps/throw') && l.includes('handler exploded'))).toBe(true);
  });

  it('turns a thrown non-Error into a 500 Status too', async () => {
    const res = await call(server.url, '/api/v1/namespaces/default/configmaps/throw-string', admin);
    expect(res.status).toBe(500);
    expect(res.json()).toMatchObject({ reason: 'InternalError', message: 'Internal error occurred: a string, not an Error' });
    expect((await call(server.url, '/livez?exclude=broken', admin)).status).toBe(200);
  });

  it('writes a StatusError with its code, details and headers', async () => {
    const res = await call(server.url, '/api/v1/namespaces/default/configmaps/too-large-rv', admin);
    expect(res.status).toBe(504);
    expect(res.headers['retry-after']).toBe('2');
    expect(res.json()).toMatchObject({ reason: 'Timeout', details: { retryAfterSeconds: 2 }, code: 504 });
    const conflict = await call(server.url, '/api/v1/namespaces/default/configmaps/conflict', admin);
    expect(conflict.body).toBe('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"no","reason":"Conflict","details":{"name":"conflict","kind":"configmaps"},"code":409}\n');
  });

  it('times out a request at its ?timeout with 504 and aborts the handler\'s signal', async () => {
    const res = await call(server.url, '/api/v1/namespaces/default/configmaps/slow?timeout=50ms', admin);
    expect(res.status).toBe(504);
    expect(res.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Timeout: request did not complete within requested timeout - context deadline exceeded',
      reason: 'Timeout',
      details: {},
      code: 504,
    });
    expect(slowHandlerAborted).toBe(true);
  });

  it('rejects a malformed ?timeout with 400', async () => {
    const res = await call(server.url, '/api/v1/namespaces/default/configmaps/echo?timeout=soon', admin);
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({
      reason: 'BadRequest',
      message: 'invalid timeout specified in the request URL - time: invalid duration "soon"',
    });
  });

  it('answers 429 with Retry-After past --max-requests-inflight, but never to system:masters', async () => {
    blocked = new Promise((r) => (releaseBlocked = r));
    blockedEntered = new Promise((r) => (enteredBlocked = r));
    const { readFileSync } = await import('node:fs');
    const { issueCertificate } = await import('../../runtime/auth/pki.js');
    const { join } = await import('node:path');
    const ca = { certPem: readFileSync(join(server.dataDir, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(server.dataDir, 'ca.key'), 'utf8') };
    const plain = await issueCertificate(ca, { subject: 'CN=carol', usage: 'clientAuth' });
    const carol = { ca: server.caCert, cert: plain.certPem, key: plain.keyPem };

    const first = call(server.url, '/api/v1/namespaces/default/configmaps/blocked', carol);
    await blockedEntered;
    const second = await call(server.url, '/api/v1/namespaces/default/configmaps/echo', carol);
    expect(second.status).toBe(429);
    expect(second.headers['retry-after']).toBe('1');
    expect(second.json()).toMatchObject({ reason: 'TooManyRequests', message: 'Too many requests, please try again later.', code: 429 });
    expect((await call(server.url, '/api/v1/namespaces/default/configmaps/echo', admin)).status).toBe(200);
    releaseBlocked();
    expect((await first).status).toBe(200);
    expect((await call(server.url, '/api/v1/namespaces/default/configmaps/echo', carol)).status).toBe(200);
  });

  it('answers 404 the way kube-apiserver does when the API has no route', async () => {
    const res = await call(server.url, '/api/v1/namespaces/default/widgets', admin);
    expect(res.status).toBe(404);
    expect(res.json()).toMatchObject({ reason: 'NotFound', message: 'the server could not find the requested resource', details: {} });
  });

  it('serves /version as indented version.Info JSON', async () => {
    const res = await call(server.url, '/version', { ca: server.caCert });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toContain('\n  "major": "1",');
    const info = res.json();
    expect(info).toMatchObject({ major: '1', minor: '33', gitTreeState: 'clean', compiler: expect.any(String), platform: expect.stringMatching(/\//) });
    expect(info.gitVersion).toMatch(/^v1\.33\.\d+/);
    for (const k of ['gitCommit', 'buildDate', 'goVersion']) expect(typeof info[k]).toBe('string');
  });

  it('serves health endpoints with verbose listings, exclusions and failures', async () => {
    const anon = { ca: server.caCert };
    const readyz = await call(server.url, '/readyz', anon);
    expect(readyz.body).toBe('ok');
    expect(readyz.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(readyz.headers['x-content-type-options']).toBe('nosniff');
    expect((await call(server.url, '/readyz?verbose', anon)).body).toBe('[+]ping ok\n[+]log ok\n[+]etcd ok\n[+]shutdown ok\nreadyz check passed\n');
    expect((await call(server.url, '/healthz?verbose=1', anon)).body).toBe('[+]ping ok\n[+]log ok\nhealthz check passed\n');

    const livez = await call(server.url, '/livez', anon);
    expect(livez.status).toBe(500);
    expect(livez.body).toBe('[+]ping ok\n[+]log ok\n[-]broken failed: reason withheld\nlivez check failed\n');
    const excluded = await call(server.url, '/livez?verbose&exclude=broken&exclude=nosuch', anon);
    expect(excluded.status).toBe(200);
    expect(excluded.body).toBe('[+]ping ok\n[+]log ok\n[+]broken excluded: ok\nwarn: some health checks cannot be excluded: no matches for "nosuch"\nlivez check passed\n');

    expect((await call(server.url, '/readyz/etcd', admin)).body).toBe('ok');
    const one = await call(server.url, '/livez/broken', admin);
    expect(one.status).toBe(500);
    expect(one.body).toBe('internal server error: disk on fire\n');
  });

  it('answers HEAD like GET without a body', async () => {
    const res = await call(server.url, '/version', { ca: server.caCert }, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.body).toBe('');
  });

  it('runs every method on every path through the filter chain to the handler', async () => {
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND']) {
      for (const path of ['/api/v1/namespaces/default/configmaps/echo', '/healthz', '/nothing/here']) {
        const badToken = await call(server.url, path, { ca: server.caCert, token: 'not-a-token' }, { method });
        expect(badToken.status, `${method} ${path}`).toBe(401);
        expect(badToken.headers['audit-id']).toBeTruthy();
      }
      const echoed = await call(server.url, '/api/v1/namespaces/default/configmaps/echo', admin, { method });
      expect(echoed.status, method).toBe(200);
      expect(echoed.json()).toMatchObject({ info: { path: '/api/v1/namespaces/default/configmaps/echo', name: 'echo' }, user: 'admin' });
      expect(echoed.headers['audit-id']).toBeTruthy();
    }
  });
});

describe('startServer without an API', () => {
  it('gives 404 Status for resources and a plain 404 elsewhere, then closes cleanly', async () => {
    const server = await startServer({ storage: 'memory', authorizationMode: 'AlwaysAllow', api: () => ({ handler: notFoundHandler }) });
    const admin = kubeconfigCredentials(server.kubeconfig);
    const resource = await call(server.url, '/api/v1/namespaces', admin);
    expect(resource.status).toBe(404);
    expect(resource.json()).toMatchObject({ kind: 'Status', reason: 'NotFound' });
    const other = await call(server.url, '/nothing/here', admin);
    expect(other.status).toBe(404);
    expect(other.body).toBe('404 page not found\n');
    expect(other.headers['content-type']).toBe('text/plain; charset=utf-8');
    await server.close();
    await expect(call(server.url, '/version', admin)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('keeps a given data dir and reuses its CA on the next start', async () => {
    const { mkdtempSync, existsSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'keep-'));
    const first = await startServer({ storage: 'memory', dataDir: dir });
    const firstCa = first.caCert;
    await first.close();
    expect(existsSync(join(dir, 'admin.kubeconfig'))).toBe(true);
    const second = await startServer({ storage: 'memory', dataDir: dir });
    expect(second.caCert).toBe(firstCa);
    expect(second.kubeconfig).toContain(second.url);
    const { readFileSync } = await import('node:fs');
    expect(readFileSync(second.kubeconfigPath, 'utf8')).toBe(second.kubeconfig);
    await second.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('rejects bad options with kube-apiserver\'s wording', async () => {
    await expect(startServer({ featureGates: 'NoSuchGate=true' })).rejects.toThrow(
      'invalid argument "NoSuchGate=true" for "--feature-gates" flag: unrecognized feature gate: NoSuchGate',
    );
    await expect(startServer({ authorizationMode: 'Foo' })).rejects.toThrow('authorization-mode "Foo" is not a valid mode');
    await expect(startServer({ bindAddress: 'nowhere' })).rejects.toThrow('failed to parse IP: "nowhere"');
  });
});
