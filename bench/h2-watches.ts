// 1,000 watches over 10 HTTP/2 connections (100 streams each, kube-apiserver's default limit, as
// client-go multiplexes a process's watches) beside 1,000 watches over 1,000 HTTP/1.1
// connections: the server's RSS with the watches open, and for a few creates, the time from the
// create's response to each watcher's receipt of the event (p50, p99).
//
// The watchers run in WATCH_PROCESSES processes of their own (this file, in its `watchers` mode),
// so the client's own work does not stand in for the server's; arrival times are taken as the
// data arrives, before parsing.
//
//   measureH2Watches(serverUrl, token, caCert, { serverPid }) from run.ts;
//   `tsx bench/h2-watches.ts` alone starts `npm start` (memory storage, a system:masters token), a fresh one per protocol, and prints the figures;
//   `tsx bench/h2-watches.ts watchers <h2|http1> <url> <token> <path> <connections> <streams>` is one watcher process (CA in $BENCH_CA).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type ClientHttp2Session } from 'node:http2';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface WatchFigures {
  protocol: 'HTTP/2' | 'HTTP/1.1';
  connections: number;
  watches: number;
  /** Server RSS (MB) once every watch has its 200, and its growth since before they opened; absent without serverPid. */
  rssMB?: number;
  rssGrowthMB?: number;
  /** Delivery from the create's response to each watcher, median over the creates of each one's percentile (ms). */
  p50Ms: number;
  p99Ms: number;
  /**
   * The serving thread's CPU time from just before each create to its arrival at the last watcher
   * (the create's own handling included), median over the creates; absent without serverPid. It
   * reads the server's own work, which other load on the machine leaves alone where it stretches
   * the delivery times.
   */
  cpuMsPerWrite?: number;
}

export interface H2WatchOptions {
  /** The serving process, for its RSS. */
  serverPid?: number;
  /** Default 1,000. */
  watches?: number;
  /** HTTP/2 connections the watches share; default 10. */
  h2Connections?: number;
  /** Creates timed per protocol (one more, untimed, warms up); default 5. */
  writes?: number;
  namespace?: string;
  /**
   * Which to measure, in order; default both. The server keeps the heap the first one grew, so the
   * second's RSS growth reads low: for memory, measure each against a fresh server.
   */
  protocols?: Array<'h2' | 'http1'>;
}

const WATCH_PROCESSES = 4;
const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
};
const median = (xs: number[]) => percentile(xs, 50);

/** CPU time of a process's main thread so far, in ms: the scheduler's nanosecond count, not the 10 ms ticks of /proc/<pid>/stat. */
export function mainThreadCpuMs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
}

function rssMB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

interface Reply {
  status: number;
  body: string;
}

