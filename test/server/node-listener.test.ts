// The request listener (runtime/server/node-listener.ts) behind a real node:http2 secure server
// that also takes HTTP/1.1, as the API server runs it, with a handler written per test: the answers
// Go's net/http gives before any handler runs (missing or malformed Host, a backslash path), how
// each kind of body is written (lengths, default type, streams as they yield and cancelled when
// the client goes, someone else's Response), a head node refuses, an unread request body, and a
// client gone before an async answer. Raw sockets where the bytes matter.
import { connect as http2Connect, constants, createSecureServer, type ClientHttp2Session, type Http2SecureServer, type IncomingHttpHeaders } from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createCertificateAuthority, issueCertificate } from '../../runtime/auth/pki.js';
import { Headers } from '../../runtime/machinery/http/headers.js';
import { Response } from '../../runtime/machinery/http/response.js';
import type { Logger } from '../../runtime/machinery/logger.js';
import type { IncomingRequest } from '../../runtime/server/incoming-request.js';
import { requestListener, type NodeBindings } from '../../runtime/server/node-listener.js';
import { presetHeaders } from '../../runtime/server/preset-headers.js';
import type { Credentials } from '../support/https-client.js';
import { parseResponses, readUntilClosed, tlsConnect } from '../support/raw-http1.js';
import { FRAME, RawH2 } from '../support/raw-http2.js';

type Handler = (request: IncomingRequest, env: NodeBindings) => globalThis.Response | Promise<globalThis.Response>;

const encoder = new TextEncoder();

/** A stream whose chunks the test pushes, and which records its cancellation. */
function controlledStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let cancelled!: (reason: unknown) => void;
  const cancel = new Promise<unknown>((resolve) => (cancelled = resolve));
  const stream = new ReadableStream<Uint8Array>({
    start: (c) => void (controller = c),
    cancel: (reason) => cancelled(reason),
  });
  return { stream, push: (text: string) => controller.enqueue(encoder.encode(text)), close: () => controller.close(), cancel };
}

