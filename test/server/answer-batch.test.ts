// HTTP/1.1 answers ready at once are written together at the end of the event loop's turn
// (runtime/server/answer-batch.ts). Over the real server: requests pipelined on one connection,
// some answered at once from the watch cache and some not, each get their own answer in the order
// they were sent; a client gone before its batch is written leaves the server serving and nothing
// counted as still in flight.
import { connect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { answerBatch } from '../../runtime/server/answer-batch.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';

function tlsConnect(server: RunningServer, admin: Credentials): Promise<TLSSocket> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port), ca: admin.ca, cert: admin.cert, key: admin.key, ALPNProtocols: ['http/1.1'], servername: 'localhost' }, () => resolve(socket));
    socket.once('error', reject);
  });
}

const getRequest = (path: string, last = false) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n${last ? 'Connection: close\r\n' : ''}\r\n`;

/** Splits what a connection received into its responses: status and body, in order. */
function responses(raw: string): Array<{ status: number; body: string }> {
  const out: Array<{ status: number; body: string }> = [];
  let rest = raw;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    const head = rest.slice(0, headEnd);
    const length = Number(/^content-length: (\d+)$/im.exec(head)![1]);
    out.push({ status: Number(head.split(' ')[1]), body: rest.slice(headEnd + 4, headEnd + 4 + length) });
    rest = rest.slice(headEnd + 4 + length);
  }
  return out;
}

describe('answerBatch', () => {
  it('hands back the answers of one turn together, in order, after the I/O callbacks of that turn', async () => {
    const inBatch = answerBatch();
    const order: string[] = [];
    const first = inBatch(new Response('a')).then((r) => r.text()).then((t) => order.push(`answer ${t}`));
    const second = inBatch(new Response('b')).then((r) => r.text()).then((t) => order.push(`answer ${t}`));
    await Promise.resolve();
    order.push('same turn');
    await Promise.all([first, second]);
    expect(order).toEqual(['same turn', 'answer a', 'answer b']);
    // The batch is empty again: a later answer is released on its own.
    expect(await (await inBatch(new Response('c'))).text()).toBe('c');
  });
});

describe('HTTP/1.1 answers written at the end of the turn', () => {
  let server: RunningServer;
  let admin: Credentials;

  beforeAll(async () => {
    server = await startServer({ storage: 'memory' });
    admin = kubeconfigCredentials(server.kubeconfig);
    for (const name of ['one', 'two']) {
      const res = await call(server.url, CONFIGMAPS, admin, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { name } }),
      });
      expect(res.status).toBe(201);
    }
  });
  afterAll(() => server?.close());

  it('answers pipelined requests, cached and not, each with its own answer in the order sent', async () => {
    const socket = await tlsConnect(server, admin);
    let raw = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (raw += d));
    const ended = new Promise((resolve) => socket.once('end', resolve));
    // One write, so the server reads all of them in one turn.
    socket.write(
      getRequest(`${CONFIGMAPS}/one`) +
        getRequest(`${CONFIGMAPS}/missing`) +
        getRequest(`${CONFIGMAPS}/two`) +
        getRequest('/version') +
        getRequest(`${CONFIGMAPS}/one`, true),
    );
    await ended;
    const got = responses(raw);
    expect(got.map((r) => r.status)).toEqual([200, 404, 200, 200, 200]);
    expect(JSON.parse(got[0].body).data).toEqual({ name: 'one' });
    expect(JSON.parse(got[1].body)).toMatchObject({ kind: 'Status', reason: 'NotFound', details: { name: 'missing' } });
    expect(JSON.parse(got[2].body).data).toEqual({ name: 'two' });
    expect(JSON.parse(got[3].body)).toHaveProperty('gitVersion');
    expect(JSON.parse(got[4].body).data).toEqual({ name: 'one' });
  });

  it('keeps serving when clients leave before their batch is written, and still shuts down', async () => {
    for (let i = 0; i < 20; i++) {
      const socket = await tlsConnect(server, admin);
      socket.write(getRequest(`${CONFIGMAPS}/one`) + getRequest(`${CONFIGMAPS}/two`));
      socket.destroy();
    }
    const res = await call(server.url, `${CONFIGMAPS}/two`, admin);
    expect(res.status).toBe(200);
    expect(res.json<{ data: Record<string, string> }>().data).toEqual({ name: 'two' });
    // Graceful shutdown waits for requests in flight and busy connections (a leftover would hold
    // it for the request timeout, past the test's): none was left behind.
    await server.close();
  });
});
