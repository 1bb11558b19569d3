// The etcd client's own HTTP/2 framing (runtime/storage/etcd-client/http2-connection.ts) against
// a scripted peer on a plain socket, which writes the frames each test needs byte by byte: a
// header block split over CONTINUATION frames, Go-style HPACK (Huffman, the dynamic table across
// streams, a table size update), flow control of what the client sends (the peer's window and
// frame size honoured), the peer's stream limit, PING, GOAWAY; and hostile peers (garbage, a
// frame larger than allowed, frames on streams never opened, broken HPACK), each of which must
// end the connection with an error to the callers, a GOAWAY where one can still be written, and
// leave the client working on a new connection. Then against a real etcd: a request far above
// etcd's window, and 20 MiB of events through one watch, well past the client's receive window.

import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EtcdClient, GrpcCallError } from '../../runtime/storage/etcd-client/client.js';
import type { WatchResponse } from '../../runtime/storage/etcd-client/client.js';
import { HpackDecoder, encodeHeaders } from '../../runtime/storage/etcd-client/hpack.js';
import type { HeaderField } from '../../runtime/storage/etcd-client/hpack.js';
import { etcdBinary, startEtcd } from '../support/etcd.js';
import type { EtcdProcess } from '../support/etcd.js';
import { http2Frame } from '../support/http2-frame.js';

const DATA = 0;
const HEADERS = 1;
const RST_STREAM = 3;
const SETTINGS = 4;
const PING = 6;
const GOAWAY = 7;
const WINDOW_UPDATE = 8;
const CONTINUATION = 9;
const END_STREAM = 1;
const END_HEADERS = 4;

interface Frame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

const settingsPayload = (entries: Array<[number, number]>): Buffer => {
  const payload = Buffer.alloc(entries.length * 6);
  entries.forEach(([id, value], i) => {
    payload.writeUInt16BE(id, i * 6);
    payload.writeUInt32BE(value, i * 6 + 2);
  });
  return payload;
};

const u32 = (...values: number[]): Buffer => {
  const out = Buffer.alloc(values.length * 4);
  values.forEach((v, i) => out.writeUInt32BE(v, i * 4));
  return out;
};

const grpcMessage = (message: Buffer): Buffer => {
  const out = Buffer.alloc(5 + message.length);
  out.writeUInt32BE(message.length, 1);
  message.copy(out, 5);
  return out;
};

/** RangeResponse { header { revision } }. */
const rangeAnswer = (revision: number): Buffer => Buffer.from([0x0a, 0x02, 0x18, revision]);
/** TxnResponse { header { revision }, succeeded: true }. */
const txnAnswer = (revision: number): Buffer => Buffer.from([0x0a, 0x02, 0x18, revision, 0x10, 0x01]);

const RESPONSE_HEADERS = encodeHeaders([
  [':status', '200'],
  ['content-type', 'application/grpc'],
]);
const OK_TRAILERS = encodeHeaders([['grpc-status', '0']]);

/** One client connection as the scripted peer sees it. */
class PeerConnection {
  readonly frames: Frame[] = [];
  /** What the client sent on each stream: its header fields and its body so far. */
  readonly requests = new Map<number, { fields: HeaderField[]; body: Buffer[]; ended: boolean }>();
  private readonly decoder = new HpackDecoder(4096);
  private buffer = Buffer.alloc(0);
  private prefaceSeen = false;

  constructor(
    readonly socket: Socket,
    private readonly peer: ScriptedPeer,
  ) {
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', () => undefined);
  }

  write(type: number, flags: number, streamId: number, payload?: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(http2Frame(type, flags, streamId, payload));
  }

  /** A whole gRPC answer: headers, one message, trailers with status 0. */
  answer(streamId: number, message: Buffer): void {
    this.write(HEADERS, END_HEADERS, streamId, RESPONSE_HEADERS);
    this.write(DATA, 0, streamId, grpcMessage(message));
    this.write(HEADERS, END_HEADERS | END_STREAM, streamId, OK_TRAILERS);
  }

