// The messages of etcd's KV and Watch services this server sends and reads (etcdserverpb's Range,
// Txn, Compact and Watch, with mvccpb.KeyValue and Event), in the field numbers of etcd's
// rpc.proto and kv.proto. Fields this server never sets are not written; fields it never reads
// are skipped.

import { ProtoReader, ProtoWriter } from './wire.js';

/** A key-value as etcd sent it; key and value view the answer's bytes (see ProtoReader.bytes). */
export interface EtcdKeyValue {
  key: Buffer;
  value: Buffer;
  createRevision: number;
  modRevision: number;
  version: number;
}

export interface ResponseHeader {
  revision: number;
}

export interface RangeRequest {
  key: Buffer;
  /** Exclusive end of the range; absent: the single key. */
  rangeEnd?: Buffer;
  limit?: number;
  /** Read at this revision; absent or 0: the current one. */
  revision?: number;
  keysOnly?: boolean;
  countOnly?: boolean;
}

export interface RangeResponse {
  header: ResponseHeader;
  kvs: EtcdKeyValue[];
  more: boolean;
  count: number;
}

export interface Compare {
  key: Buffer;
  target: 'Version' | 'Create' | 'Mod';
  result: 'Equal' | 'Greater' | 'Less' | 'NotEqual';
  /** The version, create revision or mod revision compared with (by `target`). */
  value: number;
}

export type RequestOp =
  | { range: RangeRequest }
  | { put: { key: Buffer; value: Buffer; prevKv?: boolean } }
  | { deleteRange: { key: Buffer; rangeEnd?: Buffer; prevKv?: boolean } };

export interface TxnRequest {
  compare: Compare[];
  success: RequestOp[];
  failure: RequestOp[];
}

export interface ResponseOp {
  range?: RangeResponse;
  put?: { prevKv?: EtcdKeyValue };
  deleteRange?: { deleted: number; prevKvs: EtcdKeyValue[] };
}

export interface TxnResponse {
  header: ResponseHeader;
  succeeded: boolean;
  responses: ResponseOp[];
}

export interface CompactionResponse {
  header: ResponseHeader;
}

export interface WatchCreateRequest {
  key: Buffer;
  rangeEnd?: Buffer;
  /** The first revision to send events of; absent: from the next change. */
  startRevision?: number;
  progressNotify?: boolean;
  prevKv?: boolean;
}

export interface WatchEvent {
  type: 'put' | 'delete';
  kv: EtcdKeyValue;
  prevKv?: EtcdKeyValue;
}

export interface WatchResponse {
  header: ResponseHeader;
  created: boolean;
  canceled: boolean;
  compactRevision: number;
  cancelReason: string;
  events: WatchEvent[];
}

const COMPARE_RESULT = { Equal: 0, Greater: 1, Less: 2, NotEqual: 3 } as const;
/** Compare.target and, beside it, the field of the oneof target_union holding the value. */
const COMPARE_TARGET = { Version: [0, 4], Create: [1, 5], Mod: [2, 6] } as const;

export const rangeRequest = (r: RangeRequest): ProtoWriter =>
  new ProtoWriter()
    .bytes(1, r.key, true)
    .bytes(2, r.rangeEnd)
    .varint(3, r.limit ?? 0)
    .varint(4, r.revision ?? 0)
    .bool(8, r.keysOnly)
    .bool(9, r.countOnly);


const compare = (c: Compare): ProtoWriter => {
  const [target, valueField] = COMPARE_TARGET[c.target];
  return new ProtoWriter()
    .varint(1, COMPARE_RESULT[c.result])
    .varint(2, target)
    .bytes(3, c.key, true)
    .varint(valueField, c.value, true);
};

const requestOp = (op: RequestOp): ProtoWriter => {
  const w = new ProtoWriter();
  if ('range' in op) return w.message(1, rangeRequest(op.range));
  if ('put' in op) return w.message(2, new ProtoWriter().bytes(1, op.put.key, true).bytes(2, op.put.value).bool(4, op.put.prevKv));
  return w.message(3, new ProtoWriter().bytes(1, op.deleteRange.key, true).bytes(2, op.deleteRange.rangeEnd).bool(3, op.deleteRange.prevKv));
};

