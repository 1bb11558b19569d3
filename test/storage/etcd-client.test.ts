// The etcd backend's own gRPC client (runtime/storage/etcd-client/): its hand-written protobuf
// against protobufjs reading etcd's .proto files (as shipped with the etcd3 package), its calls
// against a real etcd (binary keys and values, a watch answer far larger than an HTTP/2 frame,
// deletes with their last value), and its answers to a peer that is not a well-behaved etcd: a
// refusal, an HTTP error, a compressed or truncated message. Each hostile answer must come back
// as a GrpcCallError the store can classify, and the client must go on working.

import { createServer } from 'node:http2';
import type { Http2Server, ServerHttp2Stream } from 'node:http2';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdClient, GRPC_UNAVAILABLE, GrpcCallError } from '../../runtime/storage/etcd-client/client.js';
import { GRPC_DEADLINE_EXCEEDED, grpcMessage } from '../../runtime/storage/etcd-client/grpc-channel.js';
import type { WatchResponse } from '../../runtime/storage/etcd-client/client.js';
import { createTxnRequest, decodeTxnResponse, decodeWatchResponse, encodeTxnRequest, encodeWatchCreateRequest } from '../../runtime/storage/etcd-client/messages.js';
import { ProtoReader, ProtoWriter } from '../../runtime/storage/etcd-client/wire.js';
import { etcdBinary, startEtcd } from '../support/etcd.js';
import type { EtcdProcess } from '../support/etcd.js';

const protoDir = join(dirname(createRequire(import.meta.url).resolve('etcd3/package.json')), 'proto');
const root = new protobuf.Root().loadSync(join(protoDir, 'rpc.proto'), { keepCase: true });
const type = (name: string) => root.lookupType(name);
const plain = (t: protobuf.Type, bytes: Uint8Array) => t.toObject(t.decode(bytes), { longs: Number, bytes: Buffer, defaults: false, oneofs: false });

