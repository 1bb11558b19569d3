// wrk, the load generator of `npm run bench`: a native client, so that the rate measured is the
// server's and not the client's. One thread, keep-alive connections, the bench user's bearer
// token, and bench/wrk/load.lua for the requests; its done() hands back one JSON line.
import { execFileSync, spawn } from 'node:child_process';
import { root, track } from './server.js';

export interface WrkResult {
  requests: number;
  durationUs: number;
  bytes: number;
  connectErrors: number;
  readErrors: number;
  writeErrors: number;
  statusErrors: number;
  timeouts: number;
  p50Us: number;
  p99Us: number;
  meanUs: number;
  perSecond: number;
  errors: number;
}

export interface WrkRun {
  port: number;
  token: string;
  mode: 'get' | 'create' | 'create-custom' | 'merge-patch' | 'apply';
  path: string;
  accept?: string;
  /** create: name prefix; patches: how many objects cm-0.. there are. */
  prefix?: string;
  /** create: filler bytes in each object's data. */
  pad?: number;
  connections?: number;
  seconds: number;
}

/** Exits the bench with install instructions when wrk is missing: no other client stands in. */
export function requireWrk(): void {
  try {
    execFileSync('wrk', ['--version'], { stdio: 'ignore' });
    return;
  } catch (err) {
    // wrk --version exits 1 after printing its version; only a missing binary is ENOENT.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return;
  }
  console.error(
    'npm run bench needs wrk, a native HTTP load generator; a Node.js client on the same machine\n' +
      'saturates before the server does and would report its own ceiling. Install it with:\n\n' +
      '  sudo apt-get install wrk        (Debian, Ubuntu)\n' +
      '  brew install wrk                (macOS)\n',
  );
  process.exit(2);
}

export function wrk(run: WrkRun): Promise<WrkResult> {
  const args = [
    '-t1',
    `-c${run.connections ?? 16}`,
    `-d${run.seconds}s`,
    '--timeout', '30s',
    '-H', `Authorization: Bearer ${run.token}`,
    '-s', `${root}bench/wrk/load.lua`,
    `https://127.0.0.1:${run.port}${run.path}`,
    '--',
    run.mode,
    run.path,
    run.accept ?? 'application/json',
    run.prefix ?? 'bench',
    String(run.pad ?? 0),
  ];
  return new Promise((resolve, reject) => {
    const child = track(spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] }));
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('{"requests"'));
      if (code !== 0 || !line) return reject(new Error(`wrk ${run.mode} ${run.path} failed (${code}):\n${out}`));
      const r = JSON.parse(line) as Omit<WrkResult, 'perSecond' | 'errors'>;
      const errors = r.connectErrors + r.readErrors + r.writeErrors + r.statusErrors + r.timeouts;
      resolve({ ...r, errors, perSecond: (r.requests - r.statusErrors) / (r.durationUs / 1e6) });
    });
  });
}
