// The hand-written CBOR encoder against cbor2 as an oracle (same deterministic choices), and the
// float widths of RFC 8949's examples.
import { encode } from 'cbor2';
import { sortCoreDeterministic } from 'cbor2/sorts';
import { describe, expect, it } from 'vitest';
import { encodeJsonAsCbor, encodeJsonAsCborWith } from '../../runtime/api/cbor-encode.js';

const utf8 = new TextEncoder();
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** What kube's encoder is fed: strings and keys as byte strings. */
function oracleShape(v: unknown): unknown {
  if (typeof v === 'string') return utf8.encode(v);
  if (Array.isArray(v)) return v.map(oracleShape);
  if (v !== null && typeof v === 'object') return new Map(Object.entries(v).map(([k, x]) => [utf8.encode(k), oracleShape(x)]));
  return v;
}
const oracle = (v: unknown) => hex(encode(oracleShape(v), { sortKeys: sortCoreDeterministic }));
const ours = (v: unknown) => hex(encodeJsonAsCbor(new Uint8Array(0), v));

/** A small deterministic generator of JSON values (no Math.random: failures must reproduce). */
function* values(seed: number, count: number): Generator<unknown> {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
  const scalar = (): unknown => {
    const r = rnd();
    if (r < 0.2) return Math.floor(rnd() * 2 ** (1 + Math.floor(rnd() * 52))) * (rnd() < 0.3 ? -1 : 1);
    if (r < 0.35) return (rnd() - 0.5) * 10 ** Math.floor(rnd() * 12 - 4);
    if (r < 0.7) return 'xé€😀'.repeat(Math.floor(rnd() * 4)) + 'k'.repeat(Math.floor(rnd() * 30));
    if (r < 0.85) return rnd() < 0.5;
    return null;
  };
  const build = (depth: number): unknown => {
    const r = rnd();
    if (depth > 3 || r < 0.4) return scalar();
    if (r < 0.65) return Array.from({ length: Math.floor(rnd() * 5) }, () => build(depth + 1));
    const obj: Record<string, unknown> = {};
    for (let i = Math.floor(rnd() * 6); i > 0; i--) obj[`${'ab€'.repeat(Math.floor(rnd() * 3))}k${Math.floor(rnd() * 300)}`] = build(depth + 1);
    return obj;
  };
  for (let i = 0; i < count; i++) yield build(0);
}

describe('CBOR encoder', () => {
  it('matches the oracle byte for byte on generated JSON values', () => {
    for (const v of values(7, 500)) expect(ours(v)).toBe(oracle(v));
  });

  it.each([
    [1.5, 'f93e00'],
    [65504, '19ffe0'],
    [65504.5, 'fa477fe080'],
    [0.00006103515625, 'f90400'],
    [5.960464477539063e-8, 'f90001'],
    [100000.5, 'fa47c35040'],
    [3.4028234663852886e38, 'fa7f7fffff'],
    [1.1, 'fb3ff199999999999a'],
    [-4.1, 'fbc010666666666666'],
    [1e300, 'fb7e37e43c8800759c'],
    [-0.5, 'f9b800'],
  ])('writes %d in the shortest width: %s', (v, expected) => {
    expect(ours(v)).toBe(expected);
  });

  it('orders keys shorter first, then bytewise, and skips undefined members', () => {
    expect(ours({ bb: 1, a: 2, ab: 3, c: undefined })).toBe(oracle({ a: 2, ab: 3, bb: 1 }));
  });

  it('refuses values JSON cannot hold', () => {
    expect(() => encodeJsonAsCbor(new Uint8Array(0), Number.NaN)).toThrow('cbor');
  });

  it('writes strings of every length around the one-byte head, with non-ASCII anywhere, as the oracle', () => {
    for (let n = 0; n <= 26; n++) {
      const ascii = 'a'.repeat(n);
      expect(ours(ascii)).toBe(oracle(ascii));
      expect(ours({ [ascii || 'e']: ascii })).toBe(oracle({ [ascii || 'e']: ascii }));
      for (const odd of ['\u007f', '\u0080', 'é', '€', '😀']) {
        for (const at of [0, Math.floor(n / 2), n]) {
          const s = ascii.slice(0, at) + odd + ascii.slice(at);
          expect(ours(s)).toBe(oracle(s));
          expect(ours({ [s]: 1, [ascii]: s })).toBe(oracle({ [s]: 1, [ascii]: s }));
        }
      }
    }
  });

  it('hands out bytes of their own: a later encode, however large, changes no earlier result', () => {
    const first = encodeJsonAsCbor(new Uint8Array(0), { a: 'first' });
    const kept = hex(first);
    const large = encodeJsonAsCbor(new Uint8Array(0), { big: 'z'.repeat(3 * 1024 * 1024) });
    expect(large.length).toBe(3 * 1024 * 1024 + 1 + 4 + 5);
    const second = encodeJsonAsCbor(Uint8Array.of(0xd9, 0xd9, 0xf7), { a: 'second' });
    expect(hex(first)).toBe(kept);
    expect(hex(second)).toBe(`d9d9f7${oracle({ a: 'second' })}`);
    expect(first.buffer.byteLength).toBe(first.length);
  });

  it('writes a map around a member encoded earlier as the whole map is written', () => {
    const prefix = Uint8Array.of(0xd9, 0xd9, 0xf7);
    const items = [{ b: 1, a: ['x'] }, { é: null }, 'z'.repeat(30)];
    const parts = items.map((item) => encodeJsonAsCbor(new Uint8Array(0), item));
    const lists = [{ kind: 'L', apiVersion: 'v1', metadata: { continue: 'c', resourceVersion: '7' }, items: [] as unknown[] }, { items: [] as unknown[] }, { zzzzzz: 1 }, { 'itemé': 2, a: undefined }];
    for (const list of lists) {
      const whole = hex(encodeJsonAsCbor(prefix, { ...list, items }));
      expect(hex(encodeJsonAsCborWith(prefix, list, undefined, { name: 'items', parts, array: true }))).toBe(whole);
    }
    const event = hex(encodeJsonAsCbor(prefix, { type: 'ADDED', object: items[0] }));
    expect(hex(encodeJsonAsCborWith(prefix, { type: 'ADDED' }, undefined, { name: 'object', parts: [parts[0]], array: false }))).toBe(event);
    expect(hex(encodeJsonAsCborWith(prefix, { items: [] }, undefined, { name: 'items', parts: [], array: true }))).toBe(hex(encodeJsonAsCbor(prefix, { items: [] })));
  });
});
