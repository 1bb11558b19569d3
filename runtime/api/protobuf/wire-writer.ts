// A single-pass protobuf byte writer tuned for Kubernetes objects. protobufjs' Writer queues an
// operation per value and copies everything again in finish(); here bytes go straight into one
// growing Buffer. A nested message reserves one length byte and, in the rare case its body
// reaches 128 bytes, slides the body right to make room for a longer varint.

import protobuf from 'protobufjs';
import { bodyBuffer } from '../../machinery/http/lent-bodies.js';

const { LongBits } = protobuf.util;

const INITIAL_CAPACITY = 1024;

export class WireWriter {
  buf: Buffer;
  pos = 0;

  constructor(capacity = INITIAL_CAPACITY) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  private grow(need: number, forBody: boolean): void {
    // Doubling, except for a need beyond that (a list's kept items, reserved at once): then what
    // is asked plus room for the few bytes that close the message, not the next power of two.
    const size = Math.max(this.buf.length * 2, this.pos + need + INITIAL_CAPACITY);
    const next = forBody ? bodyBuffer(size) : Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /**
   * Room for `need` more bytes. `forBody`: what is written is a response body of its own (a
   * list's items), so a large buffer may be one lent for it (lent-bodies.ts).
   */
  ensure(need: number, forBody = false): void {
    if (this.pos + need > this.buf.length) this.grow(need, forBody);
  }

  /** An unsigned varint below 2^32 (tags, lengths, non-negative int32). */
  uint32(value: number): void {
    this.ensure(5);
    const buf = this.buf;
    let pos = this.pos;
    while (value > 0x7f) {
      buf[pos++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    buf[pos++] = value;
    this.pos = pos;
  }

  /** int32 as Go writes it: negative values are sign-extended to ten bytes. */
  int32(value: number): void {
    if (value >= 0) this.uint32(value);
    else this.int64(value);
  }

  /** int64 from a JS number; exact up to 2^53, which is all JSON can carry anyway. */
  int64(value: number): void {
    if (value >= 0 && value < 0x80000000) {
      this.uint32(value);
      return;
    }
    const bits = LongBits.fromNumber(value);
    this.longBits(bits.lo >>> 0, bits.hi >>> 0);
  }

  /** int64 from a bigint (Duration nanoseconds need more than 2^53). */
  int64Big(value: bigint): void {
    const u = BigInt.asUintN(64, value);
    this.longBits(Number(u & 0xffffffffn), Number(u >> 32n));
  }

  private longBits(lo: number, hi: number): void {
    this.ensure(10);
    const buf = this.buf;
    let pos = this.pos;
    while (hi !== 0) {
      buf[pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    while (lo > 0x7f) {
      buf[pos++] = (lo & 0x7f) | 0x80;
      lo >>>= 7;
    }
    buf[pos++] = lo;
    this.pos = pos;
  }

  bool(value: boolean): void {
    this.ensure(1);
    this.buf[this.pos++] = value ? 1 : 0;
  }

  double(value: number): void {
    this.ensure(8);
    this.buf.writeDoubleLE(value, this.pos);
    this.pos += 8;
  }

  /** A length-prefixed UTF-8 string. */
  string(value: string): void {
    const n = value.length;
    // Up to 42 UTF-16 units encode to at most 126 bytes, so the length is one byte: write the
    // body first, ASCII inline, and fall back to the encoder at the first wide character.
    if (n <= 42) {
      this.ensure(1 + n * 3);
      const buf = this.buf;
      const start = this.pos + 1;
      let pos = start;
      for (let i = 0; i < n; i++) {
        const c = value.charCodeAt(i);
        if (c >= 0x80) {
          pos = start + buf.write(value, start, 'utf8');
          break;
        }
        buf[pos++] = c;
      }
      buf[this.pos] = pos - start;
      this.pos = pos;
      return;
    }
    const length = Buffer.byteLength(value, 'utf8');
    this.uint32(length);
    this.ensure(length);
    this.buf.write(value, this.pos, 'utf8');
    this.pos += length;
  }

  /** Bytes as they are, no length (an already encoded message body). */
  raw(value: Uint8Array): void {
    this.ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  bytes(value: Uint8Array): void {
    this.uint32(value.length);
    this.ensure(value.length);
    this.buf.set(value, this.pos);
    this.pos += value.length;
  }

  /** Starts a length-delimited body; pass the result to endLength. */
  beginLength(): number {
    this.ensure(1);
    return this.pos++;
  }

  /** Writes a field tag and starts its length-delimited body. */
  beginLengthAfterTag(tag: number): number {
    this.uint32(tag);
    return this.beginLength();
  }

  endLength(start: number): void {
    const length = this.pos - start - 1;
    if (length < 0x80) {
      this.buf[start] = length;
      return;
    }
    let extra = 1;
    for (let v = length >>> 14; v > 0; v >>>= 7) extra++;
    this.ensure(extra);
    this.buf.copyWithin(start + 1 + extra, start + 1, this.pos);
    let pos = start;
    let v = length;
    while (v > 0x7f) {
      this.buf[pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[pos] = v;
    this.pos += extra;
  }

  /** The bytes written so far (a view, not a copy). */
  finish(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }
}
