// /livez, /readyz and /healthz with kube-apiserver's checks and texts: the store check (`etcd`)
// fails while etcd is down and recovers when it is back; `?exclude=`, `/readyz/<check>` and
// kubectl 1.33's `get --raw '/readyz?verbose'`.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { etcdBinary, startEtcd, type EtcdProcess } from '../support/etcd.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { findKubectl, startKubectlServer } from '../support/kubectl.js';
import { useMemoryServer } from '../support/memory-server.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';

const READYZ_CHECKS = ['ping', 'log', 'etcd', 'etcd-readiness', 'informer-sync', 'poststarthook/crd-informer-synced', 'poststarthook/rbac/bootstrap-roles', 'shutdown'];
const LIVEZ_CHECKS = ['ping', 'log', 'etcd', 'poststarthook/crd-informer-synced', 'poststarthook/rbac/bootstrap-roles'];

describe('health endpoints', () => {
  const server = useMemoryServer();

  it('lists kube-apiserver\'s checks with ?verbose', async () => {
    const readyz = await server.raw('GET', '/readyz?verbose');
    expect(readyz.status).toBe(200);
    expect(readyz.body).toBe(`${READYZ_CHECKS.map((c) => `[+]${c} ok\n`).join('')}readyz check passed\n`);
    const livez = await server.raw('GET', '/livez?verbose');
    expect(livez.body).toBe(`${LIVEZ_CHECKS.map((c) => `[+]${c} ok\n`).join('')}livez check passed\n`);
    expect((await server.raw('GET', '/readyz')).body).toBe('ok');
  });

  it('serves each check on its own path and excludes checks by name', async () => {
    for (const check of READYZ_CHECKS) {
      const res = await server.raw('GET', `/readyz/${check}`);
      expect([check, res.status, res.body]).toEqual([check, 200, 'ok']);
    }
    const excluded = await server.raw('GET', '/readyz?verbose&exclude=etcd&exclude=nosuch');
    expect(excluded.status).toBe(200);
    expect(excluded.body).toContain('[+]etcd excluded: ok\n');
    expect(excluded.body).toContain('warn: some health checks cannot be excluded: no matches for "nosuch"\n');
    expect((await server.raw('GET', '/readyz/nosuch')).status).toBe(404);
  });
});

const etcd = etcdBinary();

describe.skipIf(!etcd)('the etcd check on an etcd backend', () => {
  let etcdProcess: EtcdProcess;
  let server: RunningServer;
  let creds: Credentials;
  let dir: string;

  beforeAll(async () => {
    etcdProcess = await startEtcd(etcd!);
    dir = mkdtempSync(join(tmpdir(), 'health-etcd-'));
    server = await startServer({ etcdServers: etcdProcess.endpoints, dataDir: join(dir, 'data') });
    creds = kubeconfigCredentials(server.kubeconfig);
  });
  afterAll(async () => {
    await server?.close();
    await etcdProcess?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const get = (path: string) => call(server.url, path, creds);

  it('fails readyz and livez while etcd is stopped and passes again once it is back', async () => {
    expect((await get('/readyz')).status).toBe(200);
    await etcdProcess.stop({ keepData: true });

    const readyz = await get('/readyz?verbose');
    expect(readyz.status).toBe(500);
    expect(readyz.body).toContain('[-]etcd failed: reason withheld\n');
    expect(readyz.body).toContain('[-]etcd-readiness failed: reason withheld\n');
    expect(readyz.body).toContain('[+]ping ok\n');
    expect(readyz.body).toContain('[+]shutdown ok\n');
    expect(readyz.body).toMatch(/readyz check failed\n?$/);
    const livez = await get('/livez');
    expect(livez.status).toBe(500);
    expect(livez.body).toContain('[-]etcd failed: reason withheld\n');
    const one = await get('/livez/etcd');
    expect(one.status).toBe(500);
    expect(one.body).toMatch(/^internal server error: /);
    // Excluding the store checks leaves the rest passing.
    expect((await get('/readyz?exclude=etcd&exclude=etcd-readiness')).status).toBe(200);

    await etcdProcess.restart();
    let again = await get('/readyz');
    for (let i = 0; again.status !== 200 && i < 100; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      again = await get('/readyz');
    }
    expect(again.status).toBe(200);
    expect(again.body).toBe('ok');
    // And the server serves from etcd again.
    expect((await get('/api/v1/namespaces/default')).status).toBe(200);
  });
});

const kubectl133 = findKubectl('1.33');

describe.skipIf(!kubectl133)('kubectl 1.33', () => {
  it("reads get --raw '/readyz?verbose'", async () => {
    const env = await startKubectlServer('health-kubectl-');
    try {
      const res = await env.kubectl(kubectl133!, ['get', '--raw', '/readyz?verbose']);
      expect(res.code).toBe(0);
      expect(res.stdout).toBe(`${READYZ_CHECKS.map((c) => `[+]${c} ok\n`).join('')}readyz check passed\n`);
      const livez = await env.kubectl(kubectl133!, ['get', '--raw', '/livez/etcd']);
      expect([livez.code, livez.stdout]).toEqual([0, 'ok']);
    } finally {
      await env.close();
    }
  });
});
