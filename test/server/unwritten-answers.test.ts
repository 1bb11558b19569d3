// Answers still unwritten at their request's deadline are cut for every request that is not
// long-running, whoever sent it (runtime/server/unwritten-answers.ts through the request-deadline
// filter). kube's timeout filter wraps system:masters' requests too, though max-in-flight exempts
// them: when the deadline passes after the handler began writing, it aborts the handler, and Go's
// server closes the HTTP/1.1 connection or resets the HTTP/2 stream with INTERNAL_ERROR. Every
// client here is the admin (system:masters), which holds no max-in-flight seat; after each cut
// the server still answers, and the stored objects are as they were.
import { constants } from 'node:http2';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { BIG_OBJECTS, CONFIGMAPS, createLargeList } from '../support/large-list.js';
import { parseResponses, readUntilClosed, tlsConnect } from '../support/raw-http1.js';
import { FRAME, RawH2 } from '../support/raw-http2.js';

/** Short, so a response still unwritten at its deadline is seen cut within the test. */
const REQUEST_TIMEOUT_MS = 3_000;
/** A list of this many 900 KB objects is far more than socket buffers and HTTP/2 windows hold. */

/** How many of the listed objects are the large ones (the namespace has kube-root-ca.crt too). */
const bigOnes = (items: Array<{ metadata: { name: string } }>) => items.filter((o) => o.metadata.name.startsWith('big-')).length;
const get = (path: string) => `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`;

