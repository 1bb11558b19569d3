// The CBOR encoder behind application/cbor responses, written for the one shape we encode (JSON
// values) with kube-apiserver's choices: strings and map keys as byte strings, map keys in core
// deterministic order (RFC 8949 section 4.2.1: by the bytes of their encoding, which for byte
// strings means shorter first, then bytewise), integers as integers, floats in the shortest width
// that keeps their value, definite lengths only. A general library re-encodes keys to sort them and
// was hundreds of times slower on a list of 1,000 objects.

import { BYTES, itemShape, memberShape, type ByteShape } from './cbor-bytes.js';

const F32 = new Float32Array(1);
const U32 = new Uint32Array(F32.buffer);

class Writer {
  buf: Buffer;
  len = 0;

  constructor(capacity: number) {
    // Never from Buffer's shared pool: the scratch writer keeps its buffer across encodes.
    this.buf = Buffer.allocUnsafeSlow(capacity);
  }

  ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.len + n));
    this.buf.copy(next, 0, 0, this.len);
    this.buf = next;
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.len++] = b;
  }

  /** A major type with its argument in the shortest form. */
  head(major: number, n: number): void {
    const m = major << 5;
    this.ensure(9);
    if (n < 24) this.buf[this.len++] = m | n;
    else if (n < 0x100) {
      this.buf[this.len++] = m | 24;
      this.buf[this.len++] = n;
    } else if (n < 0x10000) {
      this.buf[this.len++] = m | 25;
      this.buf.writeUInt16BE(n, this.len);
      this.len += 2;
    } else if (n < 0x100000000) {
      this.buf[this.len++] = m | 26;
      this.buf.writeUInt32BE(n, this.len);
      this.len += 4;
    } else {
      this.buf[this.len++] = m | 27;
      this.buf.writeBigUInt64BE(BigInt(n), this.len);
      this.len += 8;
    }
  }

  bytesOfString(s: string): void {
    const n = s.length;
    // Keys and most values are short ASCII: copied by character, which skips Buffer's UTF-8
    // machinery (two calls per string); a head under 24 is one byte, so the characters go right
    // after it, and anything else leaves the slot to the general path below.
    if (n < 24) {
      this.ensure(n + 1);
      const buf = this.buf;
      const at = this.len + 1;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) break;
        buf[at + i] = c;
      }
      if (i === n) {
        buf[this.len] = 0x40 | n;
        this.len = at + n;
        return;
      }
    }
    const bytes = Buffer.byteLength(s, 'utf8');
    this.head(2, bytes);
    this.ensure(bytes);
    this.len += this.buf.write(s, this.len, 'utf8');
  }

  /** Bytes already encoded, as they are. */
  raw(bytes: Uint8Array): void {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }
}

/** The half-precision bits of `v` when that width holds it exactly, else undefined. */
function toHalf(v: number): number | undefined {
  F32[0] = v;
  if (F32[0] !== v) return undefined;
  const bits = U32[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = (bits >>> 23) & 0xff;
  const mant = bits & 0x7fffff;
  if (exp === 0 && mant === 0) return sign;
  const e = exp - 127 + 15;
  if (e >= 31) return undefined;
  if (e <= 0) {
    // Subnormal half: the value must be a multiple of 2^-24.
    const shift = 14 - e;
    const full = mant | 0x800000;
    if (shift > 24 || (full & ((1 << shift) - 1)) !== 0) return undefined;
    return sign | (full >>> shift);
  }
  if ((mant & 0x1fff) !== 0) return undefined;
  return sign | (e << 10) | (mant >>> 13);
}

function number(w: Writer, v: number): void {
  if (Number.isSafeInteger(v) && !Object.is(v, -0)) {
    if (v >= 0) w.head(0, v);
    else w.head(1, -1 - v);
    return;
  }
  if (!Number.isFinite(v)) throw new Error('cbor: cannot encode NaN or infinite values');
  const half = toHalf(v);
  w.ensure(9);
  if (half !== undefined) {
    w.buf[w.len++] = 0xf9;
    w.buf.writeUInt16BE(half, w.len);
    w.len += 2;
  } else if (Math.fround(v) === v) {
    w.buf[w.len++] = 0xfa;
    w.buf.writeFloatBE(v, w.len);
    w.len += 4;
  } else {
    w.buf[w.len++] = 0xfb;
    w.buf.writeDoubleBE(v, w.len);
    w.len += 8;
  }
}

const asciiOrder = (a: string, b: string): number => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);