  private read(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    if (!this.prefaceSeen) {
      if (this.buffer.length < 24) return;
      expect(this.buffer.subarray(0, 24).toString('latin1')).toBe('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
      this.buffer = this.buffer.subarray(24);
      this.prefaceSeen = true;
    }
    while (this.buffer.length >= 9) {
      const length = this.buffer.readUIntBE(0, 3);
      if (this.buffer.length < 9 + length) return;
      const frame: Frame = { type: this.buffer[3]!, flags: this.buffer[4]!, streamId: this.buffer.readUInt32BE(5), payload: this.buffer.subarray(9, 9 + length) };
      this.buffer = this.buffer.subarray(9 + length);
      this.frames.push(frame);
      if (frame.type === HEADERS) {
        expect(frame.flags & END_HEADERS).toBe(END_HEADERS);
        this.requests.set(frame.streamId, { fields: this.decoder.decode(frame.payload), body: [], ended: (frame.flags & END_STREAM) !== 0 });
      }
      if (frame.type === DATA) {
        const request = this.requests.get(frame.streamId)!;
        request.body.push(frame.payload);
        request.ended ||= (frame.flags & END_STREAM) !== 0;
      }
      this.peer.onFrame(this, frame);
    }
  }
}

class ScriptedPeer {
  readonly connections: PeerConnection[] = [];
  /** The test's script: every frame the client sends, as it arrives. */
  onFrame: (connection: PeerConnection, frame: Frame) => void = () => undefined;
  /** What the peer sends first on a new connection. */
  onConnect: (connection: PeerConnection) => void = (connection) => connection.write(SETTINGS, 0, 0);
  private server?: Server;
  endpoint = '';