export function txnRequest(t: TxnRequest): ProtoWriter {
  const w = new ProtoWriter();
  for (const c of t.compare) w.message(1, compare(c));
  for (const op of t.success) w.message(2, requestOp(op));
  for (const op of t.failure) w.message(3, requestOp(op));
  return w;
}

export const encodeTxnRequest = (t: TxnRequest): Buffer => txnRequest(t).finish();

/** Bytes of a varint of `n` (n >= 0). */
const varintSize = (n: number): number => {
  let size = 1;
  while (n > 0x7f) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
};

const writeVarint = (out: Buffer, at: number, n: number): number => {
  while (n > 0x7f) {
    out[at++] = (n % 128) | 0x80;
    n = Math.floor(n / 128);
  }
  out[at++] = n;
  return at;
};

/** A length-delimited field of `key`: its tag byte, the length, the bytes. */
const writeKey = (out: Buffer, at: number, tag: number, key: Buffer): number => {
  out[at] = tag;
  at = writeVarint(out, at + 1, key.length);
  key.copy(out, at);
  return at + key.length;
};

/**
 * The Txn of a create, as txnRequest writes `{compare: [create_revision(key) = 0], success:
 * [put(key, value)], failure: [range(key)]}`, written straight into one buffer behind `reserve`
 * bytes (gRPC's prefix): the value's UTF-8 goes in without a Buffer of its own, and none of the
 * general writer's nested writers and byte arrays are made for the write every create sends.
 */
export function createTxnRequest(key: Buffer, value: string, reserve = 0): Buffer {
  const keyField = 1 + varintSize(key.length) + key.length;
  const valueBytes = Buffer.byteLength(value, 'utf8');
  // Compare: target CREATE (field 2 = 1), the key (field 3), create_revision 0 (field 5, a oneof: written although zero); result EQUAL is proto3's zero.
  const compare = 2 + keyField + 2;
  // PutRequest: the key (field 1) and the value (field 2, left out when empty).
  const put = keyField + (valueBytes > 0 ? 1 + varintSize(valueBytes) + valueBytes : 0);
  const success = 1 + varintSize(put) + put;
  // RangeRequest: the key alone.
  const failure = 1 + varintSize(keyField) + keyField;
  const length = 1 + varintSize(compare) + compare + 1 + varintSize(success) + success + 1 + varintSize(failure) + failure;
  const out = Buffer.allocUnsafe(reserve + length);
  let at = reserve;
  out[at] = 0x0a; // Txn.compare
  at = writeVarint(out, at + 1, compare);
  out[at++] = 0x10; // Compare.target
  out[at++] = COMPARE_TARGET.Create[0];
  at = writeKey(out, at, 0x1a, key); // Compare.key
  out[at++] = (COMPARE_TARGET.Create[1] << 3) | 0; // Compare.create_revision
  out[at++] = 0;
  out[at] = 0x12; // Txn.success
  at = writeVarint(out, at + 1, success);
  out[at] = 0x12; // RequestOp.request_put
  at = writeVarint(out, at + 1, put);
  at = writeKey(out, at, 0x0a, key); // PutRequest.key
  if (valueBytes > 0) {
    out[at] = 0x12; // PutRequest.value
    at = writeVarint(out, at + 1, valueBytes);
    at += out.write(value, at, 'utf8');
  }
  out[at] = 0x1a; // Txn.failure
  at = writeVarint(out, at + 1, failure);
  out[at] = 0x0a; // RequestOp.request_range
  at = writeVarint(out, at + 1, keyField);
  writeKey(out, at, 0x0a, key); // RangeRequest.key
  return out;
}


export const compactionRequest = (revision: number): ProtoWriter => new ProtoWriter().varint(1, revision);

function header(r: ProtoReader): ResponseHeader {
  const h: ResponseHeader = { revision: 0 };
  while (r.next()) {
    if (r.field === 3) h.revision = r.varint();
    else r.skip();
  }
  return h;
}

const EMPTY = Buffer.alloc(0);

function keyValue(r: ProtoReader): EtcdKeyValue {
  const kv: EtcdKeyValue = { key: EMPTY, value: EMPTY, createRevision: 0, modRevision: 0, version: 0 };
  while (r.next()) {
    switch (r.field) {
      case 1:
        kv.key = r.bytes();
        break;
      case 2:
        kv.createRevision = r.varint();
        break;
      case 3:
        kv.modRevision = r.varint();
        break;
      case 4:
        kv.version = r.varint();
        break;
      case 5:
        kv.value = r.bytes();
        break;
      default:
        r.skip();
    }
  }
  return kv;
}


