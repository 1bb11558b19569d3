// Hostile bodies are built as JSON-shaped trees with two extra node kinds, then written in each
// wire format: `Raw` holds text no JSON value can produce (1e400, 10^5 nested brackets, invalid
// UTF-8 bytes), `Entries` an object whose keys may repeat or be raw. Keeping the tree separate from
// its encodings lets one mutation be sent as JSON, YAML, CBOR and protobuf alike.
import { stringify } from 'yaml';

export class Raw {
  constructor(
    /** The JSON (and YAML) text of the node. */
    readonly json: Buffer,
    /** Its CBOR encoding, when JSON's reading of the text is not what should be sent. */
    readonly cbor?: Uint8Array,
  ) {}

  static text(json: string, cbor?: Uint8Array): Raw {
    return new Raw(Buffer.from(json, 'utf8'), cbor);
  }
}

export class Entries {
  constructor(readonly entries: Array<[string | Raw, unknown]>) {}
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Raw) && !(v instanceof Entries);

export function clone<T>(v: T): T {
  return structuredClone(v);
}

/** Sets `value` at `path` in `root`, making the objects and arrays on the way. */
export function setAt(root: Record<string, unknown>, path: ReadonlyArray<string | number>, value: unknown): void {
  let node: unknown = root;
  for (let i = 0; i < path.length; i++) {
    const seg = path[i]!;
    const last = i === path.length - 1;
    const nextIsIndex = !last && typeof path[i + 1] === 'number';
    const container = node as Record<string | number, unknown>;
    if (last) {
      container[seg] = value;
      return;
    }
    let child = container[seg];
    if (nextIsIndex ? !Array.isArray(child) : !isObject(child)) {
      child = nextIsIndex ? [] : {};
      container[seg] = child;
    }
    if (nextIsIndex) {
      const arr = child as unknown[];
      const idx = path[i + 1] as number;
      while (arr.length <= idx) arr.push(typeof path[i + 2] === 'number' ? [] : {});
    }
    node = child;
  }
}

export function toJson(node: unknown): Buffer {
  const parts: Buffer[] = [];
  const write = (n: unknown): void => {
    if (n instanceof Raw) parts.push(n.json);
    else if (n instanceof Entries) {
      parts.push(Buffer.from('{'));
      n.entries.forEach(([k, v], i) => {
        if (i) parts.push(Buffer.from(','));
        parts.push(k instanceof Raw ? k.json : Buffer.from(JSON.stringify(k)));
        parts.push(Buffer.from(':'));
        write(v);
      });
      parts.push(Buffer.from('}'));
    } else if (Array.isArray(n)) {
      parts.push(Buffer.from('['));
      n.forEach((v, i) => {
        if (i) parts.push(Buffer.from(','));
        write(v);
      });
      parts.push(Buffer.from(']'));
    } else if (isObject(n)) {
      write(new Entries(Object.entries(n)));
    } else {
      parts.push(Buffer.from(JSON.stringify(n) ?? 'null'));
    }
  };
  write(node);
  return Buffer.concat(parts);
}

/**
 * YAML text: block style when the tree has no repeated keys, its raw nodes spliced in where they
 * stood; JSON's flow style (which is YAML too) otherwise.
 */
export function toYaml(node: unknown): Buffer {
  const raws: Raw[] = [];
  let flow = false;
  const strip = (n: unknown): unknown => {
    if (n instanceof Raw) {
      raws.push(n);
      return `RAWNODE${raws.length - 1}X`;
    }
    if (n instanceof Entries) {
      flow = true;
      return null;
    }
    if (Array.isArray(n)) return n.map(strip);
    if (isObject(n)) return Object.fromEntries(Object.entries(n).map(([k, v]) => [k, strip(v)]));
    return n;
  };
  const plain = strip(node);
  if (flow) return toJson(node);
  const text = stringify(plain, { lineWidth: 0 });
  const pieces = text.split(/RAWNODE(\d+)X/);
  return Buffer.concat(pieces.map((p, i) => (i % 2 ? raws[Number(p)]!.json : Buffer.from(p, 'utf8'))));
}

/** The tree as plain JSON values: raw nodes as JSON reads them (or their text), repeated keys last-wins. */
export function toPlain(node: unknown): unknown {
  if (node instanceof Raw) {
    try {
      return JSON.parse(node.json.toString('utf8'));
    } catch {
      return node.json.toString('utf8');
    }
  }
  if (node instanceof Entries) return Object.fromEntries(node.entries.map(([k, v]) => [k instanceof Raw ? k.json.toString('utf8') : k, toPlain(v)]));
  if (Array.isArray(node)) return node.map(toPlain);
  if (isObject(node)) return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, toPlain(v)]));
  return node;
}

// CBOR (RFC 8949), written by hand so that repeated keys, invalid UTF-8 text and odd numbers can be sent.

export function cborHead(major: number, n: number | bigint): Buffer {
  const m = major << 5;
  const v = BigInt(n);
  if (v < 24n) return Buffer.from([m | Number(v)]);
  if (v < 0x100n) return Buffer.from([m | 24, Number(v)]);
  if (v < 0x10000n) return Buffer.from([m | 25, Number(v >> 8n), Number(v & 0xffn)]);
  if (v < 0x100000000n) {
    const b = Buffer.alloc(5);
    b[0] = m | 26;
    b.writeUInt32BE(Number(v), 1);
    return b;
  }
  const b = Buffer.alloc(9);
  b[0] = m | 27;
  b.writeBigUInt64BE(v, 1);
  return b;
}

export const cborText = (s: string | Buffer): Buffer => {
  const bytes = typeof s === 'string' ? Buffer.from(s, 'utf8') : s;
  return Buffer.concat([cborHead(3, bytes.length), bytes]);
};

function cborNumber(n: number): Buffer {
  if (Number.isInteger(n) && Math.abs(n) <= Number.MAX_SAFE_INTEGER) return n >= 0 ? cborHead(0, n) : cborHead(1, -1 - n);
  const b = Buffer.alloc(9);
  b[0] = 0xfb;
  b.writeDoubleBE(n, 1);
  return b;
}

export function toCbor(node: unknown, selfDescribed = true): Buffer {
  const parts: Buffer[] = selfDescribed ? [Buffer.from([0xd9, 0xd9, 0xf7])] : [];
  const write = (n: unknown): void => {
    if (n instanceof Raw) {
      if (n.cbor) parts.push(Buffer.from(n.cbor));
      else write(toPlain(n));
    } else if (n instanceof Entries) {
      parts.push(cborHead(5, n.entries.length));
      for (const [k, v] of n.entries) {
        if (k instanceof Raw) write(k);
        else parts.push(cborText(k));
        write(v);
      }
    } else if (Array.isArray(n)) {
      parts.push(cborHead(4, n.length));
      n.forEach(write);
    } else if (isObject(n)) {
      write(new Entries(Object.entries(n)));
    } else if (typeof n === 'string') parts.push(cborText(n));
    else if (typeof n === 'number') parts.push(cborNumber(n));
    else if (n === true) parts.push(Buffer.from([0xf5]));
    else if (n === false) parts.push(Buffer.from([0xf4]));
    else parts.push(Buffer.from([0xf6]));
  };
  write(node);
  return Buffer.concat(parts);
}