  async start(): Promise<void> {
    this.server = createServer((socket) => {
      const connection = new PeerConnection(socket, this);
      this.connections.push(connection);
      this.onConnect(connection);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }

  reset(): void {
    for (const connection of this.connections.splice(0)) connection.socket.destroy();
    this.onConnect = (connection) => connection.write(SETTINGS, 0, 0);
    this.onFrame = answerEveryRange;
  }

  stop(): Promise<void> {
    for (const connection of this.connections) connection.socket.destroy();
    return new Promise((resolve) => this.server!.close(() => resolve()));
  }
}

/** A well-behaved peer: every request that has ended gets a RangeResponse of revision 7. */
const answerEveryRange = (connection: PeerConnection, frame: Frame): void => {
  if ((frame.type === DATA || frame.type === HEADERS) && frame.flags & END_STREAM) connection.answer(frame.streamId, rangeAnswer(7));
};

const failure = async (promise: Promise<unknown>): Promise<GrpcCallError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GrpcCallError);
  return error as GrpcCallError;
};

const until = async (condition: () => boolean, what: string): Promise<void> => {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe('etcd client HTTP/2 framing against a scripted peer', () => {
  const peer = new ScriptedPeer();
  let client: EtcdClient;
  const range = () => client.range({ key: Buffer.from('/k') });
  beforeAll(() => peer.start());
  afterAll(() => peer.stop());
  afterEach(() => {
    client?.close();
    peer.reset();
  });

  it('opens with the preface, SETTINGS (push off, a 16 MiB window) and acknowledges the peer\'s SETTINGS', async () => {
    client = new EtcdClient([peer.endpoint], 2000);
    peer.onFrame = answerEveryRange;
    expect((await range()).header.revision).toBe(7);
    const frames = peer.connections[0]!.frames;
    expect(frames[0]).toMatchObject({ type: SETTINGS, flags: 0, streamId: 0 });
    // The client opens its first stream only after the peer's SETTINGS, which it acknowledges first.
    expect(frames.findIndex((f) => f.type === SETTINGS && f.flags === 1)).toBeLessThan(frames.findIndex((f) => f.type === HEADERS));
    expect(frames[0]!.payload).toEqual(settingsPayload([[2, 0], [4, 16 * 1024 * 1024], [6, 1 << 20]]));
    expect(frames[1]).toMatchObject({ type: WINDOW_UPDATE, streamId: 0, payload: u32(16 * 1024 * 1024 - 65_535) });
    expect(frames.some((f) => f.type === SETTINGS && f.flags === 1 && f.payload.length === 0)).toBe(true);
    const request = peer.connections[0]!.requests.get(1)!;
    expect(request.fields.slice(0, 6)).toEqual([
      [':method', 'POST'],
      [':scheme', 'http'],
      [':path', '/etcdserverpb.KV/Range'],
      [':authority', peer.endpoint.slice('http://'.length)],
      ['content-type', 'application/grpc'],
      ['te', 'trailers'],
    ]);
    expect(request.fields[6]![0]).toBe('grpc-timeout');
    expect(request.fields[6]![1]).toMatch(/^\d+m$/);
  });

  it('reads headers split over CONTINUATION frames, Huffman-coded and indexed literals, a table size update, and the table carried to the next stream', async () => {
    client = new EtcdClient([peer.endpoint], 2000);
    let answered = 0;
    peer.onFrame = (connection, frame) => {
      if (frame.type !== DATA || !(frame.flags & END_STREAM)) return;
      const id = frame.streamId;
      if (answered++ === 0) {
        // :status 200 (static), content-type with incremental indexing (it enters the table),
        // in three pieces; the cut falls inside the content-type literal.
        const block = Buffer.concat([Buffer.from([0x88, 0x5f, 0x10]), Buffer.from('application/grpc')]);
        connection.write(HEADERS, 0, id, block.subarray(0, 2));
        connection.write(CONTINUATION, 0, id, block.subarray(2, 9));
        connection.write(CONTINUATION, END_HEADERS, id, block.subarray(9));
        connection.write(DATA, 0, id, grpcMessage(rangeAnswer(7)));
        // Trailers: the table emptied and set back to 4096, then grpc-status "0" indexed, its
        // name a literal and its value Huffman-coded ("0" is 00000, padded with ones: 0x07).
        connection.write(HEADERS, END_HEADERS | END_STREAM, id, Buffer.concat([Buffer.from([0x20, 0x3f, 0xe1, 0x1f, 0x40, 0x0b]), Buffer.from('grpc-status'), Buffer.from([0x81, 0x07])]));
      } else {
        // grpc-status 0 now sits at index 62, from the last stream's trailers.
        connection.write(HEADERS, END_HEADERS, id, Buffer.concat([Buffer.from([0x88, 0x0f, 0x10, 0x10]), Buffer.from('application/grpc')]));
        connection.write(DATA, 0, id, grpcMessage(rangeAnswer(9)));
        connection.write(HEADERS, END_HEADERS | END_STREAM, id, Buffer.from([0xbe]));
      }
    };
    expect((await range()).header.revision).toBe(7);
    expect((await range()).header.revision).toBe(9);
  });

  it('reads a trailers-only refusal and a status in its own words', async () => {
    client = new EtcdClient([peer.endpoint], 2000);
    peer.onFrame = (connection, frame) => {
      if (frame.type !== DATA || !(frame.flags & END_STREAM)) return;
      connection.write(
        HEADERS,
        END_HEADERS | END_STREAM,
        frame.streamId,
        encodeHeaders([
          [':status', '200'],
          ['content-type', 'application/grpc'],
          ['grpc-status', '9'],
          ['grpc-message', 'etcdserver: mvcc%3A required revision has been compacted'],
        ]),
      );
    };
    expect(await failure(range())).toMatchObject({ code: 9, details: 'etcdserver: mvcc: required revision has been compacted', sent: true });
  });

  it('sends a request no faster than the peer\'s window allows and in frames no larger than its frame size', async () => {
    client = new EtcdClient([peer.endpoint], 5000);
    // A stream window of 1,000 bytes: the rest of a 40 KB request waits for WINDOW_UPDATE.
    peer.onConnect = (connection) => connection.write(SETTINGS, 0, 0, settingsPayload([[4, 1000]]));
    peer.onFrame = (connection, frame) => {
      if (frame.type === DATA && frame.flags & END_STREAM) connection.answer(frame.streamId, txnAnswer(5));
    };
    const value = Buffer.alloc(40_000, 'x');
    const put = client.txn({ compare: [], success: [{ put: { key: Buffer.from('/big'), value } }], failure: [] });
    const sent = () => peer.connections[0]?.requests.get(1)?.body.reduce((n, b) => n + b.length, 0) ?? 0;
    await until(() => sent() === 1000, 'the first 1,000 bytes');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sent()).toBe(1000);
    peer.connections[0]!.write(WINDOW_UPDATE, 0, 1, u32(100_000));
    expect((await put).header.revision).toBe(5);
    const request = peer.connections[0]!.requests.get(1)!;
    expect(request.ended).toBe(true);
    const body = Buffer.concat(request.body);
    expect(body.readUInt32BE(1)).toBe(body.length - 5);
    expect(body.subarray(body.length - value.length).equals(value)).toBe(true);
    const dataFrames = peer.connections[0]!.frames.filter((f) => f.type === DATA);
    expect(Math.max(...dataFrames.map((f) => f.payload.length))).toBeLessThanOrEqual(16_384);
    expect(dataFrames.length).toBeGreaterThanOrEqual(4);
  });

  it('opens no more streams than the peer\'s SETTINGS_MAX_CONCURRENT_STREAMS', async () => {
    client = new EtcdClient([peer.endpoint], 5000);
    peer.onConnect = (connection) => connection.write(SETTINGS, 0, 0, settingsPayload([[3, 1]]));
    const answeredAt = new Map<number, number>();
    const openedAt = new Map<number, number>();
    let order = 0;
    peer.onFrame = (connection, frame) => {
      if (frame.type === HEADERS) openedAt.set(frame.streamId, order++);
      if (frame.type === DATA && frame.flags & END_STREAM) {
        setTimeout(() => {
          answeredAt.set(frame.streamId, order++);
          connection.answer(frame.streamId, rangeAnswer(frame.streamId));
        }, 50);
      }
    };
    const answers = await Promise.all([range(), range(), range()]);
    expect(answers.map((a) => a.header.revision).sort()).toEqual([1, 3, 5]);
    // Each stream opened only after the one before it was answered.
    expect(openedAt.get(3)).toBeGreaterThan(answeredAt.get(1)!);
    expect(openedAt.get(5)).toBeGreaterThan(answeredAt.get(3)!);
  });

  it('answers the peer\'s PING with its payload', async () => {
    client = new EtcdClient([peer.endpoint], 2000);
    peer.onFrame = answerEveryRange;
    await range();
    const payload = Buffer.from('8 bytes!');
    peer.connections[0]!.write(PING, 0, 0, payload);
    await until(() => peer.connections[0]!.frames.some((f) => f.type === PING), 'the PING acknowledgement');
    expect(peer.connections[0]!.frames.find((f) => f.type === PING)).toMatchObject({ flags: 1, streamId: 0, payload });
  });

  it('on GOAWAY, fails the streams above its last stream id as never processed, finishes the rest, and connects anew', async () => {
    client = new EtcdClient([peer.endpoint], 5000);
    peer.onFrame = (connection, frame) => {
      if (connection !== peer.connections[0]) return answerEveryRange(connection, frame);
      if (frame.type === DATA && frame.flags & END_STREAM && frame.streamId === 3) {
        connection.write(GOAWAY, 0, 0, Buffer.concat([u32(1, 0), Buffer.from('graceful shutdown')]));
        connection.answer(1, rangeAnswer(1));
      }
    };
    const [first, second] = await Promise.allSettled([range(), range()]);
    expect(first).toMatchObject({ status: 'fulfilled', value: { header: { revision: 1 } } });
    expect(second.status).toBe('rejected');
    const refused = (second as PromiseRejectedResult).reason as GrpcCallError;
    expect(refused).toBeInstanceOf(GrpcCallError);
    // Not sent, as far as etcd is concerned: a write may be retried.
    expect(refused).toMatchObject({ code: 14, sent: false });
    expect(refused.details).toContain('graceful shutdown');
    expect((await range()).header.revision).toBe(7);
    expect(peer.connections).toHaveLength(2);
  });

  it('on GOAWAY, fails a call still waiting for the peer\'s stream limit as never sent', async () => {
    client = new EtcdClient([peer.endpoint], 5000);
    peer.onConnect = (connection) => connection.write(SETTINGS, 0, 0, settingsPayload([[3, 1]]));
    peer.onFrame = (connection, frame) => {
      if (connection !== peer.connections[0]) return answerEveryRange(connection, frame);
      if (frame.type === DATA && frame.flags & END_STREAM) {
        connection.write(GOAWAY, 0, 0, u32(1, 0));
        connection.answer(1, rangeAnswer(1));
      }
    };
    const [first, second] = await Promise.allSettled([range(), range()]);
    expect(first).toMatchObject({ status: 'fulfilled', value: { header: { revision: 1 } } });
    expect((second as PromiseRejectedResult).reason).toMatchObject({ code: 14, sent: false });
    // Only the first stream was ever opened there.
    expect([...peer.connections[0]!.requests.keys()]).toEqual([1]);
  });

  it('ends a watch whose handler cannot take a message: the stream reset, the error told once, nothing after it', async () => {
    client = new EtcdClient([peer.endpoint], 2000);
    peer.onFrame = (connection, frame) => {
      if (frame.type !== DATA || frame.streamId !== 1) return;
      connection.write(HEADERS, END_HEADERS, 1, RESPONSE_HEADERS);
      // Two WatchResponses { header { revision }, created: true } in one DATA frame.
      connection.write(DATA, 0, 1, Buffer.concat([grpcMessage(Buffer.from([0x0a, 0x02, 0x18, 1, 0x18, 1])), grpcMessage(Buffer.from([0x0a, 0x02, 0x18, 2, 0x18, 1]))]));
    };
    const seen: number[] = [];
    const ended: Array<GrpcCallError | undefined> = [];
    client.watch(
      { key: Buffer.from('/w/') },
      (res) => {
        seen.push(res.header.revision);
        throw new Error('cannot take it');
      },
      (e) => ended.push(e),
    );
    await until(() => ended.length > 0, 'the end of the watch');
    expect(seen).toEqual([1]);
    expect(ended).toHaveLength(1);
    expect(ended[0]).toMatchObject({ code: 13, details: 'the answer could not be read: cannot take it' });
    await until(() => peer.connections[0]!.frames.some((f) => f.type === RST_STREAM), 'the RST_STREAM');
    expect(peer.connections[0]!.frames.find((f) => f.type === RST_STREAM)).toMatchObject({ streamId: 1, payload: u32(8) });
    // The connection goes on.
    peer.onFrame = answerEveryRange;
    expect((await range()).header.revision).toBe(7);
    expect(peer.connections).toHaveLength(1);
  });

  it('passes on a stream reset by the peer, and the connection goes on', async () => {
    client = new EtcdClient([peer.endpoint], 2000);
    let calls = 0;
    peer.onFrame = (connection, frame) => {
      if (frame.type !== DATA || !(frame.flags & END_STREAM)) return;
      if (calls++ === 0) connection.write(RST_STREAM, 0, frame.streamId, u32(2));
      else connection.answer(frame.streamId, rangeAnswer(7));
    };
    expect(await failure(range())).toMatchObject({ code: 14, sent: true });
    expect((await range()).header.revision).toBe(7);
    expect(peer.connections).toHaveLength(1);
  });

  const hostile: Array<[string, (connection: PeerConnection, frame: Frame) => void, RegExp, number | undefined]> = [
    [
      'a frame larger than the 16 KiB allowed',
      (connection, frame) => {
        if (frame.type === DATA) connection.write(DATA, 0, frame.streamId, Buffer.alloc(20_000));
      },
      /frame of 20000 bytes/,
      6,
    ],
    [
      'DATA on a stream never opened',
      (connection, frame) => {
        if (frame.type === DATA) connection.write(DATA, 0, 99, Buffer.from('x'));
      },
      /stream 99, which was never opened/,
      1,
    ],
    [
      'a header block referring past the dynamic table',
      (connection, frame) => {
        if (frame.type === DATA) connection.write(HEADERS, END_HEADERS, frame.streamId, Buffer.from([0x88, 0xc5]));
      },
      /index 69 is past the table/,
      9,
    ],
    [
      'a header block interrupted by DATA',
      (connection, frame) => {
        if (frame.type !== DATA) return;
        connection.write(HEADERS, 0, frame.streamId, Buffer.from([0x88]));
        connection.write(DATA, 0, frame.streamId, grpcMessage(rangeAnswer(7)));
      },
      /interrupted/,
      1,
    ],
    [
      'a WINDOW_UPDATE that takes the connection window past 2^31-1',
      (connection, frame) => {
        if (frame.type === DATA) connection.write(WINDOW_UPDATE, 0, 0, u32(2 ** 31 - 1));
      },
      /connection window went above 2\^31-1/,
      3,
    ],
    [
      'a SETTINGS frame whose length is not a multiple of 6',
      (connection, frame) => {
        if (frame.type === DATA) connection.write(SETTINGS, 0, 0, Buffer.alloc(7));
      },
      /SETTINGS frame of the wrong size/,
      6,
    ],
  ];
  for (const [what, script, message, goawayCode] of hostile) {
    it(`ends the connection on ${what}, with an error to the caller, a GOAWAY, and works again on a new connection`, async () => {
      client = new EtcdClient([peer.endpoint], 5000);
      peer.onFrame = (connection, frame) => (connection === peer.connections[0] ? script(connection, frame) : answerEveryRange(connection, frame));
      const error = await failure(range());
      expect(error.code).toBe(14);
      expect(error.details).toMatch(message);
      if (goawayCode !== undefined) {
        await until(() => peer.connections[0]!.frames.some((f) => f.type === GOAWAY), 'the GOAWAY');
        const goaway = peer.connections[0]!.frames.find((f) => f.type === GOAWAY)!;
        expect(goaway.payload.readUInt32BE(4)).toBe(goawayCode);
      }
      expect((await range()).header.revision).toBe(7);
    });
  }

  it('ends the connection on a peer that is not HTTP/2 at all, or opens with another frame than SETTINGS', async () => {
    client = new EtcdClient([peer.endpoint], 5000);
    peer.onConnect = (connection) => connection.socket.write('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    expect(await failure(range())).toMatchObject({ code: 14 });
    peer.onConnect = (connection) => connection.write(PING, 0, 0, Buffer.alloc(8));
    expect((await failure(range())).details).toMatch(/did not open the connection with SETTINGS/);
    peer.onConnect = (connection) => connection.write(SETTINGS, 0, 0);
    peer.onFrame = answerEveryRange;
    expect((await range()).header.revision).toBe(7);
  });

  it('fails the calls on a connection the peer closes midway, marked as sent', async () => {
    client = new EtcdClient([peer.endpoint], 5000);
    peer.onFrame = (connection, frame) => {
      if (connection === peer.connections[0] && frame.type === DATA) connection.socket.destroy();
      else answerEveryRange(connection, frame);
    };
    expect(await failure(range())).toMatchObject({ code: 14, sent: true });
    expect((await range()).header.revision).toBe(7);
  });
});

const binary = etcdBinary();

describe.runIf(binary)('etcd client HTTP/2 flow control against a real etcd', () => {
  let etcd: EtcdProcess;
  let client: EtcdClient;
  beforeAll(async () => {
    etcd = await startEtcd(binary!);
    client = new EtcdClient(etcd.endpoints, 30_000);
  });
  afterAll(async () => {
    client?.close();
    await etcd?.stop();
  });

  it('writes a 1 MiB value, far past the 64 KiB etcd grants a stream at first, and reads it back', async () => {
    const key = Buffer.from('/flow/one');
    const value = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < value.length; i++) value[i] = (i * 7) & 0xff;
    await client.txn({ compare: [], success: [{ put: { key, value } }], failure: [] });
    expect((await client.range({ key })).kvs[0]?.value.equals(value)).toBe(true);
  });

  it('receives 20 MiB of events through one watch, past its 16 MiB receive window, every byte in order', async () => {
    const prefix = Buffer.from('/flood/');
    const responses: WatchResponse[] = [];
    const ended: Array<GrpcCallError | undefined> = [];
    const stream = client.watch({ key: prefix, rangeEnd: Buffer.from('/flood0') }, (res) => responses.push(res), (e) => ended.push(e));
    await until(() => responses.some((r) => r.created), 'the watch');
    // 20 transactions of 10 values of 100 KiB, each value marked with its number.
    const size = 100 * 1024;
    const valueOf = (n: number) => Buffer.alloc(size, n % 251);
    for (let t = 0; t < 20; t++) {
      const success = Array.from({ length: 10 }, (_, i) => ({ put: { key: Buffer.from(`/flood/${String(t * 10 + i).padStart(3, '0')}`), value: valueOf(t * 10 + i) } }));
      await client.txn({ compare: [], success, failure: [] });
    }
    const events = () => responses.flatMap((r) => r.events);
    const deadline = Date.now() + 30_000;
    while (events().length < 200 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    const all = events();
    expect(all).toHaveLength(200);
    all.forEach((event, n) => {
      expect(event.kv.key.toString()).toBe(`/flood/${String(n).padStart(3, '0')}`);
      expect(event.kv.value.equals(valueOf(n))).toBe(true);
    });
    await stream.cancel();
    expect(ended).toEqual([]);
    // The connection still serves calls after the flood.
    expect((await client.range({ key: Buffer.from('/flood/199') })).kvs[0]?.value.length).toBe(size);
  });
});
