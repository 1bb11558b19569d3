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
  buf = Buffer.allocUnsafe(64 * 1024);
  len = 0;

  ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.len + n));
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
    const n = Buffer.byteLength(s, 'utf8');
    this.head(2, n);
    this.ensure(n);
    this.len += this.buf.write(s, this.len, 'utf8');
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
  return keys.sort(/^[\x00-\x7f]*$/.test(keys.join('')) ? asciiOrder : byteOrder);
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
    const keys = sortKeys(Object.keys(v as object).filter((k) => (v as Record<string, unknown>)[k] !== undefined));
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
      const keys = sortKeys(Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined));
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
    const keys = sortKeys(Object.keys(v).filter((k) => (v as Record<string, unknown>)[k] !== undefined));
    w.head(5, keys.length);
    for (const k of keys) {
      w.bytesOfString(k);
      shaped(w, (v as Record<string, unknown>)[k], memberShape(shape, k));
    }
  } else value(w, v);
}

/** `prefix` then the encoding of a JSON value, with the []byte places of `shape` as raw bytes. */
export function encodeJsonAsCbor(prefix: Uint8Array, v: unknown, shape?: ByteShape): Uint8Array {
  const w = new Writer();
  w.ensure(prefix.length);
  w.buf.set(prefix, 0);
  w.len = prefix.length;
  shaped(w, v, shape);
  return new Uint8Array(w.buf.buffer, w.buf.byteOffset, w.len).slice();
}