describe('answers unwritten at the request deadline, sent by system:masters', () => {
  let server: RunningServer;
  let admin: Credentials;

  beforeAll(async () => {
    server = await startServer({ storage: 'memory', requestTimeoutMs: REQUEST_TIMEOUT_MS });
    admin = kubeconfigCredentials(server.kubeconfig);
    await createLargeList(server.url, admin);
  }, 60_000);
  afterAll(async () => {
    await server?.close();
  });

  /** The server answers another client, and the objects are all there, unchanged. */
  async function expectServing(): Promise<void> {
    const small = await call(server.url, `${CONFIGMAPS}/small`, admin);
    expect(small.status).toBe(200);
    expect(JSON.parse(small.body).data).toEqual({ a: '1' });
    const names = await call(server.url, `${CONFIGMAPS}?limit=500`, admin, { headers: { accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' } });
    expect(names.status).toBe(200);
    expect(bigOnes(JSON.parse(names.body).items)).toBe(BIG_OBJECTS);
  }

  /** A raw HTTP/1.1 client that asks for the large list and never reads it. */
  async function holdRead(path = CONFIGMAPS): Promise<TLSSocket> {
    const socket = await tlsConnect(server, admin);
    socket.pause();
    socket.on('error', () => {});
    socket.write(get(path));
    return socket;
  }

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /** What a client that stopped reading finds once it reads at last: the head and part of the list, then the end. */
  async function expectCut(socket: TLSSocket): Promise<void> {
    let raw: Buffer | undefined;
    void readUntilClosed(socket).then((all) => (raw = all));
    socket.resume();
    // An answer never cut would be read whole, and its keep-alive connection would stay open.
    await vi.waitFor(() => expect(raw).toBeDefined(), { timeout: 5_000, interval: 50 });
    expect(raw!.subarray(0, 12).toString('latin1')).toBe('HTTP/1.1 200');
    // Never a complete answer the client could take for the whole list.
    expect(parseResponses(raw!)).toEqual([]);
  }

  it('cuts a large list over HTTP/1.1 that its client never reads, once its deadline has passed, and goes on serving others', async () => {
    const socket = await holdRead();
    // Served while the answer waits on its reader.
    await expectServing();
    await sleep(REQUEST_TIMEOUT_MS + 1_000);
    await expectCut(socket);
    await expectServing();
  }, 30_000);

  it('leaves whole a large list its client starts reading late, but before the deadline', async () => {
    const socket = await holdRead();
    await sleep(REQUEST_TIMEOUT_MS / 3);
    const received: Buffer[] = [];
    socket.on('data', (c: Buffer) => received.push(c));
    socket.resume();
    try {
      const [answer] = await vi.waitFor(
        () => {
          const got = parseResponses(Buffer.concat(received));
          expect(got).toHaveLength(1);
          return got;
        },
        { timeout: 10_000, interval: 50 },
      );
      expect(answer.status).toBe(200);
      expect(bigOnes(JSON.parse(answer.body).items)).toBe(BIG_OBJECTS);
      // Written out in time, the answer is no longer the deadline's: the connection stays.
      await sleep(REQUEST_TIMEOUT_MS);
      expect(socket.destroyed).toBe(false);
    } finally {
      socket.destroy();
    }
  }, 30_000);

  it('cuts at the shorter deadline a `timeout` parameter sets', async () => {
    const socket = await holdRead(`${CONFIGMAPS}?timeout=1s`);
    // Past the request's own deadline, well before the server's: read now, the list would be whole.
    await sleep(1_000 + REQUEST_TIMEOUT_MS / 3);
    await expectCut(socket);
    await expectServing();
  }, 30_000);

  it('cuts a GET pipelined behind a watch on one HTTP/1.1 connection at its deadline', async () => {
    const started = Date.now();
    const socket = await tlsConnect(server, admin);
    const closed = readUntilClosed(socket);
    // Node reads the second request while the watch answers the first; Go would not have read it.
    socket.write(get(`${CONFIGMAPS}?watch=1&resourceVersion=0&fieldSelector=metadata.name%3Dsmall`) + get(`${CONFIGMAPS}/small`));
    await expectServing();
    const raw = (await closed).toString('latin1');
    expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    // The connection went with it: the watch's answer began, the GET's never came.
    expect(raw.startsWith('HTTP/1.1 200')).toBe(true);
    expect(raw.split('HTTP/1.1 ').length - 1).toBe(1);
    await expectServing();
  }, 30_000);

  it('resets an HTTP/2 stream whose window the client never opens at the deadline, with INTERNAL_ERROR, and the connection goes on', async () => {
    // Never sends WINDOW_UPDATE: the server cannot send more than the first 64 KiB of the list.
    const holder = await RawH2.connect(server, admin);
    try {
      const started = Date.now();
      holder.headers(1, 'GET', CONFIGMAPS);
      await holder.next((f) => f.type === FRAME.HEADERS && f.stream === 1);
      await expectServing();
      const reset = await holder.next((f) => f.type === FRAME.RST_STREAM && f.stream === 1);
      expect(Date.now() - started).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
      expect(reset.payload.readUInt32BE(0)).toBe(constants.NGHTTP2_INTERNAL_ERROR);
      // The stream was cut, not ended: no DATA frame of it carries END_STREAM.
      expect(holder.frames.some((f) => f.type === FRAME.DATA && f.stream === 1 && (f.flags & 0x1) !== 0)).toBe(false);
      // The connection itself goes on, and serves the next stream.
      expect(holder.socket.destroyed).toBe(false);
      holder.headers(3, 'GET', `${CONFIGMAPS}/small`);
      const head = await holder.next((f) => f.type === FRAME.HEADERS && f.stream === 3);
      // HPACK static table index 8 is `:status: 200`.
      expect(head.payload[0]).toBe(0x88);
    } finally {
      holder.socket.destroy();
    }
    await expectServing();
  }, 30_000);

  it('never cuts a watch, which is long-running, however long its client leaves it unread', async () => {
    const socket = await tlsConnect(server, admin);
    socket.on('error', () => {});
    const head = new Promise<string>((resolve) => socket.once('data', (c: Buffer) => resolve(c.toString('latin1'))));
    socket.write(get(`${CONFIGMAPS}?watch=1&resourceVersion=0`));
    expect((await head).startsWith('HTTP/1.1 200')).toBe(true);
    socket.pause();
    try {
      await new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS + 1_500));
      expect(socket.destroyed).toBe(false);
      expect(socket.readableEnded).toBe(false);
    } finally {
      socket.destroy();
    }
    await expectServing();
  }, 30_000);
});
