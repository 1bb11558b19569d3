// Hostile changes to an object, at the places its schema has: each returns the changed tree and a
// short description that names the path, so a failure says what was sent.
import { Entries, Raw, cborHead, cborText, clone, setAt } from './body-tree.js';
import type { Prng } from './prng.js';
import type { Site, SiteType } from './schema-sites.js';

export interface Mutated {
  tree: unknown;
  what: string;
}

const WRONG_VALUES: Record<string, unknown> = {
  string: 'fuzz',
  integer: 7,
  number: 2.5,
  boolean: true,
  object: { fuzz: 'x' },
  array: ['x', 1],
  null: null,
};

const ACCEPTS: Record<SiteType, string[]> = {
  string: ['string'],
  integer: ['integer'],
  number: ['integer', 'number'],
  boolean: ['boolean'],
  object: ['object'],
  map: ['object'],
  array: ['array'],
  quantity: ['string', 'integer', 'number'],
  'int-or-string': ['string', 'integer'],
  byte: ['string'],
  time: ['string'],
  any: [],
};

/** Numbers Go's types cannot hold, or hold only after surprising conversions. */
const HUGE_NUMBERS = [
  '1e400',
  '-1e400',
  '1e-400',
  '9223372036854775808',
  '-9223372036854775809',
  '18446744073709551616',
  '2147483648',
  '-2147483649',
  '4294967296',
  '1.5',
  '-0',
  '1E2',
  '123456789012345678901234567890123456789012345678901234567890',
  '0.' + '1'.repeat(2000),
];

/** Strings that quantity, int-or-string and time fields parse. */
const HOSTILE_SCALAR_TEXTS = ['-5', '1e400', '99999999999999999999999999999Ei', '0.000000000000000000001', '1e-400m', 'NaN', 'Inf', '+Inf', '--1', '1.2.3', '9223372036854775807k', '0x10', ' 1', '1 ', '', '9999-99-99T99:99:99Z', '2024-02-30T00:00:00Z', '10000-01-01T00:00:00Z'];

/** Byte sequences that are not UTF-8: a lone continuation, an overlong NUL, an encoded surrogate, a code point past U+10FFFF, a cut sequence. */
export const INVALID_UTF8 = [[0xff], [0x80], [0xc0, 0x80], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xfe, 0xfe, 0xff, 0xff]].map((b) => Buffer.from(b));

/** Field names kube warns about (unknown fields), some of which no HTTP header may carry as they are. */
const ODD_FIELD_NAMES = ['ключ', '字段', 'emoji😀', 'tab\there', 'new\nline', 'nul\u0000', 'quote"d', 'back\\slash', 'del\u007f', '\u2028sep', '$patch', 'a'.repeat(70_000), 'é'.repeat(5_000)];

function wrongTypeFor(prng: Prng, type: SiteType): [string, unknown] {
  const accepted = ACCEPTS[type];
  const choices = Object.keys(WRONG_VALUES).filter((t) => !accepted.includes(t) && !(t === 'null' && prng.chance(0.7)));
  const t = prng.pick(choices);
  return [t, clone(WRONG_VALUES[t])];
}

/** Nested arrays or objects, written as raw text (and CBOR) so that no serializer recurses. */
export function deepNest(depth: number, objects: boolean): Raw {
  const json = objects ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth) : '['.repeat(depth) + ']'.repeat(depth);
  const cbor = objects
    ? Buffer.concat([Buffer.concat(Array.from({ length: depth }, () => Buffer.concat([cborHead(5, 1), cborText('a')]))), Buffer.from([0x01])])
    : Buffer.concat([Buffer.alloc(depth, 0x81), Buffer.from([0x80])]);
  return new Raw(Buffer.from(json), cbor);
}

/** A JSON string holding raw bytes that are not UTF-8 (CBOR: a text string with the same bytes). */
export function badUtf8String(prng: Prng): Raw {
  const bad = prng.pick(INVALID_UTF8);
  const content = Buffer.concat([Buffer.from('ab'), bad, Buffer.from('cd')]);
  if (prng.chance(0.25)) {
    // A lone surrogate escape: valid JSON syntax, no valid Unicode.
    return Raw.text(prng.pick(['"\\ud800"', '"x\\udfffy"', '"\\ud800\\u0041"']), cborText(content));
  }
  return new Raw(Buffer.concat([Buffer.from('"'), content, Buffer.from('"')]), cborText(content));
}

function hugeNumber(prng: Prng, site: Site): Raw {
  if (['quantity', 'int-or-string', 'time', 'string'].includes(site.type) && prng.chance(0.6)) {
    return Raw.text(JSON.stringify(prng.pick(HOSTILE_SCALAR_TEXTS)));
  }
  const text = prng.pick(HUGE_NUMBERS);
  let cbor: Buffer | undefined;
  if (text === '1e400' || text === '-1e400') {
    cbor = Buffer.alloc(9);
    cbor[0] = 0xfb;
    cbor.writeDoubleBE(text.startsWith('-') ? -Infinity : Infinity, 1);
  } else if (/^-?\d+$/.test(text) && text.length <= 20) {
    const v = BigInt(text);
    cbor = v >= 0n ? (v < 2n ** 64n ? cborHead(0, v) : undefined) : -1n - v < 2n ** 64n ? cborHead(1, -1n - v) : undefined;
  }
  return Raw.text(text, cbor);
}