describe('requestListener behind node:http2 createSecureServer({allowHTTP1: true})', () => {
  let server: Http2SecureServer;
  let target: { port: number; url: string };
  let creds: Credentials;
  let handler: Handler;
  let handled: string[];
  const connections = new Set<Socket>();
  const errors: string[] = [];
  const logger: Logger = { debug() {}, info() {}, warn() {}, error: (message: string, ...args: unknown[]) => void errors.push([message, ...args.map(String)].join(' ')) };

  beforeAll(async () => {
    const ca = await createCertificateAuthority('node-listener-test-ca');
    const leaf = await issueCertificate(ca, { subject: 'CN=localhost', usage: 'serverAuth', names: ['127.0.0.1', 'localhost'] });
    creds = { ca: ca.certPem };
    const listener = requestListener({
      fetch: (request, env) => {
        handled.push(`${request.method} ${request.url}`);
        return handler(request, env);
      },
      errorHandler: (err) => new Response(`handler failed: ${(err as Error).message}`, { status: 500 }),
      logger,
    });
    server = createSecureServer({ cert: leaf.certPem, key: leaf.keyPem, allowHTTP1: true }, listener);
    server.on('connection', (socket: Socket) => {
      connections.add(socket);
      socket.once('close', () => connections.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    target = { port, url: `https://127.0.0.1:${port}` };
  });
  afterAll(async () => {
    for (const socket of connections) socket.destroy();
    await new Promise<void>((resolve) => server?.close(() => resolve()));
  });
  beforeEach(() => {
    handled = [];
    errors.length = 0;
    handler = () => new Response('ok');
  });

  /** Writes `bytes` on a new HTTP/1.1 connection and reads until the server closes it. */
  async function exchange(bytes: string): Promise<Buffer> {
    const socket = await tlsConnect(target, creds);
    const received = readUntilClosed(socket);
    socket.write(bytes);
    return received;
  }

  /** An open HTTP/1.1 connection and what it has received so far. */
  async function open(): Promise<{ socket: TLSSocket; received: () => Buffer; closed: Promise<Buffer> }> {
    const socket = await tlsConnect(target, creds);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    return { socket, received: () => Buffer.concat(chunks), closed: readUntilClosed(socket) };
  }

  async function h2(): Promise<ClientHttp2Session> {
    const session = http2Connect(target.url, { ca: creds.ca });
    session.on('error', () => {});
    await new Promise<void>((resolve, reject) => session.once('connect', () => resolve()).once('error', reject));
    return session;
  }

  /** One HTTP/2 request: the answer's head, body as text, and the stream's RST code. */
  function h2Request(session: ClientHttp2Session, headers: Record<string, string | string[]>, body?: string): Promise<{ head: IncomingHttpHeaders; body: string; rstCode: number }> {
    return new Promise((resolve, reject) => {
      const stream = session.request(headers, { endStream: body === undefined });
      if (body !== undefined) stream.end(body);
      let head: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      stream.on('response', (h) => (head = h));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', reject);
      stream.on('close', () => resolve({ head, body: Buffer.concat(chunks).toString('utf8'), rstCode: stream.rstCode ?? 0 }));
    });
  }

  describe('requests Go answers 400 before any handler runs', () => {
    it('answers HTTP/1.1 without Host "400 Bad Request: missing required Host header" and closes, running nothing pipelined behind it', async () => {
      const raw = await exchange('GET /api HTTP/1.1\r\n\r\nPOST /api/v1/namespaces HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}');
      const answers = parseResponses(raw);
      expect(answers).toHaveLength(1);
      expect(answers[0].status).toBe(400);
      expect(answers[0].headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(answers[0].headers.connection).toBe('close');
      expect(answers[0].body).toBe('400 Bad Request: missing required Host header');
      // Go's status line carries the reason too.
      expect(raw.toString('latin1').split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request: missing required Host header');
      // Go reads nothing after the 400: the POST behind it is never served.
      expect(handled).toEqual([]);
    });

    it('answers two Host headers a plain "400 Bad Request", as Go does (its reader\'s error, no reason given)', async () => {
      const raw = await exchange('GET /api HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: other\r\n\r\n');
      expect(raw.toString('latin1').split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
      expect(parseResponses(raw).map((a) => [a.status, a.headers.connection, a.body])).toEqual([[400, 'close', '400 Bad Request']]);
      expect(handled).toEqual([]);
    });

    it('serves what Go serves though its Host cannot make a URL: HTTP/1.0 without one, an empty one, a port past 65535', async () => {
      const local = `127.0.0.1:${target.port}`;
      for (const request of ['GET /api HTTP/1.0\r\n\r\n', 'GET /api HTTP/1.1\r\nHost:\r\nConnection: close\r\n\r\n', 'GET /api HTTP/1.1\r\nHost: localhost:99999\r\nConnection: close\r\n\r\n']) {
        expect(parseResponses(await exchange(request)).map((a) => a.status)).toEqual([200]);
      }
      // The URL names the address the request came to instead.
      expect(handled).toEqual([`GET https://${local}/api`, `GET https://${local}/api`, `GET https://${local}/api`]);
    });

    it('answers a Host with a character Go refuses in one (a space) "400 Bad Request: malformed Host header"', async () => {
      const answers = parseResponses(await exchange('GET /api HTTP/1.1\r\nHost: ex ample\r\n\r\n'));
      expect(answers.map((a) => [a.status, a.body])).toEqual([[400, '400 Bad Request: malformed Host header']]);
      expect(handled).toEqual([]);
    });

    it('answers OPTIONS * itself, an empty 200, as Go\'s server does, and serves on', async () => {
      const answers = parseResponses(await exchange('OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /api HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
      expect(answers.map((a) => [a.status, a.headers['content-length'], a.body])).toEqual([[200, '0', ''], [200, '2', 'ok']]);
      expect(handled).toEqual(['GET https://127.0.0.1/api']);
    });

    it.each([
      ['a path in it', 'a/b'],
      ['user information', 'evil@127.0.0.1'],
      ['a query', '127.0.0.1?x'],
      ['a fragment', '127.0.0.1#x'],
      ['a backslash', '127.0.0.1\\evil'],
    ])('answers a Host with %s "400 Bad Request: malformed Host header"', async (_, host) => {
      const answers = parseResponses(await exchange(`GET /api HTTP/1.1\r\nHost: ${host}\r\n\r\n`));
      expect(answers.map((a) => [a.status, a.headers.connection, a.body])).toEqual([[400, 'close', '400 Bad Request: malformed Host header']]);
      expect(handled).toEqual([]);
    });

    it('takes a Host Go takes: another case, an IPv6 literal, a port', async () => {
      for (const host of ['LocalHost', '[::1]:6443', '127.0.0.1:6443']) {
        const answers = parseResponses(await exchange(`GET /api?x=1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`));
        expect(answers.map((a) => a.status)).toEqual([200]);
      }
      expect(handled).toEqual(['GET https://localhost/api?x=1', 'GET https://[::1]:6443/api?x=1', 'GET https://127.0.0.1:6443/api?x=1']);
    });

    it('answers a backslash in the path 400 (URL would read it as a slash), and takes one in the query', async () => {
      const answers = parseResponses(await exchange('GET /api\\v1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
      expect(answers.map((a) => [a.status, a.body])).toEqual([[400, '400 Bad Request: backslash in the request path']]);
      expect(handled).toEqual([]);
      const query = parseResponses(await exchange('GET /api?x=\\ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
      expect(query.map((a) => a.status)).toEqual([200]);
      expect(handled).toEqual(['GET https://127.0.0.1/api?x=\\']);
    });

    it('takes an absolute target over HTTP/1.1 as naming the host (RFC 9112 3.2.2), the Host header ignored', async () => {
      const answers = parseResponses(await exchange('GET https://other.example:8443/api HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
      expect(answers.map((a) => a.status)).toEqual([200]);
      expect(handled).toEqual(['GET https://other.example:8443/api']);
    });

    it('never hands the handler an absolute :path over HTTP/2: node resets the stream first, and the connection serves on', async () => {
      // The listener answers one 400 too (RequestTargetError), should node ever pass one through.
      const raw = await RawH2.connect(target, creds);
      try {
        raw.headers(1, 'GET', 'https://other.example/api');
        const reset = await raw.next((f) => f.stream === 1 && f.type === FRAME.RST_STREAM);
        expect(reset.payload.readUInt32BE(0)).toBe(constants.NGHTTP2_PROTOCOL_ERROR);
        raw.headers(3, 'GET', '/api');
        await raw.next((f) => f.stream === 3 && f.type === FRAME.HEADERS);
      } finally {
        raw.socket.destroy();
      }
      expect(handled).toEqual([`GET https://127.0.0.1:${target.port}/api`]);
    });
  });

  describe('bodies and their heads', () => {
    const text = 'héllo ✓ 😀';
    const length = String(Buffer.byteLength(text));

    it('gives a string of multi-byte UTF-8 its length in bytes over HTTP/1.1 and HTTP/2, and the default type', async () => {
      handler = () => new Response(text);
      const answers = parseResponses(await exchange('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
      expect(answers.map((a) => [a.headers['content-length'], a.headers['content-type'], a.body])).toEqual([[length, 'text/plain; charset=UTF-8', text]]);
      const session = await h2();
      try {
        const res = await h2Request(session, { ':path': '/' });
        expect([res.head['content-length'], res.head['content-type'], res.body]).toEqual([length, 'text/plain; charset=UTF-8', text]);
      } finally {
        session.close();
      }
    });

    it('gives bytes their length, and a Headers without Content-Type the default type', async () => {
      handler = () => new Response(encoder.encode(text), { headers: new Headers({ 'x-kind': 'bytes' }) });
      const [answer] = parseResponses(await exchange('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
      expect([answer.headers['content-length'], answer.headers['content-type'], answer.headers['x-kind'], answer.body]).toEqual([length, 'text/plain; charset=UTF-8', 'bytes', text]);
    });

    it('writes a handler\'s plain header object as given, never changing it, though both protocols add a length', async () => {
      // Frozen: any write to it would throw, and the answer would be the 500.
      const shared = Object.freeze({ 'Content-Type': 'application/json', 'X-Shared': 'yes' });
      handler = () => new Response(`{"text":"${text}"}`, { headers: shared });
      const expectedLength = String(Buffer.byteLength(`{"text":"${text}"}`));
      const answers = parseResponses(await exchange('GET /a HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /b HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
      expect(answers.map((a) => [a.status, a.headers['content-length'], a.headers['content-type'], a.headers['x-shared']])).toEqual([
        [200, expectedLength, 'application/json', 'yes'],
        [200, expectedLength, 'application/json', 'yes'],
      ]);
      const session = await h2();
      try {
        const res = await h2Request(session, { ':path': '/' });
        expect([res.head[':status'], res.head['content-length'], res.head['x-shared']]).toEqual([200, expectedLength, 'yes']);
      } finally {
        session.close();
      }
      expect(shared).toEqual({ 'Content-Type': 'application/json', 'X-Shared': 'yes' });
      expect(errors).toEqual([]);
    });

    it('writes no Content-Type a plain header object leaves out, nor one for no body', async () => {
      handler = (request) => (request.url.endsWith('/plain') ? new Response('x', { headers: { 'x-a': '1' } }) : new Response(null, { status: 204 }));
      const answers = parseResponses(await exchange('GET /plain HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /none HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
      expect(answers.map((a) => [a.status, a.headers['content-type'], a.body])).toEqual([[200, undefined, 'x'], [204, undefined, '']]);
    });

    it('keeps a length the handler gave, written once', async () => {
      handler = () => new Response('hello', { headers: { 'Content-Length': '5' } });
      const raw = await exchange('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      expect(raw.toString('latin1').match(/content-length/gi)).toHaveLength(1);
      expect(parseResponses(raw).map((a) => a.body)).toEqual(['hello']);
    });

    it('writes a stream as it yields, over HTTP/1.1 (chunked) and HTTP/2', async () => {
      let body = controlledStream();
      handler = () => new Response(body.stream, { headers: { 'content-type': 'application/json' } });
      const conn = await open();
      conn.socket.write('GET /watch HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      // The head goes before the first chunk, as a watch's does.
      await vi.waitFor(() => expect(conn.received().toString()).toMatch(/transfer-encoding: chunked\r\n\r\n$/i));
      body.push('{"event":1}\n');
      await vi.waitFor(() => expect(conn.received().toString()).toContain('{"event":1}'));
      expect(conn.received().toString()).not.toContain('{"event":2}');
      body.push('{"event":2}\n');
      body.close();
      const [answer] = parseResponses(await conn.closed);
      expect(answer.body).toBe('{"event":1}\n{"event":2}\n');

      body = controlledStream();
      const session = await h2();
      try {
        const stream = session.request({ ':path': '/watch' });
        const chunks: string[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c.toString()));
        const head = await new Promise<IncomingHttpHeaders>((resolve) => stream.once('response', resolve));
        expect(head[':status']).toBe(200);
        body.push('one');
        await vi.waitFor(() => expect(chunks.join('')).toBe('one'));
        body.push('two');
        body.close();
        await new Promise((resolve) => stream.once('close', resolve));
        expect(chunks.join('')).toBe('onetwo');
      } finally {
        session.close();
      }
    });

    it('cancels a stream when its HTTP/1.1 client disconnects, and when its HTTP/2 stream is reset', async () => {
      let body = controlledStream();
      handler = () => new Response(body.stream);
      const conn = await open();
      conn.socket.write('GET /watch HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      body.push('first');
      await vi.waitFor(() => expect(conn.received().toString()).toContain('first'));
      conn.socket.destroy();
      await body.cancel;

      body = controlledStream();
      const raw = await RawH2.connect(target, creds);
      try {
        raw.headers(1, 'GET', '/watch');
        body.push('first');
        await raw.next((f) => f.stream === 1 && f.type === FRAME.DATA);
        raw.reset(1);
        await body.cancel;
      } finally {
        raw.socket.destroy();
      }
      expect(errors).toEqual([]);
    });

    it('writes someone else\'s Response (undici\'s) from its standard form: status, each Set-Cookie, body', async () => {
      handler = () => new globalThis.Response('from undici', { status: 201, headers: [['X-Foreign', 'yes'], ['Set-Cookie', 'a=1'], ['Set-Cookie', 'b=2']] });
      const raw = await exchange('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      expect(raw.toString('latin1').match(/^set-cookie: [^\r\n]*/gim)).toEqual(['set-cookie: a=1', 'set-cookie: b=2']);
      const [answer] = parseResponses(raw);
      expect([answer.status, answer.headers['x-foreign'], answer.headers['content-type'], answer.body]).toEqual([201, 'yes', 'text/plain;charset=UTF-8', 'from undici']);

      handler = () => new globalThis.Response(null, { status: 204, headers: { 'x-foreign': 'empty' } });
      const session = await h2();
      try {
        const res = await h2Request(session, { ':path': '/' });
        expect([res.head[':status'], res.head['x-foreign'], res.body]).toEqual([204, 'empty', '']);
      } finally {
        session.close();
      }
    });

    it('writes the preset headers under every kind of head, a header of the handler\'s own winning in any case, and on the 500 of a refused head', async () => {
      const preset = { 'Audit-Id': 'the-audit-id', 'Cache-Control': 'no-cache, private' };
      const frozen = Object.freeze({ 'content-type': 'application/json', 'CACHE-CONTROL': 'public, max-age=60' });
      const answers: Record<string, () => globalThis.Response> = {
        '/text': () => new Response('text'),
        '/own': () => new Response('{}', { headers: frozen }),
        '/headers': () => new Response('h', { headers: new Headers({ 'x-made': 'yes' }) }),
        '/empty': () => new Response(null, { status: 204 }),
        '/foreign': () => new globalThis.Response('undici', { headers: { 'cache-control': 'max-age=5' } }),
        // A name that is not a token: both of node's heads refuse it when it is written.
        '/bad': () => new Response('x', { headers: { 'bad name': 'x' } }),
      };
      handler = (request, env) => {
        presetHeaders(env.outgoing, preset);
        return answers[new URL(request.url).pathname]!();
      };
      const expected = {
        '/text': [200, 'no-cache, private'],
        '/own': [200, 'public, max-age=60'],
        '/headers': [200, 'no-cache, private'],
        '/empty': [204, 'no-cache, private'],
        '/foreign': [200, 'max-age=5'],
        '/bad': [500, 'no-cache, private'],
      };
      const paths = Object.keys(answers);
      const requests = paths.map((path, i) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${i === paths.length - 1 ? 'Connection: close\r\n' : ''}\r\n`);
      const raw = await exchange(requests.join(''));
      const written = parseResponses(raw);
      expect(written.map((a) => [a.status, a.headers['cache-control'], a.headers['audit-id']])).toEqual(Object.values(expected).map((e) => [...e, 'the-audit-id']));
      // One Cache-Control each: the handler's replaces the preset, whatever its case.
      expect(raw.toString('latin1').match(/^cache-control:/gim)).toHaveLength(paths.length);
      expect(frozen).toEqual({ 'content-type': 'application/json', 'CACHE-CONTROL': 'public, max-age=60' });
      expect(errors).toHaveLength(1);
      errors.length = 0;

      const session = await h2();
      try {
        for (const [path, [status, cacheControl]] of Object.entries(expected)) {
          const res = await h2Request(session, { ':path': path });
          expect([path, res.head[':status'], res.head['cache-control'], res.head['audit-id']]).toEqual([path, status, cacheControl, 'the-audit-id']);
        }
      } finally {
        session.close();
      }
      expect(errors).toHaveLength(1);
      errors.length = 0;
    });

    it('answers 500 without the preset headers when they are what node refuses, and serves on', async () => {
      handler = (request, env) => {
        if (request.url.endsWith('/bad')) presetHeaders(env.outgoing, { 'Audit-Id': 'a\u0100b' });
        return new Response('fine');
      };
      const answers = parseResponses(await exchange('GET /bad HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /good HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
      expect(answers.map((a) => [a.status, a.headers['audit-id'], a.body])).toEqual([[500, undefined, 'Internal Server Error'], [200, undefined, 'fine']]);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain('failed writing a response');
    });

    it('answers 500 when node refuses the head (a header value it cannot write), with no length left from the body, and serves on', async () => {
      handler = (request) => (request.url.endsWith('/bad') ? new Response('x'.repeat(100), { headers: { 'x-bad': 'a\u0100b' } }) : new Response('fine'));
      const answers = parseResponses(await exchange('GET /bad HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /good HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
      expect(answers.map((a) => [a.status, a.headers['content-length'], a.body])).toEqual([[500, '21', 'Internal Server Error'], [200, '4', 'fine']]);
      expect(errors).toHaveLength(1);
      expect(errors[0]).toContain('failed writing a response');

      // Node's HTTP/2 refuses a header name that is not a token when the head is written.
      handler = () => new Response('x', { headers: { 'bad name': 'x' } });
      const session = await h2();
      try {
        const res = await h2Request(session, { ':path': '/bad' });
        expect([res.head[':status'], res.body]).toEqual([500, 'Internal Server Error']);
      } finally {
        session.close();
      }
    });

    it('answers with the error handler\'s Response when the handler throws or its promise rejects', async () => {
      handler = (request) => {
        if (request.url.endsWith('/throw')) throw new Error('thrown');
        return Promise.reject(new Error('rejected'));
      };
      const answers = parseResponses(await exchange('GET /throw HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGET /reject HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
      expect(answers.map((a) => [a.status, a.body])).toEqual([[500, 'handler failed: thrown'], [500, 'handler failed: rejected']]);
    });
  });

  describe('a request body the handler never reads', () => {
    it('is drained over HTTP/1.1 so the next request on the connection is answered', async () => {
      handler = (request) => new Response(`answered ${new URL(request.url).pathname}`);
      const body = 'x'.repeat(200_000);
      const conn = await open();
      conn.socket.write(`POST /refused HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${body.length}\r\n\r\n`);
      await vi.waitFor(() => expect(parseResponses(conn.received())).toHaveLength(1));
      conn.socket.write(body);
      conn.socket.write('GET /next HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
      const answers = parseResponses(await conn.closed);
      expect(answers.map((a) => [a.status, a.body])).toEqual([[200, 'answered /refused'], [200, 'answered /next']]);
    });

    it('closes the HTTP/1.1 connection when the client never finishes sending it', async () => {
      const conn = await open();
      conn.socket.write('POST /refused HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\n\r\nonly this');
      const answers = parseResponses(await conn.closed);
      expect(answers.map((a) => [a.status, a.body])).toEqual([[200, 'ok']]);
    });

    it('has its HTTP/2 stream closed with NO_ERROR once answered, and the connection serves on', async () => {
      const session = await h2();
      try {
        const stream = session.request({ ':path': '/refused', ':method': 'POST' }, { endStream: false });
        stream.write('part of a body that never ends');
        let status: number | undefined;
        stream.on('response', (h) => (status = h[':status'] as number));
        stream.resume();
        await new Promise((resolve) => stream.once('close', resolve));
        expect([status, stream.rstCode]).toEqual([200, constants.NGHTTP2_NO_ERROR]);
        expect((await h2Request(session, { ':path': '/next' })).head[':status']).toBe(200);
      } finally {
        session.close();
      }
    });
  });

  describe('a client gone before an async answer', () => {
    it('aborts the request\'s signal over HTTP/1.1 and HTTP/2, and the late answer\'s stream is cancelled', async () => {
      for (const protocol of ['HTTP/1.1', 'HTTP/2']) {
        let seen!: IncomingRequest;
        let answer!: (res: globalThis.Response) => void;
        const arrived = new Promise<void>((resolve) => {
          handler = (request) => {
            seen = request;
            resolve();
            return new Promise((r) => (answer = r));
          };
        });
        if (protocol === 'HTTP/1.1') {
          const conn = await open();
          conn.socket.write('GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
          await arrived;
          expect(seen.signal.aborted).toBe(false);
          conn.socket.destroy();
        } else {
          const raw = await RawH2.connect(target, creds);
          raw.headers(1, 'GET', '/slow');
          await arrived;
          expect(seen.signal.aborted).toBe(false);
          raw.reset(1);
          await vi.waitFor(() => expect(seen.signal.aborted).toBe(true));
          raw.socket.destroy();
        }
        await vi.waitFor(() => expect(seen.signal.aborted, protocol).toBe(true));
        const late = controlledStream();
        answer(new Response(late.stream));
        await late.cancel;
      }
      expect(errors).toEqual([]);
    });

    it('leaves the signal alone when the answer is written', async () => {
      let seen!: IncomingRequest;
      handler = async (request) => {
        seen = request;
        return new Response('done');
      };
      const answers = parseResponses(await exchange('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
      expect(answers.map((a) => a.body)).toEqual(['done']);
      expect(seen.signal.aborted).toBe(false);
    });
  });

  describe('the request the handler is handed', () => {
    it('looks headers up as sent: repeats joined, cookies joined with "; ", HTTP/2 pseudo-headers left out', async () => {
      let seen: Record<string, unknown> = {};
      handler = async (request) => {
        const h = request.headers;
        seen = {
          url: request.url,
          method: request.method,
          accept: h.get('Accept'),
          auth: h.get('authorization'),
          cookie: h.get('cookie'),
          missing: h.get('x-missing'),
          has: [h.has('accept'), h.has('x-missing')],
          names: [...h.keys()].filter((k) => !['content-length', 'host', 'user-agent'].includes(k)),
          body: await request.text(),
        };
        return new Response('ok');
      };
      const raw = 'POST /api?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: a\r\naccept: b\r\nAuthorization: Bearer one\r\nAuthorization: Bearer two\r\nCookie: a=1\r\nCookie: b=2\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbody';
      expect(parseResponses(await exchange(raw)).map((a) => a.status)).toEqual([200]);
      expect(seen).toEqual({
        url: 'https://127.0.0.1/api?x=1',
        method: 'POST',
        accept: 'a, b',
        auth: 'Bearer one, Bearer two',
        cookie: 'a=1; b=2',
        missing: null,
        has: [true, false],
        names: ['accept', 'authorization', 'connection', 'cookie'],
        body: 'body',
      });

      const session = await h2();
      try {
        await h2Request(session, { ':path': '/api?x=1', ':method': 'POST', accept: ['a', 'b'], cookie: ['a=1', 'b=2'], authorization: 'Bearer one' }, 'body');
      } finally {
        session.close();
      }
      expect(seen).toMatchObject({ url: `https://127.0.0.1:${target.port}/api?x=1`, accept: 'a, b', cookie: 'a=1; b=2', auth: 'Bearer one', body: 'body' });
      expect((seen.names as string[]).some((n) => n.startsWith(':'))).toBe(false);
    });
  });
});
