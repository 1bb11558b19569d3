// The Kubernetes protobuf body: the magic bytes `k8s\0`, then a runtime.Unknown whose typeMeta
// names the object (apiVersion 1, kind 2), raw (2) holds the object message, and
// contentEncoding (3) and contentType (4) are written as empty strings. Watch streams carry
// WatchEvent messages without this envelope, each behind a 4-byte big-endian length, while the
// object inside every event is itself a full enveloped body.

import protobuf from 'protobufjs';
import { badRequest, type Status } from '../../errors/status-error.js';
import { messageMayRecurse, planFor, writeObjectBody, type JsonObject } from './message-plan.js';
import { MAX_NESTING_DEPTH, nestsDeeperThan } from '../../machinery/nesting.js';
import { WireWriter } from './wire-writer.js';

export const PROTOBUF_MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

export const STATUS_MESSAGE = 'k8s.io.apimachinery.pkg.apis.meta.v1.Status';
export const WATCH_EVENT_MESSAGE = 'k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent';

export interface DecodedObject {
  apiVersion: string;
  kind: string;
  /** The object in its JSON form, apiVersion and kind included. */
  object: JsonObject;
}

/** Resolves the message of a kind, e.g. ('v1', 'ConfigMap') -> 'k8s.io.api.core.v1.ConfigMap'. */
export type MessageNameFor = (apiVersion: string, kind: string) => string | undefined;

function writeEnvelope(w: WireWriter, root: protobuf.Root, messageName: string, obj: JsonObject): void {
  w.ensure(4);
  w.buf.set(PROTOBUF_MAGIC, w.pos);
  w.pos += 4;
  const typeMeta = w.beginLengthAfterTag(0x0a);
  w.uint32(0x0a);
  w.string(typeof obj.apiVersion === 'string' ? obj.apiVersion : '');
  w.uint32(0x12);
  w.string(typeof obj.kind === 'string' ? obj.kind : '');
  w.endLength(typeMeta);
  const raw = w.beginLengthAfterTag(0x12);
  writeObjectBody(w, planFor(root, messageName), obj);
  w.endLength(raw);
  w.uint32(0x1a);
  w.uint32(0);
  w.uint32(0x22);
  w.uint32(0);
}

/**
 * The full protobuf body of one object (a kind, a `<Kind>List`, a Status, ...). The object's own
 * apiVersion and kind fill the envelope's typeMeta.
 */
export function encodeObject(root: protobuf.Root, messageName: string, obj: JsonObject): Uint8Array {
  const w = new WireWriter();
  writeEnvelope(w, root, messageName, obj);
  return w.finish();
}

/** A meta/v1 Status (the body of every error) as a protobuf body. */
export function encodeStatus(root: protobuf.Root, status: Status | JsonObject): Uint8Array {
  return encodeObject(root, STATUS_MESSAGE, status as unknown as JsonObject);
}

/**
 * One watch event as it goes on a protobuf watch stream: a 4-byte big-endian length, then a
 * WatchEvent{type, object: RawExtension{raw: enveloped object}}.
 */
export function encodeWatchEventFrame(root: protobuf.Root, type: string, messageName: string, obj: JsonObject): Uint8Array {
  const w = new WireWriter();
  w.ensure(4);
  w.pos = 4;
  w.uint32(0x0a);
  w.string(type);
  const event = w.beginLengthAfterTag(0x12);
  const raw = w.beginLengthAfterTag(0x0a);
  writeEnvelope(w, root, messageName, obj);
  w.endLength(raw);
  w.endLength(event);
  const frame = w.finish();
  new DataView(frame.buffer, frame.byteOffset, 4).setUint32(0, frame.length - 4, false);
  return frame;
}

/** Splits a length-delimited stream buffer into complete frames; `rest` is an unfinished tail. */
export function splitFrames(stream: Uint8Array): { frames: Uint8Array[]; rest: Uint8Array } {
  const frames: Uint8Array[] = [];
  const view = new DataView(stream.buffer, stream.byteOffset, stream.length);
  let pos = 0;
  while (pos + 4 <= stream.length) {
    const length = view.getUint32(pos, false);
    if (pos + 4 + length > stream.length) break;
    frames.push(stream.subarray(pos + 4, pos + 4 + length));
    pos += 4 + length;
  }
  return { frames, rest: stream.subarray(pos) };
}

