// The metrics rows: GET of one ConfigMap on a server that records request metrics (the default)
// against the same server started with recording off (startServer({ metrics: false }), through
// bench/metrics-launcher.ts); the goal is a cost of at most 5%. Both servers run the TypeScript
// sources through the same launcher, so only the recording differs.
//
// What recording costs is CPU per request, and that is the main figure: each server's CPU time
// (every thread's, in nanoseconds from /proc/<pid>/task/*/schedstat) over each timed run, per
// request the run served. The two servers run at the same time, each under a wrk of its own, so
// that whatever else the machine does during a run weighs on both sides of that run's ratio
// alike; the figure is the median of the runs' ratios (the totals over all runs beside it). On
// two cores shared with other work, runs one after the other were not comparable: rates of either
// server spread 2x to 4x within one run at a load average of 9, and CPU per request moves too
// (a starved process serves fewer requests per turn of its event loop). The rate ratio is shown
// beside, as the median over the same runs.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/ports.js';
import { expect } from './https.js';
import { root, track } from './server.js';
import { cpuMicros } from './server-cpu.js';
import type { WrkResult, WrkRun } from './wrk.js';

const PATH = '/api/v1/namespaces/default/configmaps/metrics-bench';

export interface MetricsRows {
  on: WrkResult[];
  off: WrkResult[];
  /** Server CPU time (all threads) per request of the timed runs, in microseconds. */
  cpuUsPerRequest: { on: number; off: number };
  /** Rate recorded / rate off of each run of both servers at once, in order. */
  pairRatios: number[];
  /** CPU per request off / recorded of the same runs. */
  cpuPairRatios: number[];
}

/** Simultaneous runs of both servers: four times BENCH_ROUNDS when set, else twelve. */
const PAIRS = process.env.BENCH_ROUNDS ? 4 * Number(process.env.BENCH_ROUNDS) : 12;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);

async function launch(dataDir: string, tokenFile: string, metrics: 'on' | 'off') {
  const port = await freePort();
  const child = track(
    spawn(process.execPath, ['--import', 'tsx', 'bench/metrics-launcher.ts', String(port), dataDir, tokenFile, metrics], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] }),
  );
  await new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`metrics launcher (${metrics}) exited with ${code}`)));
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    port,
    pid: child.pid!,
    ca: readFileSync(join(dataDir, 'ca.crt')),
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function measureMetricsGet(runWrk: (run: WrkRun) => Promise<WrkResult>, log: (line: string) => void): Promise<MetricsRows> {
  const dirs = { on: mkdtempSync(join(tmpdir(), 'bench-metrics-on-')), off: mkdtempSync(join(tmpdir(), 'bench-metrics-off-')) };
  const token = randomBytes(24).toString('hex');
  const servers: Array<Awaited<ReturnType<typeof launch>>> = [];
  try {
    log(`Metrics: two servers through the library, request metrics recorded and not, GET of both at once, ${PAIRS} runs`);
    for (const mode of ['on', 'off'] as const) {
      const tokenFile = join(dirs[mode], 'tokens.csv');
      writeFileSync(tokenFile, `${token},bench,bench-uid,"system:masters"\n`, { mode: 0o600 });
      const server = await launch(join(dirs[mode], 'data'), tokenFile, mode);
      servers.push(server);
      await expect(201, { port: server.port, ca: server.ca, token }, 'POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'metrics-bench' }, data: { k: 'v' } }));
    }
    const targets = { on: { port: servers[0].port, pid: servers[0].pid }, off: { port: servers[1].port, pid: servers[1].pid } };
    const run = (mode: 'on' | 'off', seconds: number) => runWrk({ port: targets[mode].port, token, mode: 'get', path: PATH, seconds });
    await Promise.all([run('on', 1), run('off', 1)]);
    const results = { on: [] as WrkResult[], off: [] as WrkResult[] };
    const cpu = { on: 0, off: 0 };
    const pairRatios: number[] = [];
    const cpuPairRatios: number[] = [];
    const timed = async (mode: 'on' | 'off') => {
      const before = cpuMicros(targets[mode].pid);
      const result = await run(mode, SECONDS);
      const used = cpuMicros(targets[mode].pid) - before;
      cpu[mode] += used;
      results[mode].push(result);
      return { perSecond: result.perSecond, cpuPerRequest: used / result.requests };
    };
    const pair = (on: { perSecond: number; cpuPerRequest: number }, off: { perSecond: number; cpuPerRequest: number }) => {
      pairRatios.push(on.perSecond / off.perSecond);
      cpuPairRatios.push(off.cpuPerRequest / on.cpuPerRequest);
    };
    // Both servers under load at once, each with a wrk of its own: whatever else the machine does
    // during a run weighs on both sides of that run's ratio alike.
    for (let pair_ = 0; pair_ < PAIRS; pair_++) {
      const [on, off] = await Promise.all([timed('on'), timed('off')]);
      pair(on, off);
    }
    const requests = (runs: WrkResult[]) => runs.reduce((n, r) => n + r.requests, 0);
    return { ...results, pairRatios, cpuPairRatios, cpuUsPerRequest: { on: cpu.on / requests(results.on), off: cpu.off / requests(results.off) } };
  } finally {
    for (const server of servers) await server.stop();
    rmSync(dirs.on, { recursive: true, force: true });
    rmSync(dirs.off, { recursive: true, force: true });
  }
}
