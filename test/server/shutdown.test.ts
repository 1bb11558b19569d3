// SIGTERM as kube-apiserver handles it: /readyz fails at once (the shutdown check) while the
// server still serves through --shutdown-delay-duration; then the requests in flight finish, the
// store closes last and nothing a client was told is stored gets lost. A closed stderr must not
// keep the process alive or crash it. The watches ended at shutdown keep their connections for
// --shutdown-watch-termination-grace-period, so a slow reader still gets every event and a clean
// end (over HTTP/1.1 and HTTP/2); without it they are closed at once. The in-process informers
// stop before the watches end, so none lists again on the way out.
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as http2Connect } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../support/server-process.js';
import { etcdBinary, startEtcd } from '../support/etcd.js';
import { sample } from '../support/metrics-text.js';

const etcd = etcdBinary();

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

describe('--shutdown-watch-termination-grace-period', () => {
  /** A ConfigMap near the 1 MiB limit, so a few of them outgrow what the sockets between client and server buffer. */
  const bulky = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { blob: 'x'.repeat(700 * 1024) } });
  const EVENTS = 20;

  /**
   * Opens a watch whose client stops reading, writes EVENTS bulky objects it must deliver, closes
   * the server, and reads again 300 ms later: what the client then got, and how long close() took.
   */
  async function watchAcrossShutdown(graceMs: number, protocol: 'http/1.1' | 'h2') {
    const dir = tempDir();
    const server = await startServer({ storage: 'memory', dataDir: join(dir, 'data'), shutdownWatchTerminationGracePeriodMs: graceMs });
    const creds = kubeconfigCredentials(server.kubeconfig);
    const url = new URL('/api/v1/namespaces/default/configmaps?watch=1', server.url);
    let received = '';
    let paused!: () => void;
    const open = new Promise<void>((resolve) => (paused = resolve));
    let resume!: () => void;
    const outcome = new Promise<'end' | 'aborted'>((resolve) => {
      if (protocol === 'h2') {
        // As client-go watches: one stream of an HTTP/2 connection.
        const session = http2Connect(server.url, { ca: creds.ca, cert: creds.cert, key: creds.key });
        session.on('error', () => resolve('aborted'));
        const stream = session.request({ ':path': url.pathname + url.search });
        stream.setEncoding('utf8');
        stream.on('response', (headers) => {
          expect(headers[':status']).toBe(200);
          stream.pause();
          resume = () => {
            stream.on('data', (chunk: string) => (received += chunk));
            stream.resume();
          };
          paused();
        });
        stream.on('end', () => {
          resolve(stream.rstCode ? 'aborted' : 'end');
          session.close();
        });
        stream.on('aborted', () => resolve('aborted'));
        stream.on('error', () => resolve('aborted'));
        // A stream that closes before its end was read was cut, whatever its code: after the
        // server's GOAWAY (NO_ERROR) node may close it with code 0 when the connection goes.
        stream.on('close', () => resolve('aborted'));
        return;
      }
      const req = httpsRequest(url, { ca: creds.ca, cert: creds.cert, key: creds.key, agent: false }, (res) => {
        expect(res.statusCode).toBe(200);
        res.setEncoding('utf8');
        res.pause();
        resume = () => {
          res.on('data', (chunk: string) => (received += chunk));
          res.resume();
        };
        res.on('end', () => resolve('end'));
        res.on('aborted', () => resolve('aborted'));
        res.on('error', () => resolve('aborted'));
        paused();
      });
      req.on('error', () => resolve('aborted'));
      req.end();
    });
    await open;
    for (let i = 0; i < EVENTS; i++) {
      const res = await call(server.url, '/api/v1/namespaces/default/configmaps', creds, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bulky(`bulky-${i}`) });
      expect(res.status).toBe(201);
    }
    // Let the watch write what it can before the server stops.
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    const closed = server.close().then(() => Date.now() - started);
    await new Promise((r) => setTimeout(r, 300));
    resume();
    const how = await outcome;
    const closeMs = await closed;
    // Whole lines only: a cut stream ends inside an event.
    const events = received
      .split('\n')
      .slice(0, -1)
      .map((line) => JSON.parse(line) as { type: string; object: { metadata: { name: string } } })
      // The watch starts with what is there already (the namespace's kube-root-ca.crt).
      .filter((e) => e.object.metadata.name.startsWith('bulky-'));
    return { how, closeMs, events };
  }

  for (const protocol of ['http/1.1', 'h2'] as const) {
    it(`gives the ended watches the grace period to deliver what they hold, and closes as soon as they have (${protocol})`, async () => {
      const { how, closeMs, events } = await watchAcrossShutdown(20_000, protocol);
      expect(how).toBe('end');
      expect(events.map((e) => `${e.type} ${e.object.metadata.name}`)).toEqual(Array.from({ length: EVENTS }, (_, i) => `ADDED bulky-${i}`));
      // The grace period is an upper bound, not a wait: the connection went once the stream was read.
      expect(closeMs).toBeLessThan(15_000);
    }, 60_000);

    it(`closes the connections of ended watches at once without it, cutting what the client had not read (${protocol})`, async () => {
      const { how, events } = await watchAcrossShutdown(0, protocol);
      expect(how).toBe('aborted');
      expect(events.length).toBeLessThan(EVENTS);
    }, 60_000);
  }
});

describe.skipIf(!etcd)('the in-process controllers at shutdown', () => {
  // kube-apiserver runs its post-start hooks' controllers and informers with a context that ends
  // when it stops accepting requests, before the watches are ended; an informer still running
  // when its watch ends lists again. Each list of ours asks etcd for its current revision (a
  // Range) before the watch cache answers, so etcd's own Range count shows every list.
  it('stop before the watches end, so no informer lists again while the server shuts down', async () => {
    const store = await startEtcd(etcd!);
    try {
      const server = await startProcess(join(tempDir(), 'data'), ['--etcd-servers', store.endpoints.join(',')]);
      const ranges = async () => {
        const text = await (await fetch(`${store.endpoints[0]}/metrics`)).text();
        return sample(text, 'grpc_server_started_total', { grpc_method: 'Range', grpc_service: 'etcdserverpb.KV', grpc_type: 'unary' }) ?? 0;
      };
      // Ready: every informer has listed; then nothing asks etcd while nobody sends a request.
      for (let ready = false; !ready; ) ready = (await call(server.url, '/readyz', server.creds)).status === 200;
      let before = await ranges();
      for (let settled = false; !settled; ) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const now = await ranges();
        settled = now === before;
        before = now;
      }
      const gone = exited(server);
      server.child.kill('SIGTERM');
      expect(await gone).toEqual({ code: 0, signal: null });
      expect(await ranges()).toBe(before);
    } finally {
      await store.stop();
    }
  });
});
