// A real server on memory storage for one test file, started before its tests and closed after
// them, with a JSON `send` that speaks to it over HTTPS with the admin credentials.
import { afterAll, beforeAll } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import type { StartServerOptions } from '../../runtime/server/options.js';
import { call, kubeconfigCredentials } from '../server/https-client.js';

export interface Sent<T> {
  status: number;
  body: T;
  /** Warning headers, one entry per warning (node joins repeated headers with commas). */
  warnings: string[];
}

export interface TestServer {
  send<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<Sent<T>>;
}

export function useMemoryServer(options: Partial<StartServerOptions> = {}): TestServer {
  let server: RunningServer;
  let creds: ReturnType<typeof kubeconfigCredentials>;
  beforeAll(async () => {
    server = await startServer({ storage: 'memory', ...options });
    creds = kubeconfigCredentials(server.kubeconfig);
  });
  afterAll(() => server?.close());
  return {
    async send<T>(method: string, path: string, body?: unknown): Promise<Sent<T>> {
      const res = await call(server.url, path, creds, {
        method,
        headers: { 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const raw = res.headers.warning;
      const warnings = (raw === undefined ? [] : Array.isArray(raw) ? raw : raw.split(/,(?=\s*299 )/)).map((w) => w.trim());
      return { status: res.status, body: res.json<T>(), warnings };
    },
  };
}
