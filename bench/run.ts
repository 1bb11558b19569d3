// npm run bench: starts the real server (as `npm start` does, in a child process) and measures
// what users feel: process start to /readyz, idle memory, and GET / CREATE rates over HTTPS
// keep-alive, next to the ceiling of a bare node:https + Hono handler on the same machine.
// Prints a table and writes bench/results/latest.json.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measureFormats } from './formats.js';
import { runLoad, send, type Client } from './load.js';

const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 5000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const STARTS = Number(process.env.BENCH_STARTS ?? 7);
const root = new URL('..', import.meta.url).pathname;

function spawnNode(args: string[]): ChildProcess {
  // The server's own log lines (start, shutdown) would only interleave with the table.
  return spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
}

/** What `npm start` runs once its build step is done (`npm run bench` builds first). */
function startServer(dataDir: string, port: number, extraFlags: string[] = []): ChildProcess {
  return spawnNode(['dist/main.mjs', '--secure-port', String(port), '--data-dir', dataDir, ...extraFlags]);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

function client(dataDir: string): Client {
  return {
    agent: new Agent({ keepAlive: true, maxSockets: CONCURRENCY }),
    cert: readFileSync(join(dataDir, 'admin.crt')),
    key: readFileSync(join(dataDir, 'admin.key')),
    ca: readFileSync(join(dataDir, 'ca.crt')),
  };
}

/** Milliseconds from spawn until /readyz answers 200 (polled every 5 ms). */
async function timeToReady(dataDir: string, port: number, extraFlags: string[] = []): Promise<{ ms: number; child: ChildProcess }> {
  const started = performance.now();
  const child = startServer(dataDir, port, extraFlags);
  const agent = new Agent({ keepAlive: false });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}`);
    try {
      // The CA appears only once the first start has made the PKI.
      const res = await send({ agent, ca: readFileSync(join(dataDir, 'ca.crt')) }, port, 'GET', '/readyz');
      if (res.status === 200) return { ms: performance.now() - started, child };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 5));
  }
}

function rssMB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const dataDir = mkdtempSync(join(tmpdir(), 'bench-'));
  const port = 17000 + Math.floor(Math.random() * 1000);
  try {
    // The first start makes the PKI; it is reported apart from the warm starts users see daily.
    const first = await timeToReady(dataDir, port);
    await stop(first.child);
    const starts: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      const run = await timeToReady(dataDir, port);
      starts.push(run.ms);
      await stop(run.child);
    }

    // CBOR is alpha and off by default; the loaded run turns it on to compare the three formats.
    const { child } = await timeToReady(dataDir, port, ['--feature-gates=CBORServingAndStorage=true']);
    await new Promise((r) => setTimeout(r, 1000));
    const idleRss = rssMB(child.pid!);
    const c = client(dataDir);
    const cmPath = '/api/v1/namespaces/default/configmaps';
    const made = await send(c, port, 'POST', cmPath, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bench-get' }, data: { a: 'b' } }));
    if (made.status !== 201) throw new Error(`could not create the GET target: ${made.status} ${made.body}`);
    const get = await runLoad(DURATION_MS, CONCURRENCY, () => send(c, port, 'GET', `${cmPath}/bench-get`), 200);
    const create = await runLoad(
      DURATION_MS,
      CONCURRENCY,
      (i) => send(c, port, 'POST', cmPath, JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `bench-${i}` }, data: { k: String(i) } })),
      201,
    );
    const formats = await measureFormats(c, port, DURATION_MS, CONCURRENCY);
    const loadedRss = rssMB(child.pid!);
    await stop(child);

    const ceilingProcess = spawnNode(['--import', 'tsx', 'bench/ceiling.ts', dataDir, String(port)]);
    await new Promise<void>((resolve, reject) => {
      ceilingProcess.stdout!.once('data', () => resolve());
      ceilingProcess.once('exit', (code) => reject(new Error(`ceiling exited with ${code}`)));
    });
    const ceilingClient = client(dataDir);
    const ceiling = await runLoad(DURATION_MS, CONCURRENCY, () => send(ceilingClient, port, 'GET', '/x'), 200);
    await stop(ceilingProcess);

    const results = {
      date: new Date().toISOString(),
      node: process.version,
      concurrency: CONCURRENCY,
      durationMs: DURATION_MS,
      firstStartMs: first.ms,
      startToReadyMedianMs: median(starts),
      startToReadyMs: starts,
      idleRssMB: idleRss,
      rssAfterLoadMB: loadedRss,
      getPerSecond: get.perSecond,
      createPerSecond: create.perSecond,
      ceilingPerSecond: ceiling.perSecond,
      getErrors: get.errors,
      createErrors: create.errors,
      formats,
    };
    const rows: Array<[string, string, string]> = [
      ['start to /readyz, median of ' + STARTS, `${results.startToReadyMedianMs.toFixed(0)} ms`, 'under 500 ms'],
      ['first start (makes the PKI)', `${results.firstStartMs.toFixed(0)} ms`, ''],
      ['idle RSS', `${idleRss.toFixed(1)} MB`, 'under 100 MB'],
      ['RSS after load', `${loadedRss.toFixed(1)} MB`, ''],
      ['GET one ConfigMap', `${get.perSecond.toFixed(0)} /s (${(get.perSecond / ceiling.perSecond).toFixed(2)} of ceiling)`, 'at least 0.5 of ceiling'],
      ['CREATE ConfigMap', `${create.perSecond.toFixed(0)} /s (${(create.perSecond / ceiling.perSecond).toFixed(2)} of ceiling)`, 'at least 0.25 of ceiling'],
      ['ceiling: bare node:https + Hono', `${ceiling.perSecond.toFixed(0)} /s`, ''],
      ['errors (GET / CREATE / formats and patches)', `${get.errors} / ${create.errors} / ${formats.errors}`, '0 / 0 / 0'],
      ...formats.rows.flatMap((r): Array<[string, string, string]> => [
        [`GET one ConfigMap as ${r.format}`, `${r.getPerSecond.toFixed(0)} /s`, ''],
        [`LIST 1,000 ConfigMaps as ${r.format}`, `${r.listPerSecond.toFixed(1)} /s, ${(r.listBytes / 1024).toFixed(0)} KiB`, ''],
        [`encode that list as ${r.format}, in process, as served`, `${r.encodeListMs.toFixed(2)} ms`, r.format === 'protobuf' ? 'cheapest of the three' : ''],
        [`  same, objects with no cache behind them`, `${r.encodeColdListMs.toFixed(2)} ms`, ''],
      ]),
      ['PATCH, JSON merge patch', `${formats.mergePatchPerSecond.toFixed(0)} /s`, ''],
      ['PATCH, server-side apply', `${formats.applyPerSecond.toFixed(0)} /s`, ''],
    ];
    const w0 = Math.max(...rows.map((r) => r[0].length));
    const w1 = Math.max(...rows.map((r) => r[1].length));
    console.log(`\n${'measure'.padEnd(w0)}  ${'result'.padEnd(w1)}  target`);
    console.log(`${'-'.repeat(w0)}  ${'-'.repeat(w1)}  ${'-'.repeat(24)}`);
    for (const [a, b, t] of rows) console.log(`${a.padEnd(w0)}  ${b.padEnd(w1)}  ${t}`);
    console.log(`\n(concurrency ${CONCURRENCY}, ${DURATION_MS} ms per load run, node ${process.version})`);
    mkdirSync(join(root, 'bench/results'), { recursive: true });
    writeFileSync(join(root, 'bench/results/latest.json'), JSON.stringify(results, null, 2) + '\n');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