describe('etcd client wire format', () => {
  it('reads back every varint it writes, up to 2^53 - 1', () => {
    const values = [0, 1, 127, 128, 300, 16383, 16384, 2 ** 31, 2 ** 32 + 5, 2 ** 40, Number.MAX_SAFE_INTEGER];
    const w = new ProtoWriter();
    values.forEach((v, i) => w.varint(i + 1, v, true));
    const r = new ProtoReader(w.finish());
    const seen: number[] = [];
    while (r.next()) seen[r.field - 1] = r.varint();
    expect(seen).toEqual(values);
  });

  it('frames a request behind gRPC\'s prefix in the buffer it encodes into, the message as finish() alone writes it', () => {
    const writer = () => new ProtoWriter().varint(1, 300).bytes(2, Buffer.alloc(200, 'v'));
    const framed = grpcMessage(writer());
    const message = writer().finish();
    expect(framed[0]).toBe(0);
    expect(framed.readUInt32BE(1)).toBe(message.length);
    expect(framed.subarray(5)).toEqual(message);
  });

  it('refuses a negative number and a message cut inside a field', () => {
    expect(() => new ProtoWriter().varint(1, -1)).toThrow(RangeError);
    const bytes = new ProtoWriter().bytes(1, Buffer.from('abcdef')).finish();
    const r = new ProtoReader(bytes.subarray(0, bytes.length - 2));
    expect(r.next()).toBe(true);
    expect(() => r.bytes()).toThrow(/ends inside a field/);
  });

  it('encodes a Txn as protobufjs reads etcd\'s TxnRequest, oneof zero values included', () => {
    const key = Buffer.from([0x00, 0xff, 0x2f, 0x80]);
    const bytes = encodeTxnRequest({
      compare: [
        { key, target: 'Create', result: 'Equal', value: 0 },
        { key, target: 'Mod', result: 'Equal', value: 1234567 },
        { key, target: 'Version', result: 'Greater', value: 0 },
      ],
      success: [{ put: { key, value: Buffer.from('v'), prevKv: true } }, { deleteRange: { key, prevKv: true } }],
      failure: [{ range: { key, rangeEnd: Buffer.from([0]), limit: 500, revision: 70000, countOnly: true } }],
    });
    expect(plain(type('etcdserverpb.TxnRequest'), bytes)).toEqual({
      compare: [
        { key, target: 1, create_revision: 0 },
        { key, target: 2, mod_revision: 1234567 },
        { key, result: 1, version: 0 },
      ],
      success: [{ request_put: { key, value: Buffer.from('v'), prev_kv: true } }, { request_delete_range: { key, prev_kv: true } }],
      failure: [{ request_range: { key, range_end: Buffer.from([0]), limit: 500, revision: 70000, count_only: true } }],
    });
  });

  it('encodes values whose lengths take several bytes, at every level of nesting, as protobufjs reads them', () => {
    // 127 and 128 bytes straddle a one-byte length; 70,000 needs three bytes, and so do the
    // put and the request op around it.
    for (const size of [127, 128, 16_384, 70_000]) {
      const key = Buffer.from(`/registry/configmaps/default/big-${size}`);
      const value = Buffer.alloc(size, 0xab);
      const bytes = encodeTxnRequest({
        compare: [{ key, target: 'Create', result: 'Equal', value: 0 }],
        success: [{ put: { key, value } }],
        failure: [{ range: { key } }],
      });
      expect(plain(type('etcdserverpb.TxnRequest'), bytes)).toEqual({
        compare: [{ key, target: 1, create_revision: 0 }],
        success: [{ request_put: { key, value } }],
        failure: [{ request_range: { key } }],
      });
    }
  });

  it('writes a create\'s Txn in one piece byte for byte as the general writer does, for any key and value length and UTF-8', () => {
    const keys = [Buffer.from('/registry/configmaps/default/a'), Buffer.from([0x00, 0xff, 0x2f, 0x80]), Buffer.alloc(130, 0x6b), Buffer.alloc(20_000, 0x6b)];
    const values = ['', 'v', '{"data":{"k":"ü€😀"}}', 'x'.repeat(127), 'x'.repeat(128), 'é'.repeat(8_192), 'y'.repeat(70_000)];
    for (const key of keys) {
      for (const value of values) {
        const general = encodeTxnRequest({
          compare: [{ key, target: 'Create', result: 'Equal', value: 0 }],
          success: [{ put: { key, value: Buffer.from(value, 'utf8') } }],
          failure: [{ range: { key } }],
        });
        expect(createTxnRequest(key, value).equals(general)).toBe(true);
        // Behind gRPC's prefix the message is the same bytes, the reserved ones left to the framing.
        expect(createTxnRequest(key, value, 5).subarray(5).equals(general)).toBe(true);
      }
    }
    const key = keys[0]!;
    expect(plain(type('etcdserverpb.TxnRequest'), createTxnRequest(key, 'ü'))).toEqual({
      compare: [{ key, target: 1, create_revision: 0 }],
      success: [{ request_put: { key, value: Buffer.from('ü') } }],
      failure: [{ request_range: { key } }],
    });
  });

  it('encodes a watch as protobufjs reads etcd\'s WatchRequest', () => {
    const bytes = encodeWatchCreateRequest({ key: Buffer.from('/a'), rangeEnd: Buffer.from('/b'), startRevision: 99, progressNotify: true, prevKv: true });
    expect(plain(type('etcdserverpb.WatchRequest'), bytes)).toEqual({
      create_request: { key: Buffer.from('/a'), range_end: Buffer.from('/b'), start_revision: 99, progress_notify: true, prev_kv: true },
    });
  });

  it('decodes what protobufjs encodes of etcd\'s TxnResponse and WatchResponse, unknown fields skipped', () => {
    const kv = { key: Buffer.from('/k'), create_revision: 5, mod_revision: 300, version: 2, value: Buffer.from('x'.repeat(200)), lease: 7 };
    const txn = type('etcdserverpb.TxnResponse');
    const txnBytes = txn.encode(
      txn.fromObject({
        header: { cluster_id: 11, member_id: 12, revision: 301, raft_term: 4 },
        succeeded: true,
        responses: [{ response_put: { header: { revision: 301 }, prev_kv: kv } }, { response_delete_range: { deleted: 1, prev_kvs: [kv] } }, { response_range: { kvs: [kv], more: true, count: 9 } }],
      }),
    ).finish();
    const expectedKv = { key: kv.key, createRevision: 5, modRevision: 300, version: 2, value: kv.value };
    expect(decodeTxnResponse(Buffer.from(txnBytes))).toEqual({
      header: { revision: 301 },
      succeeded: true,
      responses: [
        { put: { prevKv: expectedKv } },
        { deleteRange: { deleted: 1, prevKvs: [expectedKv] } },
        { range: { header: { revision: 0 }, kvs: [expectedKv], more: true, count: 9 } },
      ],
    });

    const watch = type('etcdserverpb.WatchResponse');
    const watchBytes = watch.encode(
      watch.fromObject({ header: { revision: 302 }, watch_id: 3, canceled: true, compact_revision: 250, cancel_reason: 'mvcc: required revision has been compacted', events: [{ type: 1, kv, prev_kv: kv }] }),
    ).finish();
    expect(decodeWatchResponse(Buffer.from(watchBytes))).toEqual({
      header: { revision: 302 },
      created: false,
      canceled: true,
      compactRevision: 250,
      cancelReason: 'mvcc: required revision has been compacted',
      events: [{ type: 'delete', kv: expectedKv, prevKv: expectedKv }],
    });
  });
});