function byteOrder(a: string, b: string): number {
  const ba = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return ba.length - bb.length || Buffer.compare(ba, bb);
}

/**
 * Core deterministic order of byte-string keys: shorter encodings first, then bytewise. For ASCII
 * keys (nearly all) length and UTF-16 order are byte length and byte order, so one check per map
 * spares the byte comparisons.
 */
function sortKeys(keys: string[]): string[] {
  if (keys.length < 2) return keys;
  for (const k of keys) {
    for (let i = 0; i < k.length; i++) if (k.charCodeAt(i) > 0x7f) return keys.sort(byteOrder);
  }
  return keys.sort(asciiOrder);
}

/** The keys of the members of `obj` that are not undefined, in core deterministic order. */
function sortedKeys(obj: Record<string, unknown>): string[] {
  const keys = Object.keys(obj);
  for (const k of keys) if (obj[k] === undefined) return sortKeys(keys.filter((k) => obj[k] !== undefined));
  return sortKeys(keys);
}

/**
 * Levels written by recursion, the quickest for the shallow objects nearly every response holds;
 * below them a value (JSON may nest 10,000 levels) is written with an explicit stack.
 */
const RECURSIVE_LEVELS = 256;

function value(w: Writer, v: unknown, depth = 0): void {
  if (typeof v === 'string') w.bytesOfString(v);
  else if (typeof v === 'number') number(w, v);
  else if (typeof v === 'boolean') w.byte(v ? 0xf5 : 0xf4);
  else if (v === null) w.byte(0xf6);
  else if (typeof v === 'object' && depth === RECURSIVE_LEVELS) valueIteratively(w, v);
  else if (Array.isArray(v)) {
    w.head(4, v.length);
    for (const item of v) value(w, item === undefined ? null : item, depth + 1);
  } else if (typeof v === 'object') {
    const keys = sortedKeys(v as Record<string, unknown>);
    w.head(5, keys.length);
    for (const k of keys) {
      w.bytesOfString(k);
      value(w, (v as Record<string, unknown>)[k], depth + 1);
    }
  } else if (typeof v === 'bigint') {
    if (v >= 0n) w.head(0, Number(v));
    else w.head(1, Number(-1n - v));
  } else throw new Error(`cbor: cannot encode a value of type ${typeof v}`);
}

/** A map key still to write, told apart on the stack from the values. */
class Key {
  constructor(readonly name: string) {}
}

/** `value` with an explicit stack: a container writes its head, then stacks its contents in reverse. */
function valueIteratively(w: Writer, root: object): void {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const v = pending.pop();
    if (v instanceof Key) w.bytesOfString(v.name);
    else if (v === null || typeof v !== 'object') value(w, v);
    else if (Array.isArray(v)) {
      w.head(4, v.length);
      for (let i = v.length - 1; i >= 0; i--) pending.push(v[i] === undefined ? null : v[i]);
    } else {
      const keys = sortedKeys(v as Record<string, unknown>);
      w.head(5, keys.length);
      for (let i = keys.length - 1; i >= 0; i--) pending.push((v as Record<string, unknown>)[keys[i]], new Key(keys[i]));
    }
  }
}

/** Tag 22, "expected later base64 encoding": what kube-apiserver wraps a Go []byte's bytes in. */
const TAG_BASE64_LATER = 0xd6;

/**
 * A value with []byte places: those strings (base64 in our JSON form) go out as tag 22 and a byte
 * string of the bytes they stand for; everything else as `value` writes it.
 */
