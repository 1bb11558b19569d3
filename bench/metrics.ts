// The metrics row: GET of one ConfigMap on a server that records request metrics (the default)
// against the same server started with recording off (startServer({ metrics: false }), through
// bench/metrics-launcher.ts), alternating in A B B A order; the goal is a cost of at most 5%. Both servers run the
// TypeScript sources through the same launcher, so only the recording differs.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  /** Server CPU time (user + system) per timed request, in microseconds: steadier than rates on a busy machine. */
  cpuUsPerRequest: { on: number; off: number };
}

/** User plus system CPU time of a process so far, in microseconds (clock ticks of /proc/<pid>/stat). */
function cpuMicros(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

type Alternate = (targets: Array<Omit<WrkRun, 'seconds'>>) => Promise<WrkResult[][]>;

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

export async function measureMetricsGet(alternate: Alternate, log: (line: string) => void): Promise<MetricsRows> {
  const dirs = { on: mkdtempSync(join(tmpdir(), 'bench-metrics-on-')), off: mkdtempSync(join(tmpdir(), 'bench-metrics-off-')) };
  const token = randomBytes(24).toString('hex');
  const servers: Array<Awaited<ReturnType<typeof launch>>> = [];
  try {
    log('Metrics: two servers through the library, request metrics recorded and not, GET alternating');
    for (const mode of ['on', 'off'] as const) {
      const tokenFile = join(dirs[mode], 'tokens.csv');
      writeFileSync(tokenFile, `${token},bench,bench-uid,"system:masters"\n`, { mode: 0o600 });
      const server = await launch(join(dirs[mode], 'data'), tokenFile, mode);
      servers.push(server);
      await expect(201, { port: server.port, ca: server.ca, token }, 'POST', '/api/v1/namespaces/default/configmaps', JSON.stringify({ metadata: { name: 'metrics-bench' }, data: { k: 'v' } }));
    }
    // A B B A in every round, so a machine growing busier or quieter during a round weighs on both.
    const [on, off] = servers.map((s) => ({ port: s.port, token, mode: 'get' as const, path: PATH }));
    const cpuBefore = servers.map((s) => cpuMicros(s.pid));
    const [on1, off1, off2, on2] = await alternate([on, off, off, on]);
    const cpu = servers.map((s, i) => cpuMicros(s.pid) - cpuBefore[i]);
    const results = { on: on1.flatMap((r, i) => [r, on2[i]]), off: off1.flatMap((r, i) => [r, off2[i]]) };
    const requests = (runs: WrkResult[]) => runs.reduce((n, r) => n + r.requests, 0);
    // The warm-ups' requests are not counted, and cost both servers alike.
    return { ...results, cpuUsPerRequest: { on: cpu[0] / requests(results.on), off: cpu[1] / requests(results.off) } };
  } finally {
    for (const server of servers) await server.stop();
    rmSync(dirs.on, { recursive: true, force: true });
    rmSync(dirs.off, { recursive: true, force: true });
  }
}
