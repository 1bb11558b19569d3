// Hostility below the object: what each wire format's own syntax allows a client to get wrong.
// Truncations and byte flips for all of them; YAML alias bombs, tags and multi-documents; CBOR
// indefinite lengths, unknown tags and lengths past the end; protobuf envelopes with a wrong magic,
// lying lengths, wrong wire types and groups nested past any stack.
import protobuf from 'protobufjs';
import { encodeMessage, encodeObject, type JsonObject } from '../../runtime/api/protobuf/index.js';
import { cborHead, cborText } from './body-tree.js';
import type { Prng } from './prng.js';

export interface WireBody {
  body: Buffer;
  what: string;
}

/** Damage any encoding can suffer on the way. */
export function damage(prng: Prng, body: Buffer): WireBody {
  switch (prng.int(6)) {
    case 0: {
      const at = prng.int(Math.max(1, body.length));
      return { body: body.subarray(0, at), what: `truncated at byte ${at} of ${body.length}` };
    }
    case 1: {
      const copy = Buffer.from(body);
      const n = 1 + prng.int(4);
      for (let i = 0; i < n && copy.length; i++) copy[prng.int(copy.length)] = prng.int(256);
      return { body: copy, what: `${n} byte(s) overwritten` };
    }
    case 2:
      return { body: Buffer.alloc(0), what: 'empty body' };
    case 3: {
      const junk = Buffer.from(Array.from({ length: 1 + prng.int(512) }, () => prng.int(256)));
      return { body: junk, what: `${junk.length} random bytes` };
    }
    case 4:
      return { body: Buffer.concat([body, Buffer.from(prng.pick(['}', ']', ' x', '\u0000', '{}', '\n---\n{}']))]), what: 'trailing data' };
    default:
      return { body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]), what: 'byte order mark first' };
  }
}

/** Documents that are no single object of the kind. */
export function notAnObject(prng: Prng, format: 'json' | 'yaml' | 'cbor'): WireBody {
  const choices: Array<[string, string, number[]]> = [
    ['array', '[]', [0x80]],
    ['string', '"x"', [0x61, 0x78]],
    ['number', '1', [0x01]],
    ['null', 'null', [0xf6]],
    ['true', 'true', [0xf5]],
    ['array of objects', '[{"kind":"ConfigMap"}]', [0x81, 0xa0]],
  ];
  const [what, text, cbor] = prng.pick(choices);
  return { body: format === 'cbor' ? Buffer.from([0xd9, 0xd9, 0xf7, ...cbor]) : Buffer.from(text), what: `top-level ${what}` };
}

/** YAML's own weapons. */
export function yamlHostility(prng: Prng, apiVersion: string, kind: string, name: string): WireBody {
  const head = `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: ${name}\n`;
  switch (prng.int(9)) {
    case 0: {
      // Billion laughs: nine levels of ten aliases each, 10^9 strings if expanded.
      const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
      for (let i = 1; i < 9; i++) {
        const p = String.fromCharCode(96 + i);
        const c = String.fromCharCode(97 + i);
        lines.push(`${c}: &${c} [${Array(10).fill(`*${p}`).join(',')}]`);
      }
      return { body: Buffer.from(`${head}data:\n${lines.map((l) => '  ' + l).join('\n')}\n`), what: 'YAML alias bomb under data' };
    }
    case 1: {
      const lines = ['x0: &x0 [a, a]', ...Array.from({ length: 30 }, (_, i) => `x${i + 1}: &x${i + 1} [*x${i}, *x${i}]`)];
      return { body: Buffer.from(`${head}${lines.join('\n')}\n`), what: 'YAML alias doubling (2^31) at the top level' };
    }
    case 2:
      return { body: Buffer.from(`${head}data:\n  k: !!binary aGVsbG8=\n  t: !!timestamp 2001-12-14\n  c: !custom x\n  f: !!float .nan\n  i: .inf\n`), what: 'YAML tags' };
    case 3:
      return { body: Buffer.from(`${head}---\n${head}`), what: 'two YAML documents' };
    case 4:
      return { body: Buffer.from(`base: &base {labels: {a: b}}\n${head.replace('metadata:\n', 'metadata:\n  <<: *base\n')}`), what: 'YAML merge key' };
    case 5:
      return { body: Buffer.from(`${head}? [complex, key]\n: value\n? {a: 1}\n: v\n`), what: 'YAML complex keys' };
    case 6:
      return { body: Buffer.from(`${head}data: ${'['.repeat(50_000)}${']'.repeat(50_000)}\n`), what: 'YAML 50000 nested flow sequences' };
    case 7:
      return { body: Buffer.from(`${head}data:\n  a: *undefined\n`), what: 'YAML alias to no anchor' };
    default:
      return { body: Buffer.from(`${head}\tdata: {}\n%YAML 9.9\n`), what: 'YAML tab indentation and a directive' };
  }
}

