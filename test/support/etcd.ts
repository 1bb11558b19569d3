// Starts a real, single-member etcd for the tests that need one: free loopback ports, a throwaway
// data directory, and a wait until it answers /health. Without the etcd binary on PATH the tests
// skip with a message, unless REQUIRE_ETCD=1 (CI), where a missing etcd is a failure.
import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

export { freePort };

export interface EtcdProcess {
  /** Client URLs, as `--etcd-servers` takes them. */
  endpoints: string[];
  /** Kills etcd and removes its data directory, unless keepData (for restart()). */
  stop(options?: { keepData?: boolean }): Promise<void>;
  /** Starts etcd again on the same ports and data directory (after stop({ keepData: true })). */
  restart(): Promise<void>;
  /** Freezes etcd (SIGSTOP): its connections stay open, and requests sent to it get no answer. */
  pause(): void;
  /** Lets a paused etcd run on (SIGCONT); it then reads what was sent meanwhile. */
  resume(): void;
}

/** The etcd binary on PATH; undefined (with a warning) when absent, an error under REQUIRE_ETCD=1. */
export function etcdBinary(): string | undefined {
  let found: string | undefined;
  try {
    found = execFileSync('sh', ['-c', 'command -v etcd'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    found = undefined;
  }
  if (!found) {
    if (process.env.REQUIRE_ETCD === '1') throw new Error('REQUIRE_ETCD=1 but the etcd binary is not on PATH');
    console.warn('skipping etcd storage tests: the etcd binary is not on PATH (set REQUIRE_ETCD=1 to make this a failure)');
  }
  return found;
}

/** An etcd serving its clients over TLS (PEM texts; written into etcd's data directory's sibling). */
export interface EtcdTls {
  /** Serving certificate and key; the certificate must name 127.0.0.1. */
  certPem: string;
  keyPem: string;
  /** CA that client certificates must chain to (etcd's --client-cert-auth); also verifies /health here. */
  clientCaPem: string;
  /** A client pair the helper's /health probe presents. */
  probe: { certPem: string; keyPem: string; caPem: string };
}

const healthy = async (url: string, tls?: EtcdTls): Promise<boolean> => {
  try {
    if (tls) return await healthyOverTls(url, tls);
    const response = await fetch(`${url}/health`);
    return response.ok && ((await response.json()) as { health?: string }).health === 'true';
  } catch {
    return false;
  }
};

/** fetch has no per-call CA or client certificate: /health through node:https instead. */
const healthyOverTls = (url: string, tls: EtcdTls): Promise<boolean> =>
  new Promise((resolve) => {
    const req = httpsGet(`${url}/health`, { ca: tls.probe.caPem, cert: tls.probe.certPem, key: tls.probe.keyPem }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(res.statusCode === 200 && (JSON.parse(body) as { health?: string }).health === 'true'));
    });
    req.on('error', () => resolve(false));
  });

class EtcdExited extends Error {}

/**
 * Whether process `pid` holds the listening socket of 127.0.0.1:`port` (Linux: /proc/net/tcp's
 * listeners by inode, against the process's open sockets).
 */
function listensOn(pid: number, port: number): boolean {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const inodes = new Set<string>();
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    // local address, remote, state (0A: LISTEN), ..., inode
    if (fields[1] === local && fields[3] === '0A') inodes.add(fields[9]);
  }
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return inodes.has(/^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1] ?? '');
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

/**
 * `extraArgs` are added to the flags (e.g. a shorter --grpc-keepalive-min-time); with `tls`,
 * clients connect over https and must present a certificate of `tls.clientCaPem`.
 */
