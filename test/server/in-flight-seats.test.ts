// Max-in-flight seats against hostile clients (runtime/server/filters/max-in-flight.ts): a request
// that gets a seat holds it until its response is written, so every way a response can end, or
// fail to end, must give the seat back. After each case the test reads
// apiserver_current_inflight_requests (none held) and fills the limit again: LIMIT clients that
// never read a large list each get a seat and the next request gets 429.
import { connect as http2Connect, constants, type ClientHttp2Session } from 'node:http2';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { BIG_OBJECTS, CONFIGMAPS, configMap, createLargeList } from '../support/large-list.js';
import { seatsHeld as seatsHeldBy } from '../support/metrics-text.js';
import { parseResponses, readUntilClosed, tlsConnect } from '../support/raw-http1.js';
import { FRAME, RawH2 } from '../support/raw-http2.js';

const TOKEN = 'seat-token-carol';
const LIMIT = 2;
/** Short, so a response still unwritten at its deadline is seen cut within the test. */
const REQUEST_TIMEOUT_MS = 3_000;
/** A list of this many 900 KB objects is far more than socket buffers and HTTP/2 windows hold. */

const get = (path: string, extra = '') => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n${extra}\r\n`;

describe('max-in-flight seats', () => {
  let server: RunningServer;
  let dir: string;
  let admin: Credentials;
  const carol = (): Credentials => ({ ca: admin.ca, token: TOKEN });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'seats-'));
    writeFileSync(join(dir, 'tokens.csv'), `${TOKEN},carol,uid-carol,"dev"\n`);
    server = await startServer({
      storage: 'memory',
      authorizationMode: 'AlwaysAllow',
      tokenAuthFile: join(dir, 'tokens.csv'),
      maxRequestsInflight: LIMIT,
      maxMutatingRequestsInflight: LIMIT,
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
    });
    admin = kubeconfigCredentials(server.kubeconfig);
    await createLargeList(server.url, admin);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const seatsHeld = () => seatsHeldBy(async () => (await call(server.url, '/metrics', admin)).body);

  /** A raw HTTP/1.1 client that asks for the large list and never reads it. */
  async function holdRead(): Promise<TLSSocket> {
    const socket = await tlsConnect(server, carol());
    socket.pause();
    socket.on('error', () => {});
    socket.write(get(CONFIGMAPS));
    return socket;
  }

  const readSmall = () => call(server.url, `${CONFIGMAPS}/small`, carol());
  const writeOne = (name: string) => call(server.url, CONFIGMAPS, carol(), { method: 'POST', headers: { 'content-type': 'application/json' }, body: configMap(name) });

  /**
   * No seat is held, and all LIMIT of them can be taken again: LIMIT clients that never read each
   * hold one, the next read is refused with 429, and once they leave reads are served.
   */
  async function expectEverySeatFree(): Promise<void> {
    await vi.waitFor(async () => expect(await seatsHeld()).toEqual({ readOnly: 0, mutating: 0 }), { timeout: 10_000, interval: 50 });
    const holders: TLSSocket[] = [];
    try {
      for (let i = 0; i < LIMIT; i++) holders.push(await holdRead());
      await vi.waitFor(async () => expect((await seatsHeld()).readOnly).toBe(LIMIT), { timeout: 10_000, interval: 50 });
      const shed = await readSmall();
      expect(shed.status).toBe(429);
      expect(shed.headers['retry-after']).toBe('1');
    } finally {
      for (const socket of holders) socket.destroy();
    }
    await vi.waitFor(async () => expect((await readSmall()).status).toBe(200), { timeout: 10_000, interval: 50 });
    await vi.waitFor(async () => expect(await seatsHeld()).toEqual({ readOnly: 0, mutating: 0 }), { timeout: 10_000, interval: 50 });
  }

  it('gives the seat back when the client leaves before its answer is written', async () => {
    for (let i = 0; i < 10; i++) {
      const socket = await tlsConnect(server, carol());
      // Both in one write, so the server reads them in one turn; gone before either answer.
      socket.write(get(`${CONFIGMAPS}/small`) + get(CONFIGMAPS));
      socket.destroy();
    }
    await expectEverySeatFree();
  });

  it('gives the seat back when the client leaves halfway through a large answer', async () => {
    for (let i = 0; i < 4; i++) {
      const socket = await tlsConnect(server, carol());
      socket.on('error', () => {});
      socket.write(get(CONFIGMAPS));
      await new Promise((resolve) => socket.once('data', resolve));
      socket.destroy();
    }
    await expectEverySeatFree();
  });

  it('gives the seat back after the answer, on a connection the client keeps open', async () => {
    const socket = await tlsConnect(server, carol());
    const received: Buffer[] = [];
    socket.on('data', (c: Buffer) => received.push(c));
    socket.write(get(`${CONFIGMAPS}/small`) + get(`${CONFIGMAPS}/small`, 'Connection: keep-alive\r\n'));
    await vi.waitFor(() => expect(parseResponses(Buffer.concat(received)).map((r) => r.status)).toEqual([200, 200]));
    await expectEverySeatFree();
    socket.destroy();
  });

  it('cuts a large answer its client never reads at the request deadline, as kube\'s timeout filter ends a started response, and frees its seat', async () => {
    const started = Date.now();
    const socket = await holdRead();
    await vi.waitFor(async () => expect((await seatsHeld()).readOnly).toBe(1), { timeout: 5_000, interval: 50 });
    await vi.waitFor(async () => expect((await seatsHeld()).readOnly).toBe(0), { timeout: REQUEST_TIMEOUT_MS + 5_000, interval: 100 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    // What the client finds when it reads at last: the head and part of the list, then the end of
    // the connection; never a complete answer it could take for the whole list.
    const closed = readUntilClosed(socket);
    socket.resume();
    const raw = await closed;
    expect(raw.subarray(0, 12).toString('latin1')).toBe('HTTP/1.1 200');
    expect(parseResponses(raw)).toEqual([]);
    await expectEverySeatFree();
  }, 30_000);

  it('cuts at the deadline an answer pipelined behind a watch on its connection, which would otherwise hold its seat as long as the watch', async () => {
    const started = Date.now();
    const socket = await tlsConnect(server, carol());
    const closed = readUntilClosed(socket);
    // Node reads the second request while the watch answers the first; Go would not have read it.
    socket.write(get(`${CONFIGMAPS}?watch=1&resourceVersion=0&fieldSelector=metadata.name%3Dsmall`) + get(`${CONFIGMAPS}/small`));
    await vi.waitFor(async () => expect((await seatsHeld()).readOnly).toBe(1), { timeout: 5_000, interval: 50 });
    await vi.waitFor(async () => expect((await seatsHeld()).readOnly).toBe(0), { timeout: REQUEST_TIMEOUT_MS + 5_000, interval: 100 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    // The connection went with it: the watch's answer began, the GET's never came.
    const raw = (await closed).toString('latin1');
    expect(raw.startsWith('HTTP/1.1 200')).toBe(true);
    expect(raw.split('HTTP/1.1 ').length - 1).toBe(1);
    await expectEverySeatFree();
  }, 30_000);

  it('resets an HTTP/2 stream whose window the client never opens at the request deadline, with INTERNAL_ERROR as Go\'s server does, and frees its seat', async () => {
    // Never sends WINDOW_UPDATE: the server cannot send more than the first 64 KiB of the list.
    const holder = await RawH2.connect(server, { ca: admin.ca });
    try {
      const started = Date.now();
      holder.headers(1, 'GET', CONFIGMAPS, [['authorization', `Bearer ${TOKEN}`]]);
      await holder.next((f) => f.type === FRAME.HEADERS && f.stream === 1);
      await vi.waitFor(async () => expect((await seatsHeld()).readOnly).toBe(1), { timeout: 5_000, interval: 50 });
      const reset = await holder.next((f) => f.type === FRAME.RST_STREAM && f.stream === 1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
      expect(reset.payload.readUInt32BE(0)).toBe(constants.NGHTTP2_INTERNAL_ERROR);
      // The stream was cut, not ended: no DATA frame of it carries END_STREAM.
      expect(holder.frames.some((f) => f.type === FRAME.DATA && f.stream === 1 && (f.flags & 0x1) !== 0)).toBe(false);
      // The connection itself goes on.
      expect(holder.socket.destroyed).toBe(false);
    } finally {
      holder.socket.destroy();
    }
    await expectEverySeatFree();
  }, 30_000);

  it('gives the seat back at once when an HTTP/2 client resets its stream mid-answer', async () => {
    const holder = await RawH2.connect(server, { ca: admin.ca });
    try {
      holder.headers(1, 'GET', CONFIGMAPS, [['authorization', `Bearer ${TOKEN}`]]);
      await holder.next((f) => f.type === FRAME.DATA && f.stream === 1);
      await vi.waitFor(async () => expect((await seatsHeld()).readOnly).toBe(1), { timeout: 5_000, interval: 50 });
      const resetAt = Date.now();
      holder.reset(1);
      await vi.waitFor(async () => expect((await seatsHeld()).readOnly).toBe(0), { timeout: 5_000, interval: 50 });
      // Well before the deadline would have cut it.
      expect(Date.now() - resetAt).toBeLessThan(REQUEST_TIMEOUT_MS);
    } finally {
      holder.socket.destroy();
    }
    await expectEverySeatFree();
  }, 30_000);

  it('takes no seat for a watch, over HTTP/1.1 or HTTP/2, and holds none when its client stops reading', async () => {
    const sockets: TLSSocket[] = [];
    let session: ClientHttp2Session | undefined;
    try {
      for (let i = 0; i < LIMIT + 2; i++) {
        const socket = await tlsConnect(server, carol());
        socket.on('error', () => {});
        const head = new Promise<string>((resolve) => socket.once('data', (c: Buffer) => resolve(c.toString('latin1'))));
        socket.write(get(`${CONFIGMAPS}?watch=1&resourceVersion=0`));
        expect((await head).startsWith('HTTP/1.1 200')).toBe(true);
        socket.pause();
        sockets.push(socket);
      }
      session = http2Connect(server.url, { ca: admin.ca });
      const streams = Array.from({ length: LIMIT + 2 }, () => session!.request({ ':path': `${CONFIGMAPS}?watch=1&resourceVersion=0`, authorization: `Bearer ${TOKEN}` }));
      const statuses = await Promise.all(streams.map((stream) => new Promise<number>((resolve) => stream.once('response', (h) => resolve(Number(h[':status']))))));
      expect(statuses).toEqual(Array(LIMIT + 2).fill(200));
      for (const stream of streams) stream.pause();
      // The watches stay open past the request deadline and are no one's seat.
      await new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS + 1_500));
      expect(sockets.every((socket) => !socket.destroyed)).toBe(true);
      expect(streams.every((stream) => !stream.destroyed)).toBe(true);
      expect(await seatsHeld()).toEqual({ readOnly: 0, mutating: 0 });
      await expectEverySeatFree();
    } finally {
      for (const socket of sockets) socket.destroy();
      session?.destroy();
    }
  }, 30_000);

  it('answers a body trickled past the deadline with a 504 Timeout Status, stores nothing, and gives the seat back', async () => {
    const socket = await tlsConnect(server, carol());
    socket.on('error', () => {});
    const received: Buffer[] = [];
    socket.on('data', (c: Buffer) => received.push(c));
    const body = configMap('trickled');
    socket.write(`POST ${CONFIGMAPS} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
    // A byte every quarter second: the body is not complete before the deadline.
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent < body.length - 1 && !socket.destroyed) socket.write(body[sent++]);
    }, 250);
    try {
      await vi.waitFor(async () => expect((await seatsHeld()).mutating).toBe(1), { timeout: 5_000, interval: 50 });
      const [answer] = await vi.waitFor(
        () => {
          const got = parseResponses(Buffer.concat(received));
          expect(got).toHaveLength(1);
          return got;
        },
        { timeout: REQUEST_TIMEOUT_MS + 5_000, interval: 50 },
      );
      expect(answer.status).toBe(504);
      expect(JSON.parse(answer.body)).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Timeout', code: 504 });
      expect(sent).toBeLessThan(body.length - 1);
    } finally {
      clearInterval(trickle);
      socket.destroy();
    }
    expect((await call(server.url, `${CONFIGMAPS}/trickled`, admin)).status).toBe(404);
    await expectEverySeatFree();
  }, 30_000);
});