/** CBOR's own weapons. */
export function cborHostility(prng: Prng): WireBody {
  const sd = [0xd9, 0xd9, 0xf7];
  const map1 = (k: string, v: Buffer) => Buffer.concat([cborHead(5, 1), cborText(k), v]);
  const choices: Array<[string, Buffer]> = [
    ['indefinite-length map', Buffer.from([...sd, 0xbf, 0x64, ...Buffer.from('kind'), 0x62, 0x76, 0x31, 0xff])],
    ['indefinite-length text', Buffer.from([...sd, 0xa1, 0x64, ...Buffer.from('kind'), 0x7f, 0x61, 0x61, 0xff])],
    ['unknown tag around the object', Buffer.from([...sd, 0xd9, 0x12, 0x34, 0xa0])],
    ['tag 22 around text', Buffer.concat([Buffer.from(sd), map1('kind', Buffer.from([0xd6, 0x61, 0x78]))])],
    ['byte string length 2^64-1', Buffer.from([...sd, 0x5b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])],
    ['map of 2^32 entries declared', Buffer.from([...sd, 0xba, 0xff, 0xff, 0xff, 0xff])],
    ['array of 2^64-1 items declared', Buffer.from([...sd, 0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])],
    ['undefined as a value', Buffer.concat([Buffer.from(sd), map1('kind', Buffer.from([0xf7]))])],
    ['simple value 99', Buffer.concat([Buffer.from(sd), map1('kind', Buffer.from([0xf8, 99]))])],
    ['half-float NaN', Buffer.concat([Buffer.from(sd), map1('metadata', Buffer.from([0xf9, 0x7e, 0x00]))])],
    ['bignum tag', Buffer.concat([Buffer.from(sd), map1('metadata', Buffer.from([0xc2, 0x49, 1, 0, 0, 0, 0, 0, 0, 0, 0]))])],
    ['self-described tag 100000 times', Buffer.concat([Buffer.alloc(3 * 100_000).fill(Buffer.from(sd)), Buffer.from([0xa0])])],
    ['reserved additional information 28', Buffer.from([...sd, 0xbc])],
    ['break outside an indefinite item', Buffer.from([...sd, 0xff])],
    ['integer map key', Buffer.from([...sd, 0xa1, 0x01, 0x02])],
    ['map key that is a map', Buffer.from([...sd, 0xa1, 0xa0, 0x02])],
    ['200000 nested tags', Buffer.concat([Buffer.from(sd), Buffer.alloc(2 * 200_000).fill(Buffer.from([0xd8, 0x20])), Buffer.from([0xa0])])],
  ];
  const [what, body] = prng.pick(choices);
  return { body, what: `CBOR ${what}` };
}

function varint(n: bigint): number[] {
  const out: number[] = [];
  do {
    let b = Number(n & 0x7fn);
    n >>= 7n;
    if (n > 0n) b |= 0x80;
    out.push(b);
  } while (n > 0n);
  return out;
}

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

