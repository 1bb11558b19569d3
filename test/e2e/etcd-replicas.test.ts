// Several server processes on one etcd: each is a real `runtime/main.ts` child process with its own
// data dir (certificates) and the same --etcd-servers. A write through one is seen by a watcher on
// the other, in order and with the same resourceVersions, and optimistic concurrency holds across
// them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { etcdBinary, startEtcd, type EtcdProcess } from '../support/etcd.js';
import { call } from '../support/https-client.js';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../support/server-process.js';
import { openWatch } from '../support/watch-client.js';

const etcd = etcdBinary();

describe.skipIf(!etcd)('two server processes on one etcd', () => {
  let etcdProcess: EtcdProcess;
  let dir: string;
  let a: ServerProcess;
  let b: ServerProcess;
  const cm = '/api/v1/namespaces/default/configmaps';
  const json = { 'content-type': 'application/json' };

  beforeAll(async () => {
    etcdProcess = await startEtcd(etcd!);
    dir = mkdtempSync(join(tmpdir(), 'e2e-replicas-'));
    const flags = ['--etcd-servers', etcdProcess.endpoints.join(',')];
    [a, b] = await Promise.all([startServerProcess(join(dir, 'a'), flags), startServerProcess(join(dir, 'b'), flags)]);
  });

  afterAll(async () => {
    await Promise.all([stopServerProcess(a), stopServerProcess(b)]);
    await etcdProcess?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('shows writes through one replica to a watcher on the other, in order, with the same resourceVersions', async () => {
    const start = (await call(b.url, cm, b.creds)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const watch = await openWatch(b.url, `${cm}?watch=1&resourceVersion=${start}`, b.creds);
    try {
      const written: string[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await call(a.url, cm, a.creds, { method: 'POST', headers: json, body: JSON.stringify({ metadata: { name: `r${i}` }, data: { i: String(i) } }) });
        expect(res.status).toBe(201);
        written.push(res.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion);
      }
      const seen = await watch.until((e) => e.object.metadata?.name === 'r4');
      // Each replica's root CA publisher may still be writing kube-root-ca.crt (each has a CA of its own here).
      const ours = seen.filter((e) => e.object.metadata?.name !== 'kube-root-ca.crt');
      expect(ours.map((e) => `${e.type} ${e.object.metadata?.name} ${e.object.metadata?.resourceVersion}`)).toEqual(
        written.map((rv, i) => `ADDED r${i} ${rv}`),
      );
    } finally {
      watch.close();
    }
  });

  it('reads on one replica what the other wrote, and refuses a stale update across them', async () => {
    const onB = (await call(b.url, `${cm}/r0`, b.creds)).json<{ metadata: { resourceVersion: string }; data: Record<string, string> }>();
    expect(onB.data).toEqual({ i: '0' });
    const updated = await call(a.url, `${cm}/r0`, a.creds, { method: 'PUT', headers: json, body: JSON.stringify({ ...onB, data: { i: 'a' } }) });
    expect(updated.status).toBe(200);
    const stale = await call(b.url, `${cm}/r0`, b.creds, { method: 'PUT', headers: json, body: JSON.stringify({ ...onB, data: { i: 'b' } }) });
    expect(stale.status).toBe(409);
    expect(stale.json<{ reason: string }>().reason).toBe('Conflict');
  });
});
