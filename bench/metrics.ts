// The metrics rows: GET of one ConfigMap on a server that records request metrics (the default)
// against the same server started with recording off (startServer({ metrics: false }), through
// bench/metrics-launcher.ts); the goal is a cost of at most 5%. Both servers run the TypeScript
// sources through the same launcher, so only the recording differs.
//
// What recording costs is CPU per request, and that is the main figure: each server's CPU time
// (every thread's, in nanoseconds from /proc/<pid>/task/*/schedstat) over each timed run alone,
// per request the run served, compared between runs made back to back (the median of those
// ratios; the totals over all runs beside it). A rate on two cores shared with wrk and with whatever else runs
// moves with that other load from one run to the next (rates of one build differed by 15% in
// neighbouring runs at a load average of 8); it is shown beside, as the median of the on/off
// ratios of neighbouring runs (A B B A in every round: each pair ran back to back), so that a
// machine growing busier or quieter over the rounds weighs on both sides of each ratio alike.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/ports.js';
import { expect } from './https.js';
import { root, track } from './server.js';
import type { WrkResult, WrkRun } from './wrk.js';

const PATH = '/api/v1/namespaces/default/configmaps/metrics-bench';

export interface MetricsRows {
  on: WrkResult[];
  off: WrkResult[];
  /** Server CPU time (all threads) per request of the timed runs, in microseconds. */
  cpuUsPerRequest: { on: number; off: number };
  /** Rate recorded / rate off of each pair of runs made back to back, in order. */
  pairRatios: number[];
  /** CPU per request off / recorded of the same pairs. */
  cpuPairRatios: number[];
}

/** CPU time of every thread of a process so far, in microseconds (the scheduler's nanosecond counts). */
function cpuMicros(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended meanwhile; its time is gone from the count, which a thread of the
      // server's pools rarely does inside one run
    }
  }
  return ns / 1000;
}

/** Rounds of A B B A; BENCH_ROUNDS when set, else six (twelve timed runs of each server). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
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
    log(`Metrics: two servers through the library, request metrics recorded and not, GET in ${ROUNDS} rounds of A B B A`);
    for (const mode of ['on', 'off'] as const) {
      const tokenFile = join(dirs[mode], 'tokens.csv');
      writeFileSync(tokenFile, `${token},bench,bench-uid,"system:masters"\n`, { mode: 0o600 });
      const server = await launch(join(dirs[mode], 'data'), tokenFile, mode);
      servers.push(server);
      await expect(201, { port: server.port, ca: server.ca, token }, 'POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'metrics-bench' }, data: { k: 'v' } }));
    }
    const targets = { on: { port: servers[0].port, pid: servers[0].pid }, off: { port: servers[1].port, pid: servers[1].pid } };
    const run = (mode: 'on' | 'off', seconds: number) => runWrk({ port: targets[mode].port, token, mode: 'get', path: PATH, seconds });
    for (const mode of ['on', 'off', 'off', 'on'] as const) await run(mode, 1);
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
    for (let round = 0; round < ROUNDS; round++) {
      const on1 = await timed('on');
      pair(on1, await timed('off'));
      const off2 = await timed('off');
      pair(await timed('on'), off2);
    }
    const requests = (runs: WrkResult[]) => runs.reduce((n, r) => n + r.requests, 0);
    return { ...results, pairRatios, cpuPairRatios, cpuUsPerRequest: { on: cpu.on / requests(results.on), off: cpu.off / requests(results.off) } };
  } finally {
    for (const server of servers) await server.stop();
    rmSync(dirs.on, { recursive: true, force: true });
    rmSync(dirs.off, { recursive: true, force: true });
  }
}
