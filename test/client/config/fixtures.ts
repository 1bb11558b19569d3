// Temporary folders with kubeconfig files and small real credential plugins (node scripts run
// as executables) for the client configuration tests.

import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll } from 'vitest';
import { stringify } from 'yaml';

/** A fresh folder removed after the file's tests. */
export function useTempDir(): () => string {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubeconfig-test-'));
    dirs.push(dir);
    return dir;
  };
}

export function writeFile(path: string, text: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

export function writeKubeconfig(path: string, doc: Record<string, unknown>): string {
  return writeFile(path, stringify({ apiVersion: 'v1', kind: 'Config', ...doc }));
}

export const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

/** A one-cluster, one-user, one-context kubeconfig document. */
export function simpleConfig(user: Record<string, unknown>, cluster: Record<string, unknown> = { server: 'https://127.0.0.1:6443' }, contextExtra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    clusters: [{ name: 'c', cluster }],
    users: [{ name: 'u', user }],
    contexts: [{ name: 'ctx', context: { cluster: 'c', user: 'u', ...contextExtra } }],
    'current-context': 'ctx',
  };
}

export interface PluginCall {
  /** KUBERNETES_EXEC_INFO, parsed. */
  info: { kind: string; apiVersion: string; spec: { interactive: boolean; cluster?: Record<string, unknown> } };
  /** CLUSTER_EXEC_INFO exactly as received. */
  clusterExecInfo: string | undefined;
  kubernetesExecInfo: string | undefined;
  args: string[];
  /** Environment variables starting with TEST_. */
  env: Record<string, string>;
  stdinIsTerminal: boolean;
  pid: number;
}

/**
 * Writes an executable node script `path`. Before `body` runs, the call is recorded in
 * `<folder>/calls.jsonl`; `body` sees `call` (this run's number, from 1), `reply(status,
 * apiVersion?)` that prints an ExecCredential, and `fs`/`path`.
 */
export function writePlugin(path: string, body: string): string {
  writeFile(
    path,
    `#!${process.execPath}
const fs = require('fs');
const path = require('path');
const log = path.join(__dirname, 'calls.jsonl');
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('TEST_')));
fs.appendFileSync(log, JSON.stringify({
  info: JSON.parse(process.env.KUBERNETES_EXEC_INFO || 'null'),
  kubernetesExecInfo: process.env.KUBERNETES_EXEC_INFO,
  clusterExecInfo: process.env.CLUSTER_EXEC_INFO,
  args: process.argv.slice(2),
  env,
  stdinIsTerminal: require('tty').isatty(0),
  pid: process.pid,
}) + '\\n');
const call = fs.readFileSync(log, 'utf8').split('\\n').filter(Boolean).length;
function reply(status, apiVersion = 'client.authentication.k8s.io/v1') {
  process.stdout.write(JSON.stringify({ apiVersion, kind: 'ExecCredential', status }));
}
${body}
`,
  );
  chmodSync(path, 0o755);
  return path;
}

/** The calls recorded by the plugins of `folder`. */
export function pluginCalls(folder: string): PluginCall[] {
  const log = join(folder, 'calls.jsonl');
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as PluginCall);
}

/** Puts process.env back key by key: replacing the object would detach it from the real environment (os.homedir() reads HOME there). */
export function restoreEnv(saved: NodeJS.ProcessEnv): void {
  for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
  for (const [key, value] of Object.entries(saved)) if (process.env[key] !== value) process.env[key] = value;
}