interface Unknown {
  apiVersion: string;
  kind: string;
  raw: Uint8Array;
  contentType: string;
}

function readUnknown(body: Uint8Array): Unknown {
  if (body.length < 4 || PROTOBUF_MAGIC.some((b, i) => body[i] !== b)) {
    throw badRequest('provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]');
  }
  const out: Unknown = { apiVersion: '', kind: '', raw: new Uint8Array(0), contentType: '' };
  const r = protobuf.Reader.create(body.subarray(4));
  while (r.pos < r.len) {
    const tag = r.uint32();
    switch (tag) {
      case 0x0a: {
        const tm = protobuf.Reader.create(r.bytes());
        while (tm.pos < tm.len) {
          const t = tm.uint32();
          if (t === 0x0a) out.apiVersion = tm.string();
          else if (t === 0x12) out.kind = tm.string();
          else tm.skipType(t & 7);
        }
        break;
      }
      case 0x12:
        out.raw = r.bytes();
        break;
      case 0x22:
        out.contentType = r.string();
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  return out;
}

/** Decodes a full protobuf body into the object's JSON form. Malformed input is a 400. */
export function decodeObject(root: protobuf.Root, body: Uint8Array, messageNameFor: MessageNameFor): DecodedObject {
  let unknown: Unknown;
  try {
    unknown = readUnknown(body);
  } catch (err) {
    if (err instanceof Error && err.name === 'StatusError') throw err;
    throw badRequest(`unable to decode protobuf envelope: ${(err as Error).message}`);
  }
  const { apiVersion, kind } = unknown;
  if (unknown.contentType !== '' && unknown.contentType !== 'application/vnd.kubernetes.protobuf') {
    throw badRequest(`the object's embedded content type ${unknown.contentType} is not protobuf`);
  }
  // The resolver sees an empty kind too: a decoder with a default kind (DeleteOptions) fills it in.
  const messageName = messageNameFor(apiVersion, kind);
  if (!messageName) throw badRequest(kind ? `no kind "${kind}" is registered for version "${apiVersion}"` : "Object 'Kind' is missing in protobuf body");
  const object: JsonObject = {};
  // A message that holds itself (JSONSchemaProps) nests as deep as the bytes say; its decoded
  // form is held to the depth JSON bodies are held to, which the walks after decoding can take.
  const tooDeep = `unable to decode ${kind} from protobuf: exceeded max depth of ${MAX_NESTING_DEPTH}`;
  try {
    planFor(root, messageName).read(unknown.raw, object);
  } catch (err) {
    if (err instanceof RangeError) throw badRequest(tooDeep);
    throw badRequest(`unable to decode ${kind} from protobuf: ${(err as Error).message}`);
  }
  if (messageMayRecurse(root, messageName) && nestsDeeperThan(object)) throw badRequest(tooDeep);
  return { apiVersion, kind, object: { apiVersion, kind, ...object } };
}

/** Decodes one WatchEvent frame body (without its length prefix) -- the client's side of a watch. */
export function decodeWatchEvent(root: protobuf.Root, frame: Uint8Array, messageNameFor: MessageNameFor): { type: string; object: JsonObject } {
  let type = '';
  let raw: Uint8Array = new Uint8Array(0);
  const r = protobuf.Reader.create(frame);
  while (r.pos < r.len) {
    const tag = r.uint32();
    if (tag === 0x0a) type = r.string();
    else if (tag === 0x12) {
      const ext = protobuf.Reader.create(r.bytes());
      while (ext.pos < ext.len) {
        const t = ext.uint32();
        if (t === 0x0a) raw = ext.bytes();
        else ext.skipType(t & 7);
      }
    } else r.skipType(tag & 7);
  }
  return { type, object: decodeObject(root, raw, messageNameFor).object };
}