function envelope(apiVersion: string, kind: string, raw: Buffer, extra: number[] = []): Buffer {
  const typeMeta = Buffer.from([0x0a, ...varint(BigInt(apiVersion.length)), ...Buffer.from(apiVersion), 0x12, ...varint(BigInt(kind.length)), ...Buffer.from(kind)]);
  return Buffer.concat([Buffer.from(MAGIC), Buffer.from([0x0a, ...varint(BigInt(typeMeta.length))]), typeMeta, Buffer.from([0x12, ...varint(BigInt(raw.length))]), raw, Buffer.from(extra)]);
}

/**
 * A protobuf body of the object: its encoding when the encoder takes the (possibly wrong-typed)
 * object, else a broken envelope around whatever could be made.
 */
export function protobufBody(prng: Prng, root: protobuf.Root, messageName: string, obj: JsonObject, fallback: JsonObject): WireBody {
  let good: Buffer;
  let what = 'protobuf of the changed object';
  try {
    good = Buffer.from(encodeObject(root, messageName, obj));
  } catch {
    good = Buffer.from(encodeObject(root, messageName, fallback));
    what = 'protobuf of the valid object (the change has no protobuf form)';
  }
  if (prng.chance(0.45)) return { body: good, what };
  const apiVersion = String(fallback.apiVersion ?? '');
  const kind = String(fallback.kind ?? '');
  const raw = Buffer.from(encodeMessage(root, messageName, fallback));
  const choices: Array<() => WireBody> = [
    () => ({ body: good.subarray(4), what: 'protobuf without the magic' }),
    () => ({ body: Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x01]), good.subarray(4)]), what: 'protobuf with a wrong magic' }),
    () => ({ body: Buffer.from(MAGIC), what: 'protobuf magic only' }),
    () => ({ body: envelope(apiVersion, kind, Buffer.alloc(0)), what: 'protobuf envelope with empty raw' }),
    () => ({ body: envelope('v1', 'Secret', raw), what: 'protobuf envelope naming another kind' }),
    () => ({ body: envelope('', '', raw), what: 'protobuf envelope without typeMeta' }),
    () => ({ body: envelope(apiVersion, kind, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f])), what: 'protobuf field length 2^32 in raw' }),
    () => ({ body: envelope(apiVersion, kind, Buffer.from([0x08, ...Array(11).fill(0xff), 0x01])), what: 'protobuf overlong varint' }),
    () => ({ body: envelope(apiVersion, kind, Buffer.from([0x0b, 0x0b, 0x0c])), what: 'protobuf wrong wire type (group) for metadata' }),
    () => ({ body: envelope(apiVersion, kind, Buffer.concat([Buffer.alloc(100_000, 0xfb).fill(Buffer.from([0xfb, 0x3e])), Buffer.alloc(100_000).fill(Buffer.from([0xfc, 0x3e]))])), what: 'protobuf 50000 nested groups in an unknown field' }),
    () => ({ body: envelope(apiVersion, kind, Buffer.from([0x0a, 0x05, 0x0a, 0x03, 0xff, 0xfe, 0xfd])), what: 'protobuf invalid UTF-8 name' }),
    () => ({ body: envelope(apiVersion, kind, Buffer.from([0xf8, 0xff, 0xff, 0xff, 0x0f, 0x01])), what: 'protobuf field number 2^29-1' }),
    () => ({ body: envelope(apiVersion, kind, Buffer.from([0x07])), what: 'protobuf reserved wire type 7' }),
    () => ({ body: envelope(apiVersion, kind, raw, [0x1a, 0x04, ...Buffer.from('gzip')]), what: 'protobuf envelope with contentEncoding gzip' }),
    () => ({ body: envelope(apiVersion, kind, Buffer.from('{"metadata":{}}'), [0x22, 0x10, ...Buffer.from('application/json')]), what: 'protobuf envelope carrying JSON' }),
    () => ({ body: Buffer.concat([Buffer.from(MAGIC), Buffer.from([0x12, 0xff, 0xff, 0xff, 0xff, 0x07])]), what: 'protobuf raw length past the end' }),
    () => {
      const at = 4 + prng.int(Math.max(1, good.length - 4));
      return { body: good.subarray(0, at), what: `protobuf truncated at byte ${at} of ${good.length}` };
    },
  ];
  return prng.pick(choices)();
}
