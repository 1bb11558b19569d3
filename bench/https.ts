// Single requests for the bench's own set-up and checks (creating namespaces, reading sizes,
// polling /readyz), never for load: load comes from wrk.
import { Agent, request } from 'node:https';

export interface Endpoint {
  port: number;
  ca: Buffer;
  /** The bench user's bearer token; absent for anonymous requests (health probes). */
  token?: string;
}

export interface Reply {
  status: number;
  body: Buffer;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });
const fresh = new Agent({ keepAlive: false });

export function send(
  to: Endpoint,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
  options: { newConnection?: boolean } = {},
): Promise<Reply> {
  const all: Record<string, string | number> = { ...headers };
  if (to.token) all.authorization = `Bearer ${to.token}`;
  if (body !== undefined) {
    all['content-type'] ??= 'application/json';
    all['content-length'] = Buffer.byteLength(body);
  }
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: to.port, method, path, ca: to.ca, agent: options.newConnection ? fresh : agent, headers: all },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** send(), failing unless the status is the expected one. */
export async function expect(status: number, to: Endpoint, method: string, path: string, body?: string, headers?: Record<string, string>): Promise<Reply> {
  const reply = await send(to, method, path, body, headers);
  if (reply.status !== status) throw new Error(`${method} ${path}: expected ${status}, got ${reply.status} ${reply.body.toString().slice(0, 300)}`);
  return reply;
}