function rangeResponse(r: ProtoReader): RangeResponse {
  const res: RangeResponse = { header: { revision: 0 }, kvs: [], more: false, count: 0 };
  while (r.next()) {
    switch (r.field) {
      case 1:
        res.header = header(r.message());
        break;
      case 2:
        res.kvs.push(keyValue(r.message()));
        break;
      case 3:
        res.more = r.bool();
        break;
      case 4:
        res.count = r.varint();
        break;
      default:
        r.skip();
    }
  }
  return res;
}

export const decodeRangeResponse = (buf: Buffer): RangeResponse => rangeResponse(new ProtoReader(buf));

function putResponse(r: ProtoReader): { prevKv?: EtcdKeyValue } {
  const res: { prevKv?: EtcdKeyValue } = {};
  while (r.next()) {
    if (r.field === 2) res.prevKv = keyValue(r.message());
    else r.skip();
  }
  return res;
}

function deleteRangeResponse(r: ProtoReader): { deleted: number; prevKvs: EtcdKeyValue[] } {
  const res = { deleted: 0, prevKvs: [] as EtcdKeyValue[] };
  while (r.next()) {
    if (r.field === 2) res.deleted = r.varint();
    else if (r.field === 3) res.prevKvs.push(keyValue(r.message()));
    else r.skip();
  }
  return res;
}

function responseOp(r: ProtoReader): ResponseOp {
  const op: ResponseOp = {};
  while (r.next()) {
    if (r.field === 1) op.range = rangeResponse(r.message());
    else if (r.field === 2) op.put = putResponse(r.message());
    else if (r.field === 3) op.deleteRange = deleteRangeResponse(r.message());
    else r.skip();
  }
  return op;
}

export function decodeTxnResponse(buf: Buffer): TxnResponse {
  const r = new ProtoReader(buf);
  const res: TxnResponse = { header: { revision: 0 }, succeeded: false, responses: [] };
  while (r.next()) {
    if (r.field === 1) res.header = header(r.message());
    else if (r.field === 2) res.succeeded = r.bool();
    else if (r.field === 3) res.responses.push(responseOp(r.message()));
    else r.skip();
  }
  return res;
}

export function decodeCompactionResponse(buf: Buffer): CompactionResponse {
  const r = new ProtoReader(buf);
  const res: CompactionResponse = { header: { revision: 0 } };
  while (r.next()) {
    if (r.field === 1) res.header = header(r.message());
    else r.skip();
  }
  return res;
}

/** A WatchRequest holding one create_request. */
export function watchCreateRequest(r: WatchCreateRequest): ProtoWriter {
  const create = new ProtoWriter()
    .bytes(1, r.key, true)
    .bytes(2, r.rangeEnd)
    .varint(3, r.startRevision ?? 0)
    .bool(4, r.progressNotify)
    .bool(6, r.prevKv);
  return new ProtoWriter().message(1, create);
}

export const encodeWatchCreateRequest = (r: WatchCreateRequest): Buffer => watchCreateRequest(r).finish();

function watchEvent(r: ProtoReader): WatchEvent {
  const event: WatchEvent = { type: 'put', kv: keyValue(new ProtoReader(EMPTY)) };
  while (r.next()) {
    if (r.field === 1) event.type = r.varint() === 1 ? 'delete' : 'put';
    else if (r.field === 2) event.kv = keyValue(r.message());
    else if (r.field === 3) event.prevKv = keyValue(r.message());
    else r.skip();
  }
  return event;
}

export function decodeWatchResponse(buf: Buffer): WatchResponse {
  const r = new ProtoReader(buf);
  const res: WatchResponse = { header: { revision: 0 }, created: false, canceled: false, compactRevision: 0, cancelReason: '', events: [] };
  while (r.next()) {
    switch (r.field) {
      case 1:
        res.header = header(r.message());
        break;
      case 3:
        res.created = r.bool();
        break;
      case 4:
        res.canceled = r.bool();
        break;
      case 5:
        res.compactRevision = r.varint();
        break;
      case 6:
        res.cancelReason = r.bytes().toString('utf8');
        break;
      case 11:
        res.events.push(watchEvent(r.message()));
        break;
      default:
        r.skip();
    }
  }
  return res;
}
