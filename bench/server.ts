// The server as users run it: `npm start -- <flags>` (prestart and all), in a child process.
// The node process serving is found below npm (for its memory and for stopping it), and the
// start is timed from spawn to the first 200 of /readyz.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { send } from './https.js';

export const root = new URL('..', import.meta.url).pathname;

export interface RunningServer {
  npm: ChildProcess;
  /** The node process that serves (npm's descendant). */
  pid: number;
  port: number;
  ca: Buffer;
  /** Milliseconds from spawning `npm start` to the first 200 of /readyz. */
  readyMs: number;
  stop(): Promise<void>;
}

const started = new Set<ChildProcess>();
const groupLeaders = new WeakSet<ChildProcess>();
process.on('exit', () => {
  for (const child of started) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    // npm runs in a process group of its own: killing the group ends the server below it too.
    if (groupLeaders.has(child)) process.kill(-child.pid!, 'SIGKILL');
    else child.kill('SIGKILL');
  }
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(1));

/** Tracks a child so that a failing or interrupted bench leaves nothing running behind it. */
export function track(child: ChildProcess): ChildProcess {
  started.add(child);
  child.once('exit', () => started.delete(child));
  return child;
}

function children(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const task of tasks) {
    try {
      const listed = readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim();
      if (listed) out.push(...listed.split(' ').map(Number));
    } catch {
      // the task ended meanwhile
    }
  }
  return out;
}

/** The node process below `pid` whose command line carries the given port. */
function serverPid(pid: number, port: number): number | undefined {
  for (const child of children(pid)) {
    try {
      const comm = readFileSync(`/proc/${child}/comm`, 'utf8').trim();
      const argv = readFileSync(`/proc/${child}/cmdline`, 'utf8').split('\0');
      if (comm === 'node' && argv.includes(String(port))) return child;
    } catch {
      continue;
    }
    const below = serverPid(child, port);
    if (below !== undefined) return below;
  }
  return undefined;
}

export function rssMB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

/** Where a process's resident memory is, from /proc/<pid>/smaps: MB per kind of mapping. */
export interface RssByMapping {
  /** The node executable's pages: its code and the built-in modules' sources it carries. */
  nodeBinary: number;
  /** Mappings without a name: V8's heap pages, thread stacks, malloc's thread arenas. */
  anonymous: number;
  /** The main thread's malloc heap ([heap]). */
  malloc: number;
  /** Shared libraries and native addons (better-sqlite3, libstdc++, libc, ...). */
  libraries: number;
  /** Anything else (the stack, vdso, files read through mmap). */
  other: number;
}

export function rssByMapping(pid: number): RssByMapping {
  const out: RssByMapping = { nodeBinary: 0, anonymous: 0, malloc: 0, libraries: 0, other: 0 };
  const exe = readlinkSync(`/proc/${pid}/exe`);
  let kind: keyof RssByMapping = 'other';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    // A mapping's header: address range, permissions, offset, device, inode, then its name if any.
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      const name = header[1];
      kind = name === exe ? 'nodeBinary' : name === '' ? 'anonymous' : name === '[heap]' ? 'malloc' : /\.so(\.|$)|\.node$/.test(name) ? 'libraries' : 'other';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) out[kind] += Number(rss[1]) / 1024;
  }
  return out;
}

/**
 * `token` authenticates the readiness probe: with anonymous requests off (the default, as in
 * kube with --anonymous-auth=false), /readyz without a credential is 401.
 */
export async function npmStart(dataDir: string, port: number, flags: string[], token: string, env: NodeJS.ProcessEnv = process.env): Promise<RunningServer> {
  const t0 = performance.now();
  const npm = track(
    spawn('npm', ['start', '--', '--secure-port', String(port), '--data-dir', dataDir, ...flags], {
      cwd: root,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
    }),
  );
  groupLeaders.add(npm);
  let stderr = '';
  npm.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  const caPath = join(dataDir, 'ca.crt');
  let ca: Buffer | undefined;
  for (;;) {
    if (npm.exitCode !== null) throw new Error(`npm start exited with ${npm.exitCode}:\n${stderr}`);
    if (performance.now() - t0 > 120_000) throw new Error(`npm start not ready after 120 s:\n${stderr}`);
    // The CA appears only once the first start has made the PKI (read again until it works, in
    // case it was caught half written).
    if (existsSync(caPath)) ca = readFileSync(caPath);
    if (ca) {
      try {
        const res = await send({ port, ca, token }, 'GET', '/readyz', undefined, {}, { newConnection: true });
        if (res.status === 200) break;
      } catch {
        // not listening yet
      }
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const readyMs = performance.now() - t0;
  const pid = serverPid(npm.pid!, port);
  if (pid === undefined) throw new Error('found no node process serving below npm start');
  const exited = new Promise<void>((resolve) => npm.once('exit', () => resolve()));
  return {
    npm,
    pid,
    port,
    ca: ca!,
    readyMs,
    async stop() {
      if (npm.exitCode === null) {
        process.kill(pid, 'SIGTERM');
        await exited;
      }
    },
  };
}
