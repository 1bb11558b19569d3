// Finds the kubectl binaries the end-to-end tests drive. kubectl on PATH may be a wrapper; the
// versioned binaries (kubectl.1.27 ... kubectl.1.33) sit beside the real one. Without kubectl the
// tests skip with a message, unless REQUIRE_KUBECTL=1 (CI), where a missing kubectl is a failure.
// It also starts a server for kubectl and runs kubectl against it.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startServer, type RunningServer } from '../../runtime/index.js';
import type { StartServerOptions } from '../../runtime/server/options.js';

export const REQUIRED_KUBECTL_VERSIONS = ['1.27', '1.33'] as const;

function kubectlDir(): string | undefined {
  try {
    const onPath = execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim();
    return onPath ? dirname(realpathSync(onPath)) : undefined;
  } catch {
    return undefined;
  }
}

/** The path of kubectl.<version>, or undefined when absent. */
export function findKubectl(version: string): string | undefined {
  const dir = kubectlDir();
  if (!dir) return undefined;
  const path = join(dir, `kubectl.${version}`);
  return existsSync(path) ? path : undefined;
}

/** Resolves each required version; throws under REQUIRE_KUBECTL=1 when one is missing. */
export function kubectlVersions(): Array<{ version: string; path: string | undefined }> {
  const found = REQUIRED_KUBECTL_VERSIONS.map((version) => ({ version, path: findKubectl(version) }));
  const missing = found.filter((f) => !f.path).map((f) => f.version);
  if (missing.length > 0) {
    if (process.env.REQUIRE_KUBECTL === '1') {
      throw new Error(`REQUIRE_KUBECTL=1 but kubectl ${missing.join(', ')} not found beside kubectl on PATH`);
    }
    console.warn(`skipping kubectl ${missing.join(', ')} end-to-end tests: not found beside kubectl on PATH`);
  }
  return found;
}

export interface KubectlResult {
  /** The exit code; 1 when kubectl was killed (timeout) or could not start. */
  code: number;
  stdout: string;
  stderr: string;
}

/** Where kubectl finds its cluster: a kubeconfig file, and a HOME of the test's own so discovery and OpenAPI caches start empty. */
export interface KubectlContext {
  kubeconfig: string;
  home: string;
  /** Milliseconds before kubectl is killed; default 20 s. */
  timeout?: number;
}

/** The environment kubectl runs with in `ctx`, for tests that spawn it themselves (watches). */
export function kubectlEnv(ctx: KubectlContext): NodeJS.ProcessEnv {
  return { ...process.env, KUBECONFIG: ctx.kubeconfig, HOME: ctx.home };
}

/** Runs kubectl `bin` with `args` and `input` on stdin; never rejects: a failure is a non-zero code. */
export function runKubectl(bin: string, args: string[], ctx: KubectlContext, input?: string): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(bin, args, { env: kubectlEnv(ctx), timeout: ctx.timeout ?? 20_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** Writes `text` as the kubeconfig file `name` in `dir` and returns its path. */
export function writeKubeconfig(dir: string, text: string, name = 'kubeconfig'): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

export interface KubectlServer extends KubectlContext {
  server: RunningServer;
  /** The test's temporary directory: server data, kubeconfig and kubectl's HOME. */
  dir: string;
  kubectl(bin: string, args: string[], input?: string): Promise<KubectlResult>;
  close(): Promise<void>;
}

/**
 * Starts the server in-process (port 0, sqlite unless `options` say otherwise) in a fresh temporary
 * directory named from `prefix`, writes its admin kubeconfig there, and runs kubectl against it.
 */
export async function startKubectlServer(prefix: string, options: StartServerOptions = {}, timeout?: number): Promise<KubectlServer> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    const server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: 'sqlite', ...options });
    const ctx: KubectlContext = { kubeconfig: writeKubeconfig(dir, server.kubeconfig), home: dir, ...(timeout ? { timeout } : {}) };
    return {
      ...ctx,
      server,
      dir,
      kubectl: (bin, args, input) => runKubectl(bin, args, ctx, input),
      async close() {
        await server.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}
