// Request bodies read from node's own request (HTTP/1.1 and HTTP/2): a body that arrives in
// pieces, requests pipelined in one write, and a client that leaves before its body ends. Each
// test checks what was stored, and that the server still answers afterwards. A request whose
// client left before its body was read is refused at once.
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import { connect as http2Connect } from 'node:http2';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBody } from '../../runtime/api/handlers/context.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const configMapBody = (name: string, value: string) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { k: value } });

function tlsSocket(server: RunningServer, creds: Credentials): Promise<TLSSocket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: server.port, ca: creds.ca, cert: creds.cert, key: creds.key, ALPNProtocols: ['http/1.1'] }, () => resolve(socket));
    socket.once('error', reject);
  });
}

const post = (name: string, body: string, close = false) =>
  `POST ${CONFIGMAPS} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`;

/** Everything the server sends until it closes the connection. */
function readAll(socket: TLSSocket): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

async function stored(server: RunningServer, creds: Credentials, name: string): Promise<unknown> {
  const res = await call(server.url, `${CONFIGMAPS}/${name}`, creds);
  return res.status === 200 ? (JSON.parse(res.body) as { data: unknown }).data : res.status;
}

describe('request bodies read from the node request', () => {
  let server: RunningServer;
  let admin: Credentials;
  beforeAll(async () => {
    server = await startServer({ storage: 'memory' });
    admin = kubeconfigCredentials(server.kubeconfig);
  });
  afterAll(() => server?.close());

  it('assembles a body that arrives in several writes, multi-byte characters split between them', async () => {
    const body = Buffer.from(configMapBody('pieces', 'é€😀'.repeat(2000)));
    const socket = await tlsSocket(server, admin);
    const reply = readAll(socket);
    socket.write(post('pieces', body.toString('utf8'), true));
    // Cut inside a four-byte character: the pieces are bytes, joined before any decoding.
    const cuts = [0, 7, 4001, 9002, body.length];
    for (let i = 0; i + 1 < cuts.length; i++) {
      socket.write(body.subarray(cuts[i], cuts[i + 1]));
      await sleep(20);
    }
    expect(await reply).toMatch(/^HTTP\/1\.1 201 /);
    expect(await stored(server, admin, 'pieces')).toEqual({ k: 'é€😀'.repeat(2000) });
  });

  it('reads each of several requests pipelined in one write as its own body', async () => {
    const socket = await tlsSocket(server, admin);
    const reply = readAll(socket);
    const bodies = ['one', 'two', 'three'].map((name) => [name, configMapBody(`pipelined-${name}`, name)] as const);
    socket.write(bodies.map(([name, body], i) => post(name, body, i === bodies.length - 1) + body).join(''));
    const text = await reply;
    expect(text.match(/HTTP\/1\.1 201 /g)).toHaveLength(3);
    for (const [name] of bodies) expect(await stored(server, admin, `pipelined-${name}`)).toEqual({ k: name });
  });

  it('stores nothing when the client closes before its declared body ends, and goes on serving', async () => {
    const body = configMapBody('left-early', 'x'.repeat(1000));
    const socket = await tlsSocket(server, admin);
    socket.write(post('left-early', body) + body.slice(0, 500));
    await sleep(50);
    socket.destroy();
    await sleep(50);
    expect(await stored(server, admin, 'left-early')).toBe(404);
    expect((await call(server.url, '/readyz', admin)).status).toBe(200);
    // The same name is free for a whole body.
    const res = await call(server.url, CONFIGMAPS, admin, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(201);
    expect(await stored(server, admin, 'left-early')).toEqual({ k: 'x'.repeat(1000) });
  });

  it('reads an HTTP/2 body sent in several DATA frames', async () => {
    const session = http2Connect(server.url, { ca: admin.ca, cert: admin.cert, key: admin.key });
    try {
      const body = configMapBody('h2-pieces', 'y'.repeat(40_000));
      const req = session.request({ ':method': 'POST', ':path': CONFIGMAPS, 'content-type': 'application/json', 'content-length': String(body.length) });
      const status = new Promise<number>((resolve) => req.on('response', (h) => resolve(Number(h[':status']))));
      req.on('data', () => {});
      req.write(body.slice(0, 100));
      await sleep(20);
      req.write(body.slice(100, 20_000));
      await sleep(20);
      req.end(body.slice(20_000));
      expect(await status).toBe(201);
      expect(await stored(server, admin, 'h2-pieces')).toEqual({ k: 'y'.repeat(40_000) });
    } finally {
      session.close();
    }
  });
});

describe('readBody of a node request whose client left before the read began', () => {
  it('rejects at once instead of waiting for events that never come', async () => {
    // Node destroys a request whose connection closed before its handler read the body; a
    // handler that reads only after an asynchronous step (a webhook, a namespace lookup) sees it so.
    const server = createHttpServer();
    const result = new Promise<string>((resolve) => {
      server.on('request', (req: IncomingMessage) => {
        req.socket.once('close', () => {
          setImmediate(() => {
            const request = new Request('http://127.0.0.1/', { method: 'POST', headers: { 'content-length': '5' }, body: 'hello' });
            readBody({ request, incoming: req }).then(
              () => resolve('resolved'),
              (err: Error) => resolve(`rejected: ${err.message}`),
            );
          });
        });
      });
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        const socket = netConnect(port, '127.0.0.1', () => {
          socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello');
          setTimeout(() => socket.destroy(), 50);
        });
      });
    });
    const outcome = await result;
    server.close();
    expect(outcome).toBe('rejected: the client closed the connection before the request body ended');
  });
});