const binary = etcdBinary();

describe.runIf(binary)('etcd client against a real etcd', () => {
  let etcd: EtcdProcess;
  let client: EtcdClient;
  beforeAll(async () => {
    etcd = await startEtcd(binary!);
    client = new EtcdClient(etcd.endpoints, 10_000);
  });
  afterAll(async () => {
    client?.close();
    await etcd?.stop();
  });

  it('stores and reads keys and values of any bytes', async () => {
    const key = Buffer.from([0x2f, 0x00, 0x01, 0xfe, 0xff]);
    const value = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const created = await client.txn({ compare: [{ key, target: 'Create', result: 'Equal', value: 0 }], success: [{ put: { key, value } }], failure: [{ range: { key } }] });
    expect(created.succeeded).toBe(true);
    const again = await client.txn({ compare: [{ key, target: 'Create', result: 'Equal', value: 0 }], success: [{ put: { key, value } }], failure: [{ range: { key } }] });
    expect(again.succeeded).toBe(false);
    expect(again.responses[0]?.range?.kvs[0]).toEqual({ key, value, createRevision: created.header.revision, modRevision: created.header.revision, version: 1 });
  });

  it('watches with the previous value, and receives one answer much larger than an HTTP/2 frame whole', async () => {
    const prefix = Buffer.from('/big/');
    const responses: WatchResponse[] = [];
    const ended: Array<GrpcCallError | undefined> = [];
    const stream = client.watch({ key: prefix, rangeEnd: Buffer.from('/big0'), prevKv: true, progressNotify: true }, (res) => responses.push(res), (e) => ended.push(e));
    while (!responses.some((r) => r.created)) await new Promise((resolve) => setTimeout(resolve, 20));
    // Ten puts of 100 KiB in one transaction: one revision, one watch answer of about 1 MiB.
    const value = Buffer.alloc(100 * 1024, 'v');
    const keys = Array.from({ length: 10 }, (_, i) => Buffer.from(`/big/${i}`));
    await client.txn({ compare: [], success: keys.map((key) => ({ put: { key, value } })), failure: [] });
    await client.txn({ compare: [], success: [{ deleteRange: { key: keys[0]!, prevKv: true } }], failure: [] });
    const events = () => responses.flatMap((r) => r.events);
    while (events().length < 11) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events().slice(0, 10).map((e) => [e.type, e.kv.key.toString(), e.kv.value.equals(value)])).toEqual(keys.map((k) => ['put', k.toString(), true]));
    const deleted = events()[10]!;
    expect([deleted.type, deleted.kv.key.toString(), deleted.prevKv?.value.equals(value)]).toEqual(['delete', '/big/0', true]);
    await stream.cancel();
    expect(ended).toEqual([]);
  });
});

