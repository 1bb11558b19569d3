// Protocol buffers' wire format, as far as etcd's KV messages need it: varints (int64 and bool
// fields) and length-delimited fields (bytes and nested messages). Every number etcd sends here is
// a revision, count or version, far below 2^53, so they are read into plain numbers.

const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

/** Builds one message. A nested message is built by its own writer and added as bytes. */
export class ProtoWriter {
  private readonly parts: Buffer[] = [];
  private pending: number[] = [];
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
    this.flush();
    this.parts.push(value);
    this.length += value.length;
    return this;
  }

  message(field: number, value: ProtoWriter): this {
    return this.bytes(field, value.finish(), true);
  }

  finish(): Buffer {
    this.flush();
    return this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.length);
  }

  private tag(field: number, wireType: number): void {
    this.rawVarint(field * 8 + wireType);
  }

  private rawVarint(value: number): void {
    if (value < 0) throw new RangeError(`protobuf: negative value ${value} in a varint field`);
    while (value > 0x7f) {
      this.pending.push((value % 128) | 0x80);
      value = Math.floor(value / 128);
      this.length++;
    }
    this.pending.push(value);
    this.length++;
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    this.parts.push(Buffer.from(this.pending));
    this.pending = [];
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

  /** A bytes field's value (a copy, so it outlives the response buffer's reuse). */
  bytes(): Buffer {
    const [start, end] = this.span();
    return Buffer.from(this.buf.subarray(start, end));
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
