// HPACK (RFC 7541) as this client needs it. Sending: a request's few header fields as static
// table references and literals "without indexing", so this side keeps no dynamic table and
// never depends on the peer's table size. Receiving: the whole format, since Go's HTTP/2 server
// indexes what it sends in its dynamic table, Huffman-codes it and may resize the table.

import { decodeHuffman } from './huffman.js';

export type HeaderField = [name: string, value: string];

/** RFC 7541 Appendix A, from index 1. */
const STATIC_TABLE: readonly HeaderField[] = [
  [':authority', ''],
  [':method', 'GET'],
  [':method', 'POST'],
  [':path', '/'],
  [':path', '/index.html'],
  [':scheme', 'http'],
  [':scheme', 'https'],
  [':status', '200'],
  [':status', '204'],
  [':status', '206'],
  [':status', '304'],
  [':status', '400'],
  [':status', '404'],
  [':status', '500'],
  ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'],
  ['accept-language', ''],
  ['accept-ranges', ''],
  ['accept', ''],
  ['access-control-allow-origin', ''],
  ['age', ''],
  ['allow', ''],
  ['authorization', ''],
  ['cache-control', ''],
  ['content-disposition', ''],
  ['content-encoding', ''],
  ['content-language', ''],
  ['content-length', ''],
  ['content-location', ''],
  ['content-range', ''],
  ['content-type', ''],
  ['cookie', ''],
  ['date', ''],
  ['etag', ''],
  ['expect', ''],
  ['expires', ''],
  ['from', ''],
  ['host', ''],
  ['if-match', ''],
  ['if-modified-since', ''],
  ['if-none-match', ''],
  ['if-range', ''],
  ['if-unmodified-since', ''],
  ['last-modified', ''],
  ['link', ''],
  ['location', ''],
  ['max-forwards', ''],
  ['proxy-authenticate', ''],
  ['proxy-authorization', ''],
  ['range', ''],
  ['referer', ''],
  ['refresh', ''],
  ['retry-after', ''],
  ['server', ''],
  ['set-cookie', ''],
  ['strict-transport-security', ''],
  ['transfer-encoding', ''],
  ['user-agent', ''],
  ['vary', ''],
  ['via', ''],
  ['www-authenticate', ''],
];

/** Each entry's size in a dynamic table: its name and value plus 32 (RFC 7541 §4.1). */
const ENTRY_OVERHEAD = 32;

const EMPTY_BLOCK = new Uint8Array(0);

export class HpackError extends Error {}

/**
 * Reads header blocks of one connection, in order: the dynamic table carries over from block
 * to block, so every block the peer sends must go through here, even one for a stream that is
 * already gone.
 */
export class HpackDecoder {
  /** Newest first, as HPACK indexes it (index 62 is entries[0]). */
  private entries: HeaderField[] = [];
  private size = 0;
  private capacity: number;

  constructor(
    /** The most the peer may make the table: our SETTINGS_HEADER_TABLE_SIZE. */
    private readonly limit = 4096,
    /** The most a decoded block may hold (names, values and 32 per field), as SETTINGS_MAX_HEADER_LIST_SIZE advises. */
    private readonly maxListSize = 1 << 20,
  ) {
    this.capacity = limit;
  }

  /** The table's size in bytes as RFC 7541 counts it. */
  get tableSize(): number {
    return this.size;
  }

  // The block being read and where, kept on the decoder rather than in closures made per block:
  // every etcd answer brings two blocks (headers and trailers), and the closures were most of
  // what reading them allocated.
  private block: Uint8Array = EMPTY_BLOCK;
  private at = 0;
  private listSize = 0;

  decode(block: Uint8Array): HeaderField[] {
    const fields: HeaderField[] = [];
    this.block = block;
    this.at = 0;
    this.listSize = 0;
    // A table size update may only open a block (RFC 7541 §4.2).
    let opening = true;
    try {
      while (this.at < block.length) {
        const byte = block[this.at]!;
        if (byte & 0x80) {
          // Indexed field.
          const [name, value] = this.field(this.integer(7));
          this.emit(fields, name, value);
        } else if (byte & 0x40) {
          // Literal with incremental indexing: it enters the table.
          const index = this.integer(6);
          const name = index === 0 ? this.string() : this.field(index)[0];
          const value = this.string();
          this.emit(fields, name, value);
          this.add(name, value);
        } else if (byte & 0x20) {
          if (!opening) throw new HpackError('hpack: dynamic table size update after a header field');
          const capacity = this.integer(5);
          if (capacity > this.limit) throw new HpackError(`hpack: dynamic table size update to ${capacity}, above the ${this.limit} allowed`);
          this.capacity = capacity;
          this.evict(0);
          continue;
        } else {
          // Literal without indexing (0000) or never indexed (0001): the same to a reader.
          const index = this.integer(4);
          const name = index === 0 ? this.string() : this.field(index)[0];
          this.emit(fields, name, this.string());
        }
        opening = false;
      }
    } finally {
      // The decoder outlives the block; it must not keep the frame's bytes alive.
      this.block = EMPTY_BLOCK;
    }
    return fields;
  }