export async function startEtcd(binary: string, extraArgs: string[] = [], tls?: EtcdTls): Promise<EtcdProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'etcd-test-'));
  let clientPort = 0;
  let clientUrl = '';
  let args: string[] = [];
  // etcd wants files; they live beside its data (removed with it) and outside the data dir it creates.
  const tlsArgs: string[] = [];
  if (tls) {
    const files = mkdtempSync(join(tmpdir(), 'etcd-tls-'));
    process.once('exit', () => rmSync(files, { recursive: true, force: true }));
    const write = (name: string, pem: string): string => {
      writeFileSync(join(files, name), pem);
      return join(files, name);
    };
    tlsArgs.push(
      `--cert-file=${write('server.crt', tls.certPem)}`,
      `--key-file=${write('server.key', tls.keyPem)}`,
      `--trusted-ca-file=${write('client-ca.crt', tls.clientCaPem)}`,
      '--client-cert-auth',
    );
  }
  const choosePorts = async (): Promise<void> => {
    clientPort = await freePort();
    const peerUrl = `http://127.0.0.1:${await freePort()}`;
    clientUrl = `${tls ? 'https' : 'http'}://127.0.0.1:${clientPort}`;
    // etcd 3.4 has no --unsafe-no-fsync (it came in 3.5); a single member on tmpfs-like temp
    // storage starts in well under a second anyway.
    args = [
      '--name=test',
      `--data-dir=${dataDir}`,
      `--listen-client-urls=${clientUrl}`,
      `--advertise-client-urls=${clientUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=test=${peerUrl}`,
      '--logger=zap',
      '--log-level=error',
      // Idle watches get a progress notification often, so the resume point of a watch moves on
      // even while nothing under its key changes.
      '--experimental-watch-progress-notify-interval=200ms',
      ...tlsArgs,
      ...extraArgs,
    ];
  };

  let child: ChildProcess | undefined;
  let output = '';
  const launch = async (): Promise<void> => {
    const proc = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    proc.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    proc.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    let exited = false;
    proc.once('exit', () => (exited = true));
    // Healthy, and on its own port: freePort's port may have gone to another test's etcd first
    // (ours then fails to bind and exits), and that one answers /health just as well.
    while (!(await healthy(clientUrl, tls)) || !listensOn(proc.pid!, clientPort)) {
      if (exited) throw new EtcdExited(`etcd exited before it became healthy:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  const kill = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  };
  const onExit = (): void => {
    child?.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  };
  process.once('exit', onExit);

  // A port taken meanwhile by someone else: new ones, a few times.
  for (let attempt = 1; ; attempt++) {
    await choosePorts();
    try {
      await launch();
      break;
    } catch (err) {
      if (!(err instanceof EtcdExited) || !/address already in use/.test(output) || attempt === 3) throw err;
      output = '';
      // What the failed start wrote there names its ports.
      rmSync(dataDir, { recursive: true, force: true });
      mkdirSync(dataDir);
    }
  }
  return {
    endpoints: [clientUrl],
    async stop(options = {}) {
      await kill();
      if (!options.keepData) {
        process.off('exit', onExit);
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
    restart: launch,
    pause: () => {
      if (!child?.pid || !child.kill('SIGSTOP')) return;
      waitStopped(child.pid);
    },
    resume: () => void child?.kill('SIGCONT'),
  };
}

/**
 * Waits (up to 2 s) until every thread of `pid` is stopped. kill() returns once SIGSTOP is sent,
 * and each thread stops only when the kernel next gets to it, so a request sent right after a
 * pause could still be answered (seen in CI: a call meant to meet a frozen etcd came back).
 * Where /proc cannot tell, it returns at once.
 */
function waitStopped(pid: number): void {
  const tick = new Int32Array(new SharedArrayBuffer(4));
  for (const until = Date.now() + 2000; Date.now() < until; Atomics.wait(tick, 0, 0, 1)) {
    let threads: string[];
    try {
      threads = readdirSync(`/proc/${pid}/task`);
    } catch {
      return;
    }
    const running = threads.some((tid) => {
      try {
        // The state follows the command name, which is in parentheses and may hold spaces.
        const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
        const state = stat[stat.lastIndexOf(')') + 2];
        return state !== 'T' && state !== 't';
      } catch {
        return false; // the thread ended
      }
    });
    if (!running) return;
  }
}
