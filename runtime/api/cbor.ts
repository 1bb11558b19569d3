// CBOR (RFC 8949) bodies as kube-apiserver writes and reads them behind CBORServingAndStorage.
// Its encoder (k8s.io/apimachinery .../serializer/cbor) makes these choices, mirrored here:
//   - every document starts with the self-described CBOR tag 55799 (bytes d9 d9 f7);
//   - map keys are sorted bytewise by their encoding (RFC 8949 core deterministic order);
//   - strings, map keys included, are written as byte strings, not text strings;
//   - Go []byte values (Secret data, `format: byte`) are tag 22 around a byte string of the raw
//     bytes, where JSON has base64 text;
//   - floats take the shortest width that keeps their value; integers stay integers;
//   - no indefinite lengths.
// The decoder takes text or byte strings alike, refuses repeated map keys, and yields the same
// JSON-shaped objects every other decoder produces. Tags 21-23 ("expected later encoding") turn
// the byte strings inside them into base64url, base64 or hex text, as kube's decoder does for
// strings; at a []byte place a tagged byte string is the raw bytes, an untagged one is base64
// text, and a text string is refused when the body is decoded as its kind. Other tags stand for
// their content. A watch is a CBOR sequence (RFC 8742): each event is one self-described data item,
// written back to back.

import { decode, decodeSequence, Tag } from 'cbor2';
import { BYTES, byteShapeFor, itemShape, memberShape, type ByteShape } from './cbor-bytes.js';
import { encodeJsonAsCbor } from './cbor-encode.js';
import { base64ErrorOffset } from '../machinery/go-base64.js';
import { setMember } from '../machinery/own-member.js';
import { badRequest } from '../errors/status-error.js';

/** The self-described CBOR tag (55799) kube-apiserver prefixes to each document. */
export const SELF_DESCRIBED_CBOR = Uint8Array.of(0xd9, 0xd9, 0xf7);

const text = new TextDecoder('utf-8', { fatal: true });

/** One CBOR document, self-described, as kube-apiserver sends it; []byte places from the object's kind. */
export function encodeCBOR(value: unknown): Uint8Array {
  return encodeJsonAsCbor(SELF_DESCRIBED_CBOR, value, shapeOfObject(value));
}

/** One watch event ({type, object}) as a self-described document. */
export function encodeCBORWatchEvent(type: string, object: unknown): Uint8Array {
  const shape = shapeOfObject(object);
  return encodeJsonAsCbor(SELF_DESCRIBED_CBOR, { type, object }, shape && { properties: new Map([['object', shape]]) });
}

function shapeOfObject(value: unknown): ByteShape | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { apiVersion, kind } = value as { apiVersion?: unknown; kind?: unknown };
  return byteShapeFor(apiVersion, kind);
}

function stringOf(bytesOrText: unknown): string {
  if (typeof bytesOrText === 'string') return bytesOrText;
  if (bytesOrText instanceof Uint8Array) return text.decode(bytesOrText);
  throw new Error(`cbor: map key of type ${typeof bytesOrText} is not a string`);
}

/** A value that cannot become the kind's typed form; the message is the Go decoder's. */
export class CborTypeError extends Error {}

/** What the walk needs: the Go name of the struct whose fields it is in (v1.Secret), when typed. */
interface Walk {
  struct?: string;
  /** The top-level field the walk is under: Go's decoder names it in type errors. */
  field?: string;
  /** The innermost enclosing tag 21, 22 or 23. */
  later?: number;
}

function textForLaterEncoding(bytes: Uint8Array, tag: number): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  if (tag === 21) return buf.toString('base64url');
  if (tag === 22) return buf.toString('base64');
  return buf.toString('hex');
}

/** A []byte value: tagged raw bytes, or base64 text in an untagged byte string. */
function bytesValue(value: unknown, walk: Walk): unknown {
  if (value instanceof Uint8Array) {
    if (walk.later !== undefined) return Buffer.from(value.buffer, value.byteOffset, value.length).toString('base64');
    const b64 = text.decode(value);
    const offset = base64ErrorOffset(b64);
    if (offset !== undefined) throw new CborTypeError(`cbor: failed to decode base64 from byte string: illegal base64 data at input byte ${offset}`);
    // Go keeps the bytes; their JSON form is the canonical base64 of them.
    return Buffer.from(b64, 'base64').toString('base64');
  }
  if (typeof value === 'string' && walk.struct) {
    const where = walk.field ? `Go struct field ${walk.struct}.${walk.field}` : 'Go value';
    throw new CborTypeError(`cbor: cannot unmarshal UTF-8 text string into ${where} of type []uint8`);
  }
  return fromCborShape(value, undefined, walk);
}

