// kubectl 1.33 against the watch cache: `get --chunk-size=2` pages through 25 objects with continue
// tokens, and `get --watch` prints the list and then the changes. Skipped with a message without
// kubectl (a failure under REQUIRE_KUBECTL=1).
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { kubectlEnv, kubectlVersions, startKubectlServer, type KubectlServer } from '../support/kubectl.js';

const kubectl = kubectlVersions().find((k) => k.version === '1.33')?.path;
const NS = 'chunks';
const NAMES = Array.from({ length: 25 }, (_, i) => `cm-${String(i).padStart(2, '0')}`);

describe.skipIf(!kubectl)('kubectl 1.33 list and watch', () => {
  let cluster: KubectlServer;
  let server: RunningServer;
  let creds: Credentials;
  const create = async (name: string) => {
    const res = await call(server.url, `/api/v1/namespaces/${NS}/configmaps`, creds, {
      method: 'POST',
      body: JSON.stringify({ metadata: { name }, data: { n: name } }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(201);
  };

  beforeAll(async () => {
    cluster = await startKubectlServer('watch-kubectl-');
    server = cluster.server;
    creds = kubeconfigCredentials(server.kubeconfig);
    await call(server.url, '/api/v1/namespaces', creds, { method: 'POST', body: JSON.stringify({ metadata: { name: NS } }), headers: { 'content-type': 'application/json' } });
    for (const name of NAMES) await create(name);
    // The root CA publisher adds kube-root-ca.crt to the namespace, as in any cluster.
    for (let i = 0; i < 100 && (await call(server.url, `/api/v1/namespaces/${NS}/configmaps/kube-root-ca.crt`, creds)).status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 50));
    }
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it('get --chunk-size=2 pages through 25 objects and kube-root-ca.crt with continue tokens', async () => {
    const { code, stdout, stderr } = await cluster.kubectl(kubectl!, ['get', 'configmaps', '-n', NS, '--chunk-size=2', '-o', 'name', '-v=6']);
    expect(code, stderr).toBe(0);
    expect(stdout.trim().split('\n')).toEqual([...NAMES, 'kube-root-ca.crt'].map((n) => `configmap/${n}`));
    // -v=6 logs each request: the first page, then one continue per further page of two.
    const pages = stderr.split('\n').filter((l) => /"Response" verb="GET" url="[^"]*\/configmaps\?[^"]*limit=2[^"]*"/.test(l));
    expect(pages).toHaveLength(13);
    expect(pages.filter((l) => l.includes('continue='))).toHaveLength(12);
    expect(pages.every((l) => l.includes('status="200 OK"'))).toBe(true);
  });

  it('get --watch prints the list, then changes as they happen', async () => {
    const child = spawn(kubectl!, ['get', 'configmaps', '-n', NS, '--watch', '--output-watch-events'], { env: kubectlEnv(cluster) });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c: string) => (out += c));
    try {
      await expect.poll(() => out, { timeout: 20_000 }).toMatch(/cm-24/);
      await create('late');
      await expect.poll(() => out, { timeout: 20_000 }).toMatch(/ADDED\s+late\s+1\s/);
      const d = await call(server.url, `/api/v1/namespaces/${NS}/configmaps/late`, creds, { method: 'DELETE' });
      expect(d.status).toBe(200);
      await expect.poll(() => out, { timeout: 20_000 }).toMatch(/DELETED\s+late\s+1\s/);
      const lines = out.trim().split('\n');
      expect(lines[0]).toMatch(/^EVENT\s+NAME\s+DATA\s+AGE$/);
      expect(lines.slice(1, 26).map((l) => l.split(/\s+/).slice(0, 2).join(' '))).toEqual(NAMES.map((n) => `ADDED ${n}`));
    } finally {
      child.kill();
    }
  });
});
