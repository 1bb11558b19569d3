// A streaming watch client for tests: one HTTPS GET whose chunked JSON body is split into watch
// events as they arrive. `next()` resolves with the next event, or undefined once the server ends
// the stream; `status` and `body` tell a refused watch (4xx/5xx) apart from a stream.
import { request as httpsRequest } from 'node:https';
import type { IncomingMessage } from 'node:http';
import type { Credentials } from './https-client.js';

export interface WatchEventJson {
  type: string;
  object: {
    kind?: string;
    apiVersion?: string;
    code?: number;
    reason?: string;
    message?: string;
    data?: Record<string, string>;
    metadata?: { name?: string; resourceVersion?: string; annotations?: Record<string, string>; [k: string]: unknown };
    [k: string]: unknown;
  };
}

export interface WatchConnection {
  status: number;
  headers: IncomingMessage['headers'];
  /** The whole body of a refused watch (status other than 200). */
  body: string;
  next(): Promise<WatchEventJson | undefined>;
  /** Reads events until `stop` says so (inclusive) or the stream ends. */
  until(stop: (e: WatchEventJson) => boolean): Promise<WatchEventJson[]>;
  close(): void;
}

export function openWatch(baseUrl: string, path: string, creds: Credentials): Promise<WatchConnection> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(url, { ca: creds.ca, cert: creds.cert, key: creds.key, agent: false }, (res) => {
      const queue: WatchEventJson[] = [];
      const waiting: ((e: WatchEventJson | undefined) => void)[] = [];
      let ended = false;
      let buffer = '';
      const wake = () => {
        while (waiting.length && (queue.length || ended)) waiting.shift()!(queue.shift());
      };
      const conn: WatchConnection = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: '',
        next: () =>
          new Promise((r) => {
            waiting.push(r);
            wake();
          }),
        async until(stop) {
          const out: WatchEventJson[] = [];
          for (;;) {
            const e = await conn.next();
            if (!e) return out;
            out.push(e);
            if (stop(e)) return out;
          }
        },
        close: () => req.destroy(),
      };
      res.setEncoding('utf8');
      if (conn.status !== 200) {
        res.on('data', (c: string) => (conn.body += c));
        res.on('end', () => resolve(conn));
        return;
      }
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).trim();
          buffer = buffer.slice(nl + 1);
          if (line) queue.push(JSON.parse(line) as WatchEventJson);
        }
        wake();
      });
      const finish = () => {
        ended = true;
        wake();
      };
      res.on('end', finish);
      res.on('close', finish);
      res.on('error', finish);
      resolve(conn);
    });
    req.on('error', reject);
    req.end();
  });
}

/** `TYPE name` of each event, for compact assertions. */
export const summary = (events: WatchEventJson[]) => events.map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`.trim());