/** A decoded CBOR item back in JSON shape: byte and text strings both become strings. */
function fromCborShape(value: unknown, shape: ByteShape | undefined, walk: Walk): unknown {
  if (value instanceof Tag) {
    const tag = Number(value.tag);
    return fromCborShape(value.contents, shape, tag >= 21 && tag <= 23 ? { ...walk, later: tag } : walk);
  }
  if (shape === BYTES) return bytesValue(value, walk);
  if (value instanceof Uint8Array) return walk.later === undefined ? text.decode(value) : textForLaterEncoding(value, walk.later);
  if (Array.isArray(value)) {
    const item = itemShape(shape);
    return value.map((v) => fromCborShape(v, item, walk));
  }
  if (value instanceof Map) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of value) {
      const key = stringOf(k instanceof Tag ? k.contents : k);
      const inner = walk.struct && walk.field === undefined ? { ...walk, field: key } : walk;
      setMember(out, key, fromCborShape(v, memberShape(shape, key), inner));
    }
    return out;
  }
  if (typeof value === 'bigint') return Number(value);
  return value;
}

/** kube's CBOR decoder (fxamacker/cbor, MaxNestedLevels) refuses arrays, maps and tags nested deeper. */
export const CBOR_MAX_NESTED_LEVELS = 64;

/** A body nested past CBOR_MAX_NESTED_LEVELS, in fxamacker/cbor's words. */
export class CborNestingError extends Error {
  constructor() {
    super(`cbor: exceeded max nested level ${CBOR_MAX_NESTED_LEVELS}`);
  }
}

/** Whether a decoded item nests arrays, maps and tags past the limit; an explicit stack, so any depth is safe. */
function nestsTooDeep(item: unknown, levelsAbove: number): boolean {
  const items: unknown[] = [item];
  const levels: number[] = [levelsAbove];
  while (items.length > 0) {
    const v = items.pop();
    const above = levels.pop()!;
    let children: Iterable<unknown>;
    if (v instanceof Tag) children = [v.contents];
    else if (Array.isArray(v)) children = v;
    else if (v instanceof Map) children = [...v.keys(), ...v.values()];
    else continue;
    if (above + 1 > CBOR_MAX_NESTED_LEVELS) return true;
    for (const child of children) {
      items.push(child);
      levels.push(above + 1);
    }
  }
  return false;
}

// cbor2 counts up to two of its levels for each of ours; its own bound only keeps its recursion short.
const CBOR2_MAX_DEPTH = 4 * CBOR_MAX_NESTED_LEVELS;

function decodeItem(body: Uint8Array, levelsAbove: number): unknown {
  let item: unknown;
  try {
    item = decode(body, { preferMap: true, rejectDuplicateKeys: true, rejectStreaming: true, maxDepth: CBOR2_MAX_DEPTH });
  } catch (err) {
    if (/^Maximum depth \d+ exceeded$/.test((err as Error).message)) throw new CborNestingError();
    throw badRequest(`cbor: ${(err as Error).message}`);
  }
  if (nestsTooDeep(item, levelsAbove)) throw new CborNestingError();
  return item;
}

/**
 * Decodes one CBOR document (with or without the self-described tag). Malformed input,
 * repeated keys and trailing bytes are a 400 with the decoder's complaint; nesting past kube's
 * limit is a CborNestingError, which each caller words as kube's endpoint does. Without a `typed`
 * kind the result is what an unstructured decode gives (tagged []byte as base64, other strings
 * as text); with one, its []byte places are read as kube reads them into the Go type and a
 * value that does not fit is a CborTypeError.
 */
export function decodeCBOR(bytes: Uint8Array, typed?: { apiVersion: string; kind: string }): unknown {
  let body = bytes;
  // The self-described tag is a tag like any other to the nesting limit.
  let levelsAbove = 0;
  if (bytes.length >= 3 && bytes[0] === 0xd9 && bytes[1] === 0xd9 && bytes[2] === 0xf7) {
    body = bytes.subarray(3);
    levelsAbove = 1;
  }
  const item = decodeItem(body, levelsAbove);
  const version = typed ? typed.apiVersion.slice(typed.apiVersion.lastIndexOf('/') + 1) : '';
  try {
    if (!typed) return fromCborShape(item, undefined, {});
    return fromCborShape(item, byteShapeFor(typed.apiVersion, typed.kind), { struct: `${version}.${typed.kind}` });
  } catch (err) {
    if (err instanceof CborTypeError && typed) {
      throw badRequest(`${typed.kind} in version ${JSON.stringify(version)} cannot be handled as a ${typed.kind}: ${err.message}`);
    }
    // A byte string that is not UTF-8 where a string belongs.
    throw badRequest(`cbor: ${(err as Error).message}`);
  }
}

/** The items of a CBOR sequence (a watch stream), each in JSON shape; the self-described tag is dropped. */
export function decodeCBORSequence(bytes: Uint8Array): unknown[] {
  try {
    return [...decodeSequence(bytes, { preferMap: true, rejectDuplicateKeys: true, rejectStreaming: true })].map((item) => fromCborShape(item, undefined, {}));
  } catch (err) {
    throw badRequest(`cbor: ${(err as Error).message}`);
  }
}
