// A closed-loop load generator over HTTPS keep-alive: `concurrency` requests in flight until the
// duration ends; returns completed requests per second. Errors are counted, never ignored.
import { Agent, request } from 'node:https';

export interface Client {
  agent: Agent;
  /** The client certificate and key; absent for anonymous requests (health probes). */
  cert?: Buffer;
  key?: Buffer;
  ca: Buffer;
}

export interface LoadResult {
  perSecond: number;
  requests: number;
  errors: number;
}

export function send(
  client: Client,
  port: number,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: client.agent,
        cert: client.cert,
        key: client.key,
        ca: client.ca,
        headers: body ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers } : headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, body: raw.toString(), bytes: raw.length });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function runLoad(
  durationMs: number,
  concurrency: number,
  makeRequest: (i: number) => Promise<{ status: number }>,
  okStatus: number,
): Promise<LoadResult> {
  const end = performance.now() + durationMs;
  let requests = 0;
  let errors = 0;
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        try {
          const res = await makeRequest(next++);
          if (res.status === okStatus) requests++;
          else errors++;
        } catch {
          errors++;
        }
      }
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  return { perSecond: requests / seconds, requests, errors };
}
