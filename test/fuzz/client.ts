// HTTPS with bytes for bodies, keep-alive connections and a deadline per request: the fuzz sends
// thousands of requests, and a server that stops answering must show up as a failure, not a hang.
import { Agent, request } from 'node:https';
import type { Credentials } from '../support/https-client.js';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface FuzzClient {
  send(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Answer>;
  close(): void;
}

export function fuzzClient(baseUrl: string, creds: Credentials, timeoutMs: number): FuzzClient {
  const agent = new Agent({ keepAlive: true, maxSockets: 64, ca: creds.ca, cert: creds.cert, key: creds.key });
  return {
    close: () => agent.destroy(),
    send(method, path, headers, body) {
      const all = { ...headers };
      if (body) all['content-length'] = String(body.length);
      return new Promise((resolve, reject) => {
        let answered = false;
        const req = request(new URL(path, baseUrl), { method, headers: all, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            answered = true;
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
          });
          res.on('error', (e) => answered || reject(e));
        });
        req.setTimeout(timeoutMs, () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
        // A server may answer (413) and close before it has read a large body; the answer counts.
        req.on('error', (e) => answered || reject(e));
        if (body) req.end(body);
        else req.end();
      });
    },
  };
}