function send(url: URL, ca: string, token: string, agent: Agent, method: string, path: string, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${token}` };
    if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    const req = request({ host: url.hostname, port: Number(url.port), method, path, ca, agent, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function must(status: number, reply: Promise<Reply>, what: string): Promise<Reply> {
  const r = await reply;
  if (r.status !== status && !(status === 201 && r.status === 409)) throw new Error(`${what}: expected ${status}, got ${r.status} ${r.body.slice(0, 200)}`);
  return r;
}

export async function measureH2Watches(serverUrl: string, token: string, caCert: string, options: H2WatchOptions = {}): Promise<{ h2?: WatchFigures; http1?: WatchFigures }> {
  const url = new URL(serverUrl);
  const watches = options.watches ?? 1000;
  const h2Connections = options.h2Connections ?? 10;
  const ns = options.namespace ?? 'bench-h2-watch';
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  try {
    await must(201, send(url, caCert, token, agent, 'POST', '/api/v1/namespaces', JSON.stringify({ metadata: { name: ns } })), 'namespace');
    const result: { h2?: WatchFigures; http1?: WatchFigures } = {};
    for (const protocol of options.protocols ?? ['h2', 'http1']) {
      if (protocol === 'h2') result.h2 = await measure(url, token, caCert, agent, ns, 'h2', h2Connections, Math.ceil(watches / h2Connections), options);
      else result.http1 = await measure(url, token, caCert, agent, ns, 'http1', watches, 1, options);
      // Let the server drop the closed watches before the next measurement.
      await sleep(1000);
    }
    return result;
  } finally {
    agent.destroy();
  }
}

async function measure(
  url: URL,
  token: string,
  ca: string,
  agent: Agent,
  ns: string,
  protocol: 'h2' | 'http1',
  connections: number,
  streams: number,
  options: H2WatchOptions,
): Promise<WatchFigures> {
  const configmaps = `/api/v1/namespaces/${ns}/configmaps`;
  const list = JSON.parse((await must(200, send(url, ca, token, agent, 'GET', configmaps), 'list')).body) as { metadata: { resourceVersion: string } };
  const path = `${configmaps}?watch=1&resourceVersion=${list.metadata.resourceVersion}`;
  const total = connections * streams;
  const rssBefore = options.serverPid ? rssMB(options.serverPid) : undefined;
  const arrivals = new Map<string, number[]>();
  const complete = new Map<string, () => void>();
  const children: ChildProcess[] = [];
  try {
    const processes = Math.min(WATCH_PROCESSES, connections);
    await Promise.all(
      Array.from({ length: processes }, (_, i) => {
        const share = Math.floor(connections / processes) + (i < connections % processes ? 1 : 0);
        const child = spawn(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, 'watchers', protocol, url.href, token, path, String(share), String(streams)], {
          env: { ...process.env, BENCH_CA: ca },
          stdio: ['ignore', 'pipe', 'inherit'],
        });
        children.push(child);
        return new Promise<void>((resolve, reject) => {
          child.once('exit', (code) => reject(new Error(`a ${protocol} watcher process exited with ${code}`)));
          let pending = '';
          child.stdout!.on('data', (d: Buffer) => {
            pending += d.toString();
            let nl;
            while ((nl = pending.indexOf('\n')) >= 0) {
              const line = pending.slice(0, nl);
              pending = pending.slice(nl + 1);
              if (line === 'ready') {
                resolve();
                continue;
              }
              const { name, times } = JSON.parse(line) as { name: string; times: number[] };
              const seen = [...(arrivals.get(name) ?? []), ...times];
              arrivals.set(name, seen);
              if (seen.length === total) complete.get(name)?.();
            }
          });
        });
      }),
    );
    const rssOpen = options.serverPid ? rssMB(options.serverPid) : undefined;
    await sleep(1000);
    const p50s: number[] = [];
    const p99s: number[] = [];
    const cpus: number[] = [];
    for (let i = -1; i < (options.writes ?? 5); i++) {
      const name = `${protocol}-${i + 1}`;
      const seen = new Promise<void>((resolve) => complete.set(name, resolve));
      const cpuBefore = options.serverPid ? mainThreadCpuMs(options.serverPid) : 0;
      await must(201, send(url, ca, token, agent, 'POST', configmaps, JSON.stringify({ metadata: { name }, data: { k: 'v' } })), 'create');
      const answered = now();
      const timeout = sleep(15_000).then(() => {
        throw new Error(`${name} reached ${arrivals.get(name)?.length ?? 0} of ${total} ${protocol} watchers in 15 s`);
      });
      await Promise.race([seen, timeout]);
      const delays = arrivals.get(name)!.map((t) => t - answered);
      if (i >= 0) {
        p50s.push(percentile(delays, 50));
        p99s.push(percentile(delays, 99));
        if (options.serverPid) cpus.push(mainThreadCpuMs(options.serverPid) - cpuBefore);
      }
      await sleep(300);
    }
    return {
      protocol: protocol === 'h2' ? 'HTTP/2' : 'HTTP/1.1',
      connections,
      watches: total,
      ...(rssOpen !== undefined && rssBefore !== undefined ? { rssMB: rssOpen, rssGrowthMB: rssOpen - rssBefore } : {}),
      p50Ms: median(p50s),
      p99Ms: median(p99s),
      ...(cpus.length ? { cpuMsPerWrite: median(cpus) } : {}),
    };
  } finally {
    for (const child of children) {
      child.removeAllListeners('exit');
      child.kill();
    }
  }
}

/** One watcher process: `connections` connections with `streams` watches each; prints "ready", then one line per object. */
function runWatchers(protocol: string, serverUrl: string, token: string, path: string, connections: number, streams: number): void {
  const ca = process.env.BENCH_CA ?? '';
  const total = connections * streams;
  const seen = new Map<string, number[]>();
  let ready = 0;
  const fail = (why: string) => {
    console.error(why);
    process.exit(1);
  };
  const onData = (pending: { text: string }, chunk: Buffer) => {
    const at = now();
    pending.text += chunk.toString();
    let nl;
    while ((nl = pending.text.indexOf('\n')) >= 0) {
      const event = pending.text.slice(0, nl);
      pending.text = pending.text.slice(nl + 1);
      const name = /"name":"([^"]+)"/.exec(event)?.[1];
      if (!name || !event.startsWith('{"type":"ADDED"')) continue;
      const times = seen.get(name) ?? [];
      times.push(at);
      seen.set(name, times);
      if (times.length === total) {
        process.stdout.write(JSON.stringify({ name, times }) + '\n');
        seen.delete(name);
      }
    }
  };
  const started = (status: number) => {
    if (status !== 200) fail(`watch answered ${status}`);
    if (++ready === total) process.stdout.write('ready\n');
  };
  if (protocol === 'h2') {
    for (let c = 0; c < connections; c++) {
      const session: ClientHttp2Session = connect(serverUrl, { ca, peerMaxConcurrentStreams: streams });
      session.on('error', (err) => fail(`h2 session failed: ${err.message}`));
      for (let s = 0; s < streams; s++) {
        const stream = session.request({ ':path': path, authorization: `Bearer ${token}` });
        const pending = { text: '' };
        stream.on('response', (h) => started(Number(h[':status'])));
        stream.on('data', (chunk: Buffer) => onData(pending, chunk));
        stream.on('end', () => fail('a watch ended early'));
        stream.end();
      }
    }
    return;
  }
  const url = new URL(serverUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  for (let i = 0; i < total; i++) {
    request({ host: url.hostname, port: Number(url.port), path, ca, agent, headers: { authorization: `Bearer ${token}` } }, (res) => {
      started(res.statusCode ?? 0);
      const pending = { text: '' };
      res.on('data', (chunk: Buffer) => onData(pending, chunk));
      res.on('end', () => fail('a watch ended early'));
    })
      .on('error', (err) => fail(`watch failed: ${err.message}`))
      .end();
  }
}

async function standalone(): Promise<void> {
  const { npmStart } = await import('./server.js');
  const { freePort } = await import('../test/support/ports.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-h2-'));
  const token = randomBytes(24).toString('hex');
  const tokenFile = join(dataDir, 'tokens.csv');
  writeFileSync(tokenFile, `${token},bench,bench-uid,"system:masters"\n`, { mode: 0o600 });
  // A fresh server for each protocol, so neither's memory figure inherits the other's heap.
  const figures: WatchFigures[] = [];
  try {
    for (const protocol of ['h2', 'http1'] as const) {
      const port = await freePort();
      const server = await npmStart(dataDir, port, ['--storage', 'memory', '--token-auth-file', tokenFile], token);
      try {
        const result = await measureH2Watches(`https://127.0.0.1:${port}`, token, server.ca.toString(), { serverPid: server.pid, protocols: [protocol] });
        figures.push(result[protocol]!);
      } finally {
        await server.stop();
      }
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  for (const r of figures) {
    console.log(
      `${r.watches} watches over ${r.connections} ${r.protocol} connections: delivery p99 ${r.p99Ms.toFixed(1)} ms (p50 ${r.p50Ms.toFixed(1)}), ` +
        `server CPU ${r.cpuMsPerWrite?.toFixed(1)} ms per write, ` +
        `server RSS ${r.rssMB?.toFixed(0)} MB (+${r.rssGrowthMB?.toFixed(0)} MB for the watches)`,
    );
  }
  console.log(JSON.stringify(figures));
}

const [mode, ...args] = process.argv.slice(2);
if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  if (mode === 'watchers') {
    const [protocol, url, token, path, connections, streams] = args;
    runWatchers(protocol, url, token, path, Number(connections), Number(streams));
  } else {
    standalone().catch((err) => {
      console.error(err);
      process.exit(1);
    });
  }
}
