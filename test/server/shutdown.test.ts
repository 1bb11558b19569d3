// SIGTERM as kube-apiserver handles it: /readyz fails at once (the shutdown check) while the
// server still serves through --shutdown-delay-duration; then the requests in flight finish, the
// store closes last and nothing a client was told is stored gets lost. A closed stderr must not
// keep the process alive or crash it.
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../support/server-process.js';

const dirs: string[] = [];
const processes: ServerProcess[] = [];
afterAll(async () => {
  for (const p of processes) await stopServerProcess(p, 'SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kube-lite-shutdown-'));
  dirs.push(dir);
  return dir;
}

async function startProcess(dataDir: string, flags: string[] = []): Promise<ServerProcess> {
  const server = await startServerProcess(dataDir, flags);
  processes.push(server);
  return server;
}

const exited = (server: ServerProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) resolve({ code: server.child.exitCode, signal: server.child.signalCode });
    else server.child.once('exit', (code, signal) => resolve({ code, signal }));
  });

const configMap = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { n: name } });

describe('SIGTERM', () => {
  it('keeps every acknowledged write of a server stopped under write load', async () => {
    const dataDir = join(tempDir(), 'data');
    const server = await startProcess(dataDir);
    const acknowledged: string[] = [];
    let stop = false;
    const writer = async (id: number) => {
      for (let i = 0; !stop && i < 2000; i++) {
        const name = `cm-${id}-${i}`;
        try {
          const res = await call(server.url, '/api/v1/namespaces/default/configmaps', server.creds, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: configMap(name),
          });
          if (res.status === 201) acknowledged.push(name);
          else if (res.status >= 500) return;
        } catch {
          return; // connection refused or closed: the server is going away
        }
      }
    };
    const writers = [0, 1, 2, 3, 4, 5].map(writer);
    // Some writes land before the signal, others are in flight when it comes.
    while (acknowledged.length < 50) await new Promise((resolve) => setTimeout(resolve, 20));
    const gone = exited(server);
    server.child.kill('SIGTERM');
    expect(await gone).toEqual({ code: 0, signal: null });
    stop = true;
    await Promise.all(writers);
    expect(acknowledged.length).toBeGreaterThanOrEqual(50);

    const again = await startProcess(dataDir);
    const list = await call(again.url, '/api/v1/namespaces/default/configmaps', again.creds);
    expect(list.status).toBe(200);
    const stored = new Set((list.json<{ items: { metadata: { name: string } }[] }>().items).map((i) => i.metadata.name));
    const lost = acknowledged.filter((name) => !stored.has(name));
    expect(lost).toEqual([]);
    await stopServerProcess(again);
  });

  it('fails /readyz at once and serves on through --shutdown-delay-duration', async () => {
    const server = await startProcess(join(tempDir(), 'data'), ['--shutdown-delay-duration=3s']);
    expect((await call(server.url, '/readyz', server.creds)).body).toBe('ok');
    const gone = exited(server);
    server.child.kill('SIGTERM');
    let readyz = await call(server.url, '/readyz?verbose', server.creds);
    for (let i = 0; readyz.status === 200 && i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      readyz = await call(server.url, '/readyz?verbose', server.creds);
    }
    expect(readyz.status).toBe(500);
    expect(readyz.body).toContain('[-]shutdown failed: reason withheld\n');
    expect(readyz.body).toContain('[+]ping ok\n');
    expect(readyz.body).toMatch(/readyz check failed\n?$/);
    const one = await call(server.url, '/readyz/shutdown', server.creds);
    expect(one.status).toBe(500);
    expect(one.body).toContain('process is shutting down');
    // Still serving during the delay: liveness and ordinary requests are fine.
    expect((await call(server.url, '/livez', server.creds)).status).toBe(200);
    const created = await call(server.url, '/api/v1/namespaces/default/configmaps', server.creds, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: configMap('during-delay'),
    });
    expect(created.status).toBe(201);
    expect(await gone).toEqual({ code: 0, signal: null });
  });

  it('stops even when nobody reads its stderr any more', async () => {
    const server = await startProcess(join(tempDir(), 'data'), ['-v=3']);
    // The reading end goes away: every later log line meets EPIPE.
    server.child.stderr!.destroy();
    for (let i = 0; i < 5; i++) expect((await call(server.url, '/api/v1/namespaces', server.creds)).status).toBe(200);
    const gone = exited(server);
    server.child.kill('SIGTERM');
    expect(await gone).toEqual({ code: 0, signal: null });
  });
});

describe('close()', () => {
  it('ends an open watch cleanly and resolves', async () => {
    const dir = tempDir();
    const server = await startServer({ storage: 'sqlite', dataDir: join(dir, 'data') });
    const creds = kubeconfigCredentials(server.kubeconfig);
    const url = new URL('/api/v1/namespaces/default/configmaps?watch=1', server.url);
    const ended = new Promise<string>((resolve, reject) => {
      const req = httpsRequest(url, { ca: creds.ca, cert: creds.cert, key: creds.key, agent: false }, (res) => {
        expect(res.statusCode).toBe(200);
        res.resume();
        res.on('end', () => resolve('end'));
        res.on('error', reject);
        res.on('aborted', () => reject(new Error('watch aborted')));
        void server.close();
      });
      req.on('error', reject);
      req.end();
    });
    expect(await ended).toBe('end');
    await server.close();
  });
});