function shaped(w: Writer, v: unknown, shape: ByteShape | undefined): void {
  if (shape === undefined) return value(w, v);
  if (shape === BYTES) {
    if (typeof v !== 'string') return value(w, v);
    const bytes = Buffer.from(v, 'base64');
    w.byte(TAG_BASE64_LATER);
    w.head(2, bytes.length);
    w.ensure(bytes.length);
    bytes.copy(w.buf, w.len);
    w.len += bytes.length;
    return;
  }
  if (Array.isArray(v)) {
    const item = itemShape(shape);
    w.head(4, v.length);
    for (const x of v) shaped(w, x === undefined ? null : x, item);
  } else if (v !== null && typeof v === 'object' && !(v instanceof Uint8Array)) {
    const keys = sortedKeys(v as Record<string, unknown>);
    w.head(5, keys.length);
    for (const k of keys) {
      w.bytesOfString(k);
      shaped(w, (v as Record<string, unknown>)[k], memberShape(shape, k));
    }
  } else value(w, v);
}

/** Capacity of the scratch writer, and the most it keeps between encodes. */
const SCRATCH_BYTES = 64 * 1024;
const KEPT_SCRATCH_BYTES = 1024 * 1024;

/**
 * One writer for every encode: encoding is synchronous, so no two use it at once, and a response
 * or watch event costs one allocation of its exact size instead of a fresh 64 KiB buffer and then
 * a copy. A buffer grown past KEPT_SCRATCH_BYTES (a large list) is let go after its encode.
 */
let scratch = new Writer(SCRATCH_BYTES);

function begin(prefix: Uint8Array): Writer {
  const w = scratch;
  w.len = 0;
  w.raw(prefix);
  return w;
}

function end(w: Writer): void {
  if (w.buf.length > KEPT_SCRATCH_BYTES) scratch = new Writer(SCRATCH_BYTES);
}

/** `prefix` then the encoding of a JSON value, with the []byte places of `shape` as raw bytes. */
export function encodeJsonAsCbor(prefix: Uint8Array, v: unknown, shape?: ByteShape): Uint8Array {
  const w = begin(prefix);
  try {
    shaped(w, v, shape);
    return new Uint8Array(w.buf.buffer, w.buf.byteOffset, w.len).slice();
  } finally {
    end(w);
  }
}

/** A member of a map whose value is encoded already: one data item, or the items of an array. */
export interface EncodedMember {
  name: string;
  /** The encoded data items, each complete. */
  parts: readonly Uint8Array[];
  /** Whether the value is an array of `parts` rather than `parts[0]` alone. */
  array: boolean;
}

/**
 * encodeJsonAsCbor of the map `obj` with the value of one member taken from bytes encoded
 * earlier (a list's items, a watch event's object), in one allocation of the exact size: the rest
 * of the map is written first, then the whole copied out around the parts.
 */
export function encodeJsonAsCborWith(
  prefix: Uint8Array,
  obj: Record<string, unknown>,
  shape: ByteShape | undefined,
  member: EncodedMember,
  /** Where the result goes: a response body of its own may be given a lent buffer (lent-bodies.ts). */
  allocate: (size: number) => Buffer = Buffer.allocUnsafeSlow,
): Uint8Array {
  const w = begin(prefix);
  try {
    let keys = sortedKeys(obj);
    if (!keys.includes(member.name)) keys = sortKeys([...keys, member.name]);
    w.head(5, keys.length);
    let at = -1;
    for (const k of keys) {
      w.bytesOfString(k);
      if (k !== member.name) shaped(w, obj[k], memberShape(shape, k));
      else {
        if (member.array) w.head(4, member.parts.length);
        at = w.len;
      }
    }
    let length = w.len;
    for (const part of member.parts) length += part.length;
    const out = allocate(length);
    out.set(w.buf.subarray(0, at), 0);
    let pos = at;
    for (const part of member.parts) {
      out.set(part, pos);
      pos += part.length;
    }
    out.set(w.buf.subarray(at, w.len), pos);
    return out;
  } finally {
    end(w);
  }
}
