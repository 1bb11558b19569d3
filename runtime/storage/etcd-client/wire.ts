// Protocol buffers' wire format, as far as etcd's KV messages need it: varints (int64 and bool
// fields) and length-delimited fields (bytes and nested messages). Every number etcd sends here is
// a revision, count or version, far below 2^53, so they are read into plain numbers.

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

/**
 * Builds one message. A nested message is built by its own writer and added whole; nothing is
 * copied until finish(), which writes every part once into a buffer of the known length (a
 * create's Txn is a few dozen tag and length bytes around its key and value).
 */
export class ProtoWriter {
  /** The message in order: runs of tag and length bytes, and the values of bytes fields. */
  private readonly parts: Array<number[] | Buffer> = [];
  /** Tag and length bytes not yet followed by a value. */
  private run: number[] = [];
  length = 0;

  /** An int64, uint64 or enum field; proto3 leaves zero out unless it is a oneof's value (`always`). */
  varint(field: number, value: number, always = false): this {
    if (value === 0 && !always) return this;
    this.tag(field, VARINT);
    this.rawVarint(value);
    return this;
  }

  bool(field: number, value: boolean | undefined): this {
    return value ? this.varint(field, 1) : this;
  }

  /** A bytes field or a nested message; an empty one is left out (proto3's default) unless `always`. */
  bytes(field: number, value: Buffer | undefined, always = false): this {
    if (!value || (value.length === 0 && !always)) return this;
    this.tag(field, LENGTH_DELIMITED);
    this.rawVarint(value.length);
    this.parts.push(this.run, value);
    this.run = [];
    this.length += value.length;
    return this;
  }

  message(field: number, value: ProtoWriter): this {
    this.tag(field, LENGTH_DELIMITED);
    this.rawVarint(value.length);
    this.parts.push(this.run);
    for (const part of value.parts) this.parts.push(part);
    this.parts.push(value.run);
    this.run = [];
    this.length += value.length;
    return this;
  }

  /** The message, behind `reserve` bytes left for the caller (gRPC's message prefix), so it is not copied again to get them. */
  finish(reserve = 0): Buffer {
    const out = Buffer.allocUnsafe(reserve + this.length);
    let at = reserve;
    const write = (part: number[] | Buffer): void => {
      if (Array.isArray(part)) {
        for (let i = 0; i < part.length; i++) out[at++] = part[i]!;
      } else {
        out.set(part, at);
        at += part.length;
      }
    };
    for (const part of this.parts) write(part);
    write(this.run);
    return out;
  }

  private tag(field: number, wireType: number): void {
    this.rawVarint(field * 8 + wireType);
  }

  private rawVarint(value: number): void {
    if (value < 0) throw new RangeError(`protobuf: negative value ${value} in a varint field`);
    while (value > 0x7f) {
      this.run.push((value % 128) | 0x80);
      value = Math.floor(value / 128);
      this.length++;
    }
    this.run.push(value);
    this.length++;
  }
}

/** Reads one message's fields in order; `next()` is false at its end. */
export class ProtoReader {
  private pos: number;
  field = 0;
  private wireType = 0;

  constructor(
    private readonly buf: Buffer,
    start = 0,
    private readonly end = buf.length,
  ) {
    this.pos = start;
  }

  next(): boolean {
    if (this.pos >= this.end) return false;
    const tag = this.readVarint();
    this.field = Math.floor(tag / 8);
    this.wireType = tag % 8;
    return true;
  }

  varint(): number {
    return this.readVarint();
  }

  bool(): boolean {
    return this.readVarint() !== 0;
  }

  /**
   * A bytes field's value, a view into the message: the storage turns keys and values into
   * strings as it reads them, so a copy would only be made to be dropped. A caller that keeps
   * the bytes copies them (a view keeps the whole socket chunk it lies in alive).
   */
  bytes(): Buffer {
    const [start, end] = this.span();
    return this.buf.subarray(start, end);
  }

  /** A reader over a nested message. */
  message(): ProtoReader {
    const [start, end] = this.span();
    return new ProtoReader(this.buf, start, end);
  }

  /** Passes over a field this client does not read. */
  skip(): void {
    switch (this.wireType) {
      case VARINT:
        this.readVarint();
        return;
      case FIXED64:
        this.advance(8);
        return;
      case LENGTH_DELIMITED:
        this.span();
        return;
      case FIXED32:
        this.advance(4);
        return;
      default:
        throw new Error(`protobuf: wire type ${this.wireType} is not supported`);
    }
  }

  private span(): [number, number] {
    const length = this.readVarint();
    const start = this.pos;
    this.advance(length);
    return [start, start + length];
  }

  private advance(n: number): void {
    if (this.pos + n > this.end) throw new Error('protobuf: message ends inside a field');
    this.pos += n;
  }

  private readVarint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new Error('protobuf: message ends inside a varint');
      const byte = this.buf[this.pos++]!;
      result += (byte & 0x7f) * scale;
      if (byte < 0x80) return result;
      scale *= 128;
    }
    throw new Error('protobuf: varint longer than 10 bytes');
  }
}
