// A real server on memory storage for one test file, started before its tests and closed after
// them, with a JSON `send` that speaks to it over HTTPS with the admin credentials.
import { afterAll, beforeAll } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import type { StartServerOptions } from '../../runtime/server/options.js';
import { call, kubeconfigCredentials, type HttpResult } from './https-client.js';

export interface Sent<T> {
  status: number;
  body: T;
  /** Warning headers, one entry per warning (node joins repeated headers with commas). */
  warnings: string[];
}

export interface TestServer {
  send<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<Sent<T>>;
  /** The reply as it came, for bodies that are not JSON objects or requests of another content type. */
  raw(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpResult>;
}

export function useMemoryServer(options: Partial<StartServerOptions> = {}): TestServer {
  let server: RunningServer;
  let client: TestServer;
  beforeAll(async () => {
    server = await startServer({ storage: 'memory', ...options });
    client = testServerFor(server);
  });
  afterAll(() => server?.close());
  return {
    raw: (method, path, body, headers) => client.raw(method, path, body, headers),
    send: (method, path, body) => client.send(method, path, body),
  };
}

/** A JSON `send` and a `raw` over HTTPS to a server already started, with its admin credentials. */
export function testServerFor(server: RunningServer): TestServer {
  const creds = kubeconfigCredentials(server.kubeconfig);
  const raw = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> =>
    call(server.url, path, creds, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
  return {
    raw,
    async send<T>(method: string, path: string, body?: unknown): Promise<Sent<T>> {
      const res = await raw(method, path, body);
      const header = res.headers.warning;
      const warnings = (header === undefined ? [] : Array.isArray(header) ? header : header.split(/,(?=\s*299 )/)).map((w) => w.trim());
      return { status: res.status, body: res.json<T>(), warnings };
    },
  };
}