  private integer(prefixBits: number): number {
    const block = this.block;
    if (this.at >= block.length) throw new HpackError('hpack: header block ends inside an integer');
    const mask = (1 << prefixBits) - 1;
    let value = block[this.at++]! & mask;
    if (value < mask) return value;
    for (let shift = 0; ; shift += 7) {
      if (this.at >= block.length) throw new HpackError('hpack: header block ends inside an integer');
      // Anything past 2^28 is no sane length or index; refusing it keeps the arithmetic exact.
      if (shift > 21) throw new HpackError('hpack: integer too large');
      const byte = block[this.at++]!;
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
  }

  private string(): string {
    const block = this.block;
    if (this.at >= block.length) throw new HpackError('hpack: header block ends before a string');
    const huffman = (block[this.at]! & 0x80) !== 0;
    const length = this.integer(7);
    const at = this.at;
    if (at + length > block.length) throw new HpackError('hpack: header block ends inside a string');
    this.at = at + length;
    if (huffman) return decodeHuffman(block.subarray(at, at + length));
    return Buffer.from(block.buffer, block.byteOffset + at, length).toString('latin1');
  }

  private field(index: number): HeaderField {
    if (index === 0) throw new HpackError('hpack: index 0');
    if (index <= STATIC_TABLE.length) return STATIC_TABLE[index - 1]!;
    const entry = this.entries[index - STATIC_TABLE.length - 1];
    if (!entry) throw new HpackError(`hpack: index ${index} is past the table`);
    return entry;
  }

  private emit(fields: HeaderField[], name: string, value: string): void {
    this.listSize += name.length + value.length + ENTRY_OVERHEAD;
    if (this.listSize > this.maxListSize) throw new HpackError('hpack: header list too large');
    fields.push([name, value]);
  }

  private add(name: string, value: string): void {
    const size = name.length + value.length + ENTRY_OVERHEAD;
    // An entry larger than the whole table empties it and is not kept (RFC 7541 §4.4).
    this.evict(size);
    if (size > this.capacity) return;
    this.entries.unshift([name, value]);
    this.size += size;
  }

  /** Drops the oldest entries until `room` more bytes fit. */
  private evict(room: number): void {
    while (this.entries.length > 0 && this.size + room > this.capacity) {
      const [name, value] = this.entries.pop()!;
      this.size -= name.length + value.length + ENTRY_OVERHEAD;
    }
  }
}

/** An HPACK integer with a prefix of `prefixBits`, the first byte's high bits `flags`. */
const writeInteger = (out: number[], flags: number, prefixBits: number, value: number): void => {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    out.push(flags | value);
    return;
  }
  out.push(flags | max);
  let rest = value - max;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
};

const writeString = (out: number[], value: string): void => {
  const bytes = Buffer.from(value, 'latin1');
  writeInteger(out, 0, 7, bytes.length);
  for (const byte of bytes) out.push(byte);
};

/**
 * Encodes header fields without touching any dynamic table: a field the static table holds
 * whole is its index, a name it holds is a literal on that name, anything else a literal with
 * its name. Names must be lower case, as HTTP/2 requires.
 */
export const encodeHeaders = (fields: readonly HeaderField[]): Buffer => {
  const out: number[] = [];
  for (const [name, value] of fields) {
    const whole = STATIC_TABLE.findIndex(([n, v]) => n === name && v === value);
    if (whole >= 0) {
      writeInteger(out, 0x80, 7, whole + 1);
      continue;
    }
    const named = STATIC_TABLE.findIndex(([n]) => n === name);
    if (named >= 0) {
      writeInteger(out, 0x00, 4, named + 1);
    } else {
      out.push(0x00);
      writeString(out, name);
    }
    writeString(out, value);
  }
  return Buffer.from(out);
};
