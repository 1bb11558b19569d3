// A started server (memory storage, in-process, HTTPS) and a raw HTTPS client for the wire tests:
// bodies come back as bytes, so compressed and binary responses can be inspected as sent.
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { kubeconfigCredentials } from './https-client.js';

export interface WireResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  raw: Buffer;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

export interface WireServer {
  server: RunningServer;
  dir: string;
  call(method: string, path: string, init?: { headers?: Record<string, string>; body?: string | Uint8Array }): Promise<WireResult>;
  close(): Promise<void>;
}

export async function startWireServer(options: { featureGates?: Record<string, boolean> } = {}): Promise<WireServer> {
  const dir = mkdtempSync(join(tmpdir(), 'wire-'));
  const server = await startServer({ port: 0, dataDir: join(dir, 'data'), storage: 'memory', ...(options.featureGates ? { featureGates: options.featureGates } : {}) });
  const creds = kubeconfigCredentials(server.kubeconfig);
  const call: WireServer['call'] = (method, path, init = {}) =>
    new Promise((resolve, reject) => {
      const req = httpsRequest(
        new URL(path, server.url),
        { method, headers: init.headers ?? {}, ca: creds.ca, cert: creds.cert, key: creds.key, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const raw = Buffer.concat(chunks);
            const text = raw.toString('utf8');
            resolve({ status: res.statusCode ?? 0, headers: res.headers, raw, text, json: () => JSON.parse(text) });
          });
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      if (init.body !== undefined) req.write(init.body);
      req.end();
    });
  return {
    server,
    dir,
    call,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