function pickSite(prng: Prng, sites: Site[], types?: SiteType[]): Site {
  const pool = types ? sites.filter((s) => types.includes(s.type)) : sites;
  return prng.pick(pool.length ? pool : sites);
}

const showPath = (path: ReadonlyArray<string | number>) => '.' + path.join('.');

/** One hostile change of `base` at a place of its schema. */
export function mutate(prng: Prng, base: Record<string, unknown>, sites: Site[]): Mutated {
  const obj = clone(base);
  const roll = prng.int(100);
  if (roll < 30) {
    const site = pickSite(prng, sites);
    const [t, value] = wrongTypeFor(prng, site.type);
    setAt(obj, site.path, value);
    return { tree: obj, what: `${t} at ${showPath(site.path)} (${site.type})` };
  }
  if (roll < 45) {
    const site = pickSite(prng, sites, ['integer', 'number', 'quantity', 'int-or-string', 'time']);
    const raw = hugeNumber(prng, site);
    setAt(obj, site.path, raw);
    return { tree: obj, what: `${raw.json.toString('utf8').slice(0, 40)} at ${showPath(site.path)} (${site.type})` };
  }
  if (roll < 53) {
    const depth = prng.pick([64, 1000, 10_000, 100_000]);
    const objects = prng.chance(0.5);
    const site = pickSite(prng, sites, ['object', 'array', 'map', 'any']);
    setAt(obj, site.path, deepNest(depth, objects));
    return { tree: obj, what: `${depth} nested ${objects ? 'objects' : 'arrays'} at ${showPath(site.path)}` };
  }
  if (roll < 63) {
    const site = pickSite(prng, sites, ['string', 'map']);
    const path = site.type === 'map' ? [...site.path, 'k'] : site.path;
    const raw = badUtf8String(prng);
    if (prng.chance(0.3)) {
      // The bytes in a key instead of a value.
      setAt(obj, site.path.slice(0, -1), new Entries([[raw, 'v']]));
      return { tree: obj, what: `invalid UTF-8 key under ${showPath(site.path.slice(0, -1))}` };
    }
    setAt(obj, path, raw);
    return { tree: obj, what: `invalid UTF-8 ${raw.json.toString('latin1').slice(0, 12)} at ${showPath(path)}` };
  }
  if (roll < 71) {
    const keys = Object.keys(obj);
    const key = prng.pick(keys.length ? keys : ['metadata']);
    const [t, other] = wrongTypeFor(prng, 'any');
    const entries: Array<[string, unknown]> = Object.entries(obj);
    entries.splice(prng.int(entries.length + 1), 0, [key, prng.chance(0.5) ? other : obj[key]]);
    return { tree: new Entries(entries), what: `duplicate key ${key} (${t})` };
  }
  if (roll < 79) {
    const site = pickSite(prng, sites, ['object']);
    const name = prng.pick(ODD_FIELD_NAMES);
    const count = prng.chance(0.2) ? 2000 : 1;
    for (let i = 0; i < count; i++) setAt(obj, [...site.path, count > 1 ? `${name.slice(0, 20)}${i}` : name], 'x');
    return { tree: obj, what: `${count} unknown field(s) ${JSON.stringify(name.slice(0, 20))}${name.length > 20 ? `…(${name.length})` : ''} under ${showPath(site.path)}` };
  }
  if (roll < 85) {
    const kindOrVersion = prng.pick(['kind', 'apiVersion']);
    const value = prng.pick<unknown>(['', 'Secret', 'v2', 'example.com/v1', 'v1/v1', '/', 7, null, { a: 1 }, 'Status', 'DeleteOptions', 'x'.repeat(10_000)]);
    if (value === null && prng.chance(0.5)) delete obj[kindOrVersion];
    else obj[kindOrVersion] = value;
    return { tree: obj, what: `${kindOrVersion}: ${JSON.stringify(value)?.slice(0, 30)}` };
  }
  if (roll < 90) {
    const site = pickSite(prng, sites);
    setAt(obj, site.path, null);
    return { tree: obj, what: `null at ${showPath(site.path)}` };
  }
  if (roll < 92) {
    const site = pickSite(prng, sites, ['string', 'byte']);
    const size = prng.pick([300_000, 1_100_000]);
    setAt(obj, site.path, 'x'.repeat(size));
    return { tree: obj, what: `${size}-character string at ${showPath(site.path)}` };
  }
  if (roll < 95) {
    const site = pickSite(prng, sites, ['array', 'map']);
    const count = prng.pick([500, 3000]);
    const value = site.type === 'array' ? Array.from({ length: count }, () => ({})) : Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 'v']));
    setAt(obj, site.path, value);
    return { tree: obj, what: `${count} members at ${showPath(site.path)}` };
  }
  // A valid-looking change, so that some writes are accepted and the storage check sees them.
  const labels = ((obj.metadata ??= {}) as Record<string, unknown>).labels as Record<string, unknown> | undefined;
  (obj.metadata as Record<string, unknown>).labels = { ...labels, fuzz: `v${prng.int(1000)}` };
  return { tree: obj, what: 'a new label value' };
}