describe.runIf(binary)('etcd client keepalive', () => {
  // kube-apiserver's etcd client pings a quiet connection (30 s, answered within 10 s); here the
  // intervals are short. A frozen etcd (SIGSTOP) keeps its TCP connection open and answers
  // nothing: only the unanswered PING can tell, so without keepalive the watch would never end.
  it('tears down a connection whose PING goes unanswered, ends its watch as lost, and connects anew', async () => {
    const etcd = await startEtcd(binary!);
    const client = new EtcdClient(etcd.endpoints, 60_000, { timeMs: 200, timeoutMs: 300 });
    try {
      const responses: WatchResponse[] = [];
      const ended = new Promise<GrpcCallError | undefined>((resolve) => {
        client.watch({ key: Buffer.from('/ka/'), rangeEnd: Buffer.from('/ka0') }, (res) => responses.push(res), resolve);
      });
      while (!responses.some((r) => r.created)) await new Promise((resolve) => setTimeout(resolve, 20));
      etcd.pause();
      const error = await ended;
      expect(error).toBeInstanceOf(GrpcCallError);
      expect(error).toMatchObject({ code: GRPC_UNAVAILABLE, sent: true });
      expect(error?.message).toContain('keepalive ping not acknowledged within 300 ms');
      etcd.resume();
      const put = await client.txn({ compare: [], success: [{ put: { key: Buffer.from('/ka/1'), value: Buffer.from('v') } }], failure: [] });
      expect(put.header.revision).toBeGreaterThan(1);
      expect((await client.range({ key: Buffer.from('/ka/1') })).kvs[0]?.value.toString()).toBe('v');
    } finally {
      etcd.resume();
      client.close();
      await etcd.stop();
    }
  });

  it('keeps a connection that answers, however long it stays quiet', async () => {
    // etcd refuses PINGs closer than --grpc-keepalive-min-time (5 s) with GOAWAY "too_many_pings";
    // kube's 30 s keep clear of it, these test intervals need it lowered.
    const etcd = await startEtcd(binary!, ['--grpc-keepalive-min-time=50ms']);
    const client = new EtcdClient(etcd.endpoints, 60_000, { timeMs: 100, timeoutMs: 2000 });
    try {
      const ended: Array<GrpcCallError | undefined> = [];
      const responses: WatchResponse[] = [];
      // No progress notifications asked for: after its creation the watch reads nothing, so PINGs go out.
      const stream = client.watch({ key: Buffer.from('/quiet/'), rangeEnd: Buffer.from('/quiet0') }, (res) => responses.push(res), (e) => ended.push(e));
      while (!responses.some((r) => r.created)) await new Promise((resolve) => setTimeout(resolve, 20));
      await client.txn({ compare: [], success: [{ put: { key: Buffer.from('/quiet/a'), value: Buffer.from('1') } }], failure: [] });
      while (!responses.some((r) => r.events.length > 0)) await new Promise((resolve) => setTimeout(resolve, 20));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      await client.txn({ compare: [], success: [{ put: { key: Buffer.from('/quiet/b'), value: Buffer.from('2') } }], failure: [] });
      while (responses.flatMap((r) => r.events).length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(ended).toEqual([]);
      await stream.cancel();
    } finally {
      client.close();
      await etcd.stop();
    }
  });
});

describe.runIf(binary)('etcd client deadlines', () => {
  // The calls in flight share one timer (call-deadlines.ts): a call whose deadline comes before
  // the one the timer waits for must still end on time, and a call that ends first must not be
  // expired later.
  it('ends each call at its own deadline on a frozen etcd, whatever the order they came in, and the rest when etcd answers', async () => {
    const etcd = await startEtcd(binary!);
    const client = new EtcdClient(etcd.endpoints, 60_000, { timeMs: 60_000, timeoutMs: 60_000 });
    const outcome = (call: Promise<unknown>) => call.then(() => ({ code: 0, at: Date.now() }), (e: GrpcCallError) => ({ code: e.code, sent: e.sent, at: Date.now() }));
    try {
      await client.txn({ compare: [], success: [{ put: { key: Buffer.from('/dl/a'), value: Buffer.from('1') } }], failure: [] });
      // Answered before its deadline: nothing of it may fire later.
      expect((await client.range({ key: Buffer.from('/dl/a') }, 200)).kvs[0]?.value.toString()).toBe('1');
      etcd.pause();
      const started = Date.now();
      const long = outcome(client.range({ key: Buffer.from('/dl/a') }, 30_000));
      const late = outcome(client.range({ key: Buffer.from('/dl/a') }, 900));
      const early = outcome(client.range({ key: Buffer.from('/dl/a') }, 300));
      const first = await early;
      expect(first).toMatchObject({ code: GRPC_DEADLINE_EXCEEDED, sent: true });
      expect(first.at - started).toBeGreaterThanOrEqual(290);
      expect(first.at - started).toBeLessThan(850);
      const second = await late;
      expect(second).toMatchObject({ code: GRPC_DEADLINE_EXCEEDED, sent: true });
      expect(second.at - started).toBeGreaterThanOrEqual(890);
      etcd.resume();
      // The long call was left alone: etcd, awake, answers it.
      expect((await long).code).toBe(0);
      expect((await client.range({ key: Buffer.from('/dl/a') }, 300)).kvs[0]?.value.toString()).toBe('1');
    } finally {
      etcd.resume();
      client.close();
      await etcd.stop();
    }
  });
});

describe('etcd client against a peer that is not a well-behaved etcd', () => {
  let server: Http2Server;
  let endpoint: string;
  let answer: (stream: ServerHttp2Stream) => void;
  beforeAll(async () => {
    server = createServer();
    server.on('stream', (stream: ServerHttp2Stream) => {
      // Read the request through, then answer as the test says.
      stream.resume();
      stream.on('end', () => answer(stream));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const grpcAnswer = (message: Buffer, flag = 0, status = '0') => (stream: ServerHttp2Stream) => {
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': status }));
    const framed = Buffer.alloc(5 + message.length);
    framed[0] = flag;
    framed.writeUInt32BE(message.length, 1);
    message.copy(framed, 5);
    stream.end(framed);
  };
  const range = (client: EtcdClient) => client.range({ key: Buffer.from('/k') });
  const failure = async (promise: Promise<unknown>): Promise<GrpcCallError> => {
    const error = await promise.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(GrpcCallError);
    return error as GrpcCallError;
  };

  it('passes on a refusal in its own words, and an HTTP error as gRPC maps it', async () => {
    const client = new EtcdClient([endpoint], 2000);
    try {
      answer = (stream) => stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '3', 'grpc-message': 'etcdserver: request is too large' }, { endStream: true });
      expect(await failure(range(client))).toMatchObject({ code: 3, details: 'etcdserver: request is too large', sent: true });
      // A malformed percent-escape is passed on as sent, not thrown from the stream's event.
      answer = (stream) => stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': '9', 'grpc-message': 'bad %E0%A4%A escape' }, { endStream: true });
      expect(await failure(range(client))).toMatchObject({ code: 9, details: 'bad %E0%A4%A escape', sent: true });
      answer = (stream) => stream.respond({ ':status': 503 }, { endStream: true });
      expect(await failure(range(client))).toMatchObject({ code: 14, sent: true });
      // The connection still serves a proper answer afterwards.
      answer = grpcAnswer(Buffer.from(type('etcdserverpb.RangeResponse').encode({ header: { revision: 42 }, count: 0 }).finish()));
      expect((await range(client)).header.revision).toBe(42);
    } finally {
      client.close();
    }
  });

  it('rejects a call whose answer does not decode, and the connection serves the next call', async () => {
    const client = new EtcdClient([endpoint], 2000);
    try {
      // A RangeResponse cut inside its header's varint: the call fails with what the reader met.
      answer = grpcAnswer(Buffer.from([0x0a, 0x02, 0x18, 0x80]));
      await expect(range(client)).rejects.toThrow(/ends inside a varint/);
      answer = grpcAnswer(Buffer.from(type('etcdserverpb.RangeResponse').encode({ header: { revision: 9 }, count: 1 }).finish()));
      expect(await range(client)).toMatchObject({ header: { revision: 9 }, count: 1 });
    } finally {
      client.close();
    }
  });

  it('reads two messages written three bytes at a time, prefixes split across chunks', async () => {
    const client = new EtcdClient([endpoint], 2000);
    try {
      const message = Buffer.from(type('etcdserverpb.RangeResponse').encode({ header: { revision: 7 }, count: 3 }).finish());
      const framed = Buffer.alloc(5 + message.length);
      framed.writeUInt32BE(message.length, 1);
      message.copy(framed, 5);
      answer = (stream) => {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        const both = Buffer.concat([framed, framed]);
        for (let i = 0; i < both.length; i += 3) stream.write(both.subarray(i, i + 3));
        stream.end();
      };
      // A unary answer keeps the first message; both must have been read whole for the call to end well.
      expect(await range(client)).toMatchObject({ header: { revision: 7 }, count: 3 });
    } finally {
      client.close();
    }
  });

  it('refuses a compressed message, a truncated one and a missing one', async () => {
    const client = new EtcdClient([endpoint], 2000);
    try {
      answer = grpcAnswer(Buffer.from([0x1a, 0x02, 0x08]), 1);
      expect(await failure(range(client))).toMatchObject({ code: 13 });
      answer = (stream) => {
        stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
        stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
        stream.end();
      };
      expect(await failure(range(client))).toMatchObject({ code: 13, details: 'etcd answered without a message' });
      // A header field whose length runs past the message's end.
      answer = grpcAnswer(Buffer.from([0x0a, 0x10, 0x18, 0x01]));
      await expect(range(client)).rejects.toThrow(/ends inside a field/);
    } finally {
      client.close();
    }
  });

  it('gives up at the deadline on a peer that never answers, the call marked as sent', async () => {
    const client = new EtcdClient([endpoint], 300);
    try {
      answer = () => undefined;
      expect(await failure(range(client))).toMatchObject({ code: 4, sent: true });
    } finally {
      client.close();
    }
  });
});
