// Starts the real server as a child process (`runtime/main.ts` under tsx), the way users run it,
// for tests that need separate processes: replicas on one etcd, a process killed mid-write.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kubeconfigCredentials, type Credentials } from './https-client.js';
import { freePort } from './ports.js';

const root = new URL('../..', import.meta.url).pathname;

export interface ServerProcess {
  child: ChildProcess;
  url: string;
  creds: Credentials;
  /** What the process wrote so far, stdout and stderr together. */
  output(): string;
}

/**
 * Starts a server on a free port with `dataDir` and extra flags; resolves once it serves.
 * `nodeArgs` go to node itself (e.g. `--inspect-port`).
 */
export async function startServerProcess(dataDir: string, flags: string[] = [], nodeArgs: string[] = []): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'runtime/main.ts', '--secure-port', String(port), '--data-dir', dataDir, ...flags], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', () => {
      if (output.includes('Serving on')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  const creds = kubeconfigCredentials(readFileSync(join(dataDir, 'admin.kubeconfig'), 'utf8'));
  return { child, url: creds.server, creds, output: () => output };
}

/** Stops the process with SIGTERM (or the given signal) and waits for it to exit. */
export async function stopServerProcess(server: ServerProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!server || server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill(signal);
  await exited;
}


/**
 * Runs the server with `flags` for a start that is expected to fail: resolves with the exit code
 * and everything it wrote. Should it start serving after all, it is stopped and the code is null.
 */
export async function runServerProcessToExit(dataDir: string, flags: string[]): Promise<{ code: number | null; output: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'runtime/main.ts', '--secure-port', String(port), '--data-dir', dataDir, ...flags], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => {
    output += d.toString();
    if (output.includes('Serving on')) child.kill('SIGTERM');
  });
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(output.includes('Serving on') ? null : c)));
  return { code, output };
}
