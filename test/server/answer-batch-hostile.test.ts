// The HTTP/1.1 answer batch (runtime/server/answer-batch.ts) against hostile clients, over raw TLS
// sockets: answers made at once wait for the end of the turn, so whatever can happen to a
// connection or a request meanwhile must leave every answer in its order, write nothing to a
// connection that is gone, throw nothing, and hold no seat. Each case then checks the server still
// answers and that nothing was stored that should not have been.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StatusError } from '../../runtime/errors/status-error.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import type { Logger } from '../../runtime/machinery/logger.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { seatsHeld as seatsHeldBy } from '../support/metrics-text.js';
import { parseResponses, readUntilClosed, tlsConnect } from '../support/raw-http1.js';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const TOKEN = 'batch-token-carol';
const LIMIT = 3 * 1024 * 1024;

const configMap = (name: string, data: Record<string, string> = {}) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });

/** A request as bytes: carol's token, and Connection: close on the last one of a pipeline. */
function request(method: string, path: string, options: { headers?: string[]; body?: string; last?: boolean } = {}): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', `Authorization: Bearer ${TOKEN}`, 'Accept: application/json', ...(options.headers ?? [])];
  if (options.body !== undefined) lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(options.body)}`);
  if (options.last) lines.push('Connection: close');
  return `${lines.join('\r\n')}\r\n\r\n${options.body ?? ''}`;
}

/** Writes `bytes` in one write (so the server reads it in one turn) and reads until the server closes. */
async function exchange(server: RunningServer, creds: Credentials, bytes: string | Buffer): Promise<Buffer> {
  const socket = await tlsConnect(server, creds);
  const received = readUntilClosed(socket);
  socket.write(bytes);
  return received;
}

/** A logger that keeps the errors: nothing a client sends may reach the log as a failure of the server. */
function errorCollector(): Logger & { errors: string[] } {
  const errors: string[] = [];
  return { errors, debug() {}, info() {}, warn() {}, error: (message: string, ...args: unknown[]) => void errors.push([message, ...args.map(String)].join(' ')) };
}

describe('the HTTP/1.1 answer batch against hostile clients', () => {
  let server: RunningServer;
  let dir: string;
  let admin: Credentials;
  let carol: Credentials;
  const logger = errorCollector();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'batch-'));
    writeFileSync(join(dir, 'tokens.csv'), `${TOKEN},carol,uid-carol,"dev"\n`);
    server = await startServer({ storage: 'memory', authorizationMode: 'AlwaysAllow', tokenAuthFile: join(dir, 'tokens.csv'), maxRequestsInflight: 4, maxMutatingRequestsInflight: 4, logger });
    admin = kubeconfigCredentials(server.kubeconfig);
    carol = { ca: admin.ca };
    for (const name of ['one', 'two']) expect((await call(server.url, CONFIGMAPS, admin, { method: 'POST', headers: { 'content-type': 'application/json' }, body: configMap(name, { name }) })).status).toBe(201);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const seatsHeld = () => seatsHeldBy(async () => (await call(server.url, '/metrics', admin)).body);

  /** Still serving carol, no seat held, nothing logged as a server failure. */
  async function expectServing(): Promise<void> {
    const res = await call(server.url, `${CONFIGMAPS}/one`, { ca: admin.ca, token: TOKEN });
    expect(res.status).toBe(200);
    expect(res.json<{ data: Record<string, string> }>().data).toEqual({ name: 'one' });
    await vi.waitFor(async () => expect(await seatsHeld()).toEqual({ readOnly: 0, mutating: 0 }), { timeout: 5_000, interval: 50 });
    expect(logger.errors).toEqual([]);
  }

  it('keeps the order of pipelined answers with a HEAD among them, the HEAD\'s without a body', async () => {
    const raw = await exchange(
      server,
      carol,
      request('GET', `${CONFIGMAPS}/one`) +
        request('HEAD', `${CONFIGMAPS}/two`) +
        request('GET', `${CONFIGMAPS}/missing`) +
        request('HEAD', '/readyz') +
        request('POST', CONFIGMAPS, { body: configMap('pipelined') }) +
        request('GET', `${CONFIGMAPS}/two`, { last: true }),
    );
    const got = parseResponses(raw, [1, 3]);
    expect(got.map((r) => r.status)).toEqual([200, 200, 404, 200, 201, 200]);
    expect(JSON.parse(got[0].body).data).toEqual({ name: 'one' });
    expect(got[1].body).toBe('');
    expect(JSON.parse(got[2].body)).toMatchObject({ reason: 'NotFound', details: { name: 'missing' } });
    expect(got[3].body).toBe('');
    expect(JSON.parse(got[4].body).metadata.name).toBe('pipelined');
    expect(JSON.parse(got[5].body).data).toEqual({ name: 'two' });
    // Nothing after the last answer: a HEAD's answer carried no body the parser would have skipped.
    expect(raw.toString('latin1').endsWith(got[5].body)).toBe(true);
    await expectServing();
  });

  it('writes nothing and throws nothing when the connection is gone with answers still in the batch', async () => {
    for (let i = 0; i < 20; i++) {
      const socket = await tlsConnect(server, carol);
      socket.on('error', () => {});
      // Gone as soon as the requests are sent: the server's writes of the batch meet a closed socket.
      socket.write(request('GET', `${CONFIGMAPS}/one`) + request('GET', `${CONFIGMAPS}/two`) + request('GET', '/version'), () => socket.destroy());
    }
    for (let i = 0; i < 20; i++) {
      const socket = await tlsConnect(server, carol);
      socket.write(request('GET', `${CONFIGMAPS}/one`) + request('POST', CONFIGMAPS, { body: configMap(`gone-${i}`) }));
      socket.end();
    }
    await expectServing();
  });

  it('answers POST with Expect: 100-continue: 100 Continue, then 201', async () => {
    const body = configMap('continued');
    const socket = await tlsConnect(server, carol);
    const received = readUntilClosed(socket);
    socket.write(request('POST', CONFIGMAPS, { headers: ['Expect: 100-continue', 'Content-Type: application/json', `Content-Length: ${body.length}`, 'Connection: close'] }));
    const interim = await new Promise<string>((resolve) => socket.once('data', (c: Buffer) => resolve(c.toString('latin1'))));
    expect(interim.startsWith('HTTP/1.1 100 Continue\r\n')).toBe(true);
    socket.write(body);
    const got = parseResponses(await received);
    expect(got.map((r) => r.status)).toEqual([100, 201]);
    expect(JSON.parse(got[1].body).metadata.name).toBe('continued');
    await expectServing();
  });

  it('refuses a body declared past the limit with 413 after Expect: 100-continue, and stores nothing', async () => {
    const raw = await exchange(server, carol, request('POST', CONFIGMAPS, { headers: ['Expect: 100-continue', 'Content-Type: application/json', `Content-Length: ${LIMIT + 1}`] }));
    const got = parseResponses(raw).filter((r) => r.status >= 200);
    expect(got.map((r) => r.status)).toEqual([413]);
    expect(JSON.parse(got[0].body)).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
    await expectServing();
  });

  it('answers a malformed chunked body with Go\'s plain 400 after the answers to the requests before it, closes, and stores nothing', async () => {
    const chunked = `POST ${CONFIGMAPS} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const body = configMap('bad-chunks');
    const size = body.length.toString(16);
    // A size that is no hex number; a chunk not followed by CRLF; a bad size after good chunks.
    for (const broken of [`zz\r\n${body}\r\n0\r\n\r\n`, `${size}\r\n${body}XX0\r\n\r\n`, `${size}\r\n${body}\r\n-1\r\n\r\n`]) {
      const raw = await exchange(server, carol, request('GET', `${CONFIGMAPS}/one`) + request('GET', `${CONFIGMAPS}/missing`) + chunked + broken);
      const got = parseResponses(raw);
      expect(got.map((r) => r.status)).toEqual([200, 404, 400]);
      expect(JSON.parse(got[0].body).data).toEqual({ name: 'one' });
      expect(raw.toString('latin1').endsWith('HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n400 Bad Request')).toBe(true);
    }
    expect((await call(server.url, `${CONFIGMAPS}/bad-chunks`, admin)).status).toBe(404);
    await expectServing();
  });

  it('refuses a chunked body past the limit with 413 and stores nothing', async () => {
    const chunk = 'x'.repeat(1 << 20);
    const head = `POST ${CONFIGMAPS} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const start = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"huge"},"data":{"k":"';
    const body = [start, chunk, chunk, chunk, chunk, '"}}'].map((c) => `${c.length.toString(16)}\r\n${c}\r\n`).join('') + '0\r\n\r\n';
    const raw = await exchange(server, carol, head + body);
    const got = parseResponses(raw);
    expect(got.map((r) => r.status)).toEqual([413]);
    expect((await call(server.url, `${CONFIGMAPS}/huge`, admin)).status).toBe(404);
    await expectServing();
  });
});

describe('the HTTP/1.1 answer batch with handlers that fail or answer without a body', () => {
  let server: RunningServer;
  let creds: Credentials;
  const logger = errorCollector();

  beforeAll(async () => {
    server = await startServer({
      storage: 'memory',
      authorizationMode: 'AlwaysAllow',
      logger,
      api: () => ({
        handler: (c) => {
          switch (c.req.path) {
            case '/throws':
              throw new Error('handler failed');
            case '/throws-status':
              throw new StatusError(409, 'Conflict', 'thrown at once', {});
            case '/throws-string':
              throw 'not an Error';
            case '/rejects':
              return Promise.reject(new Error('handler failed later'));
            case '/no-content':
              return new Response(null, { status: 204 });
            case '/not-modified':
              return new Response(null, { status: 304, headers: { etag: '"1"' } });
            default:
              return c.json({ path: c.req.path });
          }
        },
      }),
    });
    creds = kubeconfigCredentials(server.kubeconfig);
  });
  afterAll(() => server?.close());

  it('answers each failing request with a 500 or its Status in its place, and the others after it', async () => {
    const paths = ['/a', '/throws', '/b', '/throws-status', '/no-content', '/throws-string', '/not-modified', '/rejects', '/c'];
    const raw = await exchange(server, creds, paths.map((p, i) => `GET ${p} HTTP/1.1\r\nHost: 127.0.0.1\r\n${i === paths.length - 1 ? 'Connection: close\r\n' : ''}\r\n`).join(''));
    const got = parseResponses(raw);
    expect(got.map((r) => r.status)).toEqual([200, 500, 200, 409, 204, 500, 304, 500, 200]);
    expect(JSON.parse(got[0].body)).toEqual({ path: '/a' });
    expect(JSON.parse(got[1].body)).toMatchObject({ kind: 'Status', reason: 'InternalError', code: 500 });
    expect(JSON.parse(got[3].body)).toMatchObject({ kind: 'Status', reason: 'Conflict', message: 'thrown at once' });
    expect(got[4].body).toBe('');
    expect(got[6].body).toBe('');
    expect(got[6].headers.etag).toBe('"1"');
    expect(JSON.parse(got[8].body)).toEqual({ path: '/c' });
    // The three failures that are bugs are logged, nothing else.
    expect(logger.errors).toHaveLength(3);
    const res = await call(server.url, '/after', creds);
    expect(res.json()).toEqual({ path: '/after' });
  });
});
