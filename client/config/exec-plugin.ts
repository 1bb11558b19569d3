// Credentials from a client-go credential plugin (kubeconfig user.exec): the plugin runs on
// demand, its answer is kept until its expirationTimestamp passes or the server answers 401 with
// it, and callers asking while it runs share that one run. Unlike client-go, a run is bounded in
// time, so a hanging plugin becomes an error instead of a hung client.

import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { isatty } from 'node:tty';
import { KubeConfigError } from './errors.js';
import { execCredentialInput, parseExecCredentialOutput, type ExecClusterInfo, type PluginCredentials } from './exec-credential.js';
import type { ExecConfig } from './kubeconfig-file.js';
import type { CredentialSource, Credentials } from './types.js';

export interface ExecOptions {
  /**
   * Longest a plugin may run before it is killed and get() fails (ms). Default 5 minutes: plugins
   * that log in through a browser wait for the person (kubelogin waits 3 minutes by default), so a
   * tighter bound would break them; client-go itself waits forever.
   */
  timeoutMs?: number;
  /** Receives the plugin's standard error (its prompts and diagnostics); default this process's. */
  stderr?: NodeJS.WritableStream;
}

export const DEFAULT_EXEC_TIMEOUT_MS = 5 * 60_000;

/** More than any token or certificate chain; a plugin printing without end is stopped. */
const MAX_OUTPUT_BYTES = 1 << 20;

export interface ExecPlugin {
  exec: ExecConfig & { interactiveMode: 'Never' | 'IfAvailable' | 'Always' };
  /** spec.cluster for the plugin, when the kubeconfig sets provideClusterInfo. */
  cluster?: ExecClusterInfo;
  /** Names the user and file in errors: `user "dev" in /home/me/.kube/config`. */
  owner: string;
}

// As client-go keeps one authenticator per distinct exec configuration, loading the same
// kubeconfig again reuses the credentials a plugin already gave instead of running it again
// (an interactive plugin would ask the person twice).
const sources = new Map<string, ExecCredentialSource>();

export function execCredentialSource(plugin: ExecPlugin, options: ExecOptions = {}): CredentialSource {
  const timeoutMs = options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
  const key = JSON.stringify([plugin.exec, plugin.cluster ?? null, timeoutMs]);
  let source = sources.get(key);
  if (!source) {
    source = new ExecCredentialSource(plugin, timeoutMs, options.stderr ?? process.stderr);
    sources.set(key, source);
  }
  return source;
}

class ExecCredentialSource implements CredentialSource {
  private cached?: PluginCredentials;
  private running?: Promise<Credentials>;

  constructor(
    private readonly plugin: ExecPlugin,
    private readonly timeoutMs: number,
    private readonly stderr: NodeJS.WritableStream,
  ) {}

  get(signal?: AbortSignal): Promise<Credentials> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const cached = this.cached;
    if (cached && (cached.expiresAt === undefined || Date.now() <= cached.expiresAt)) return Promise.resolve(cached.credentials);
    this.running ??= this.refresh().finally(() => (this.running = undefined));
    return signal ? untilAborted(this.running, signal) : this.running;
  }

  invalidate(used: Credentials): void {
    if (this.cached && sameCredentials(this.cached.credentials, used)) this.cached = undefined;
  }

  private async refresh(): Promise<Credentials> {
    const { exec, cluster, owner } = this.plugin;
    try {
      const interactive = interactiveFor(exec.interactiveMode);
      const input = execCredentialInput(exec.apiVersion, interactive, cluster);
      const env: NodeJS.ProcessEnv = { ...process.env };
      for (const { name, value } of exec.env) env[name] = value;
      // KUBERNETES_EXEC_INFO is what real plugins read; the spec names it CLUSTER_EXEC_INFO.
      env.KUBERNETES_EXEC_INFO = input;
      env.CLUSTER_EXEC_INFO = input;
      const stdout = await runPlugin(exec, env, interactive, this.timeoutMs, this.stderr);
      this.cached = parseExecCredentialOutput(stdout, exec.apiVersion);
      return this.cached.credentials;
    } catch (err) {
      throw new KubeConfigError(`getting credentials for ${owner}: ${(err as Error).message}`, { cause: err });
    }
  }
}

/** Whether the plugin gets our standard input (client-go's isInteractive). */
function interactiveFor(mode: ExecPlugin['exec']['interactiveMode']): boolean {
  if (mode === 'Never') return false;
  const terminal = isatty(0);
  if (mode === 'Always' && !terminal) throw new Error('exec plugin cannot support interactive mode: standard input is not a terminal');
  return terminal;
}

function runPlugin(exec: ExecConfig, env: NodeJS.ProcessEnv, interactive: boolean, timeoutMs: number, stderr: NodeJS.WritableStream): Promise<string> {
  const command = exec.command;
  const path = lookPath(command);
  if (path === undefined) {
    const help = 'is it installed? Credential plugins: https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins';
    return Promise.reject(new Error(`exec: executable ${command} not found (${help})${exec.installHint ? `\n\n${exec.installHint}` : ''}`));
  }
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | undefined, stdout?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(stdout!);
    };
    // Without a terminal the plugin's standard input is /dev/null, as Go's exec gives a nil Stdin.
    const child = spawn(path, exec.args, { env, stdio: [interactive ? 'inherit' : 'ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(new Error(`exec: executable ${command} did not finish within ${formatDuration(timeoutMs)} and was stopped`));
    }, timeoutMs);

    const chunks: Buffer[] = [];
    let size = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_OUTPUT_BYTES) chunks.push(chunk);
      else {
        child.kill('SIGKILL');
        finish(new Error(`exec: executable ${command} printed more than ${MAX_OUTPUT_BYTES} bytes and was stopped`));
      }
    });
    child.stderr.on('data', (chunk: Buffer) => stderr.write(chunk));

    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EACCES') finish(new Error(`exec: executable ${command} cannot be run: permission denied`));
      else finish(new Error(`exec: executable ${command} could not be started: ${err.code ?? err.message}`));
    });
    child.on('close', (code, signal) => {
      if (code === 0) finish(undefined, Buffer.concat(chunks).toString('utf8'));
      else if (signal) finish(new Error(`exec: executable ${command} was killed by signal ${signal}`));
      else finish(new Error(`exec: executable ${command} failed with exit code ${code}`));
    });
  });
}

/**
 * Where the command is, as Go's exec.LookPath finds it: a name with a slash as written, a bare
 * name in this process's PATH (not the plugin's env, which only the plugin sees). Undefined when
 * there is no such file.
 */
function lookPath(command: string): string | undefined {
  if (command.includes('/')) return statSync(command, { throwIfNoEntry: false }) ? command : undefined;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir || '.', command);
    try {
      if (statSync(candidate).isFile()) {
        accessSync(candidate, constants.X_OK);
        return candidate;
      }
    } catch {
      // Not here, or not executable: Go's LookPath goes on to the next folder.
    }
  }
  return undefined;
}

function sameCredentials(a: Credentials, b: Credentials): boolean {
  return a.token === b.token && a.clientCertificate?.cert === b.clientCertificate?.cert && a.clientCertificate?.key === b.clientCertificate?.key;
}

/** The caller stops waiting when its signal fires; the run itself goes on for the other callers and the cache. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

function formatDuration(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
