// The hand-written CBOR encoder against cbor2 as an oracle (same deterministic choices), and the
// float widths of RFC 8949's examples.
import { encode } from 'cbor2';
import { sortCoreDeterministic } from 'cbor2/sorts';
import { describe, expect, it } from 'vitest';
import { encodeJsonAsCbor } from '../../runtime/api/cbor-encode.js';

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
});
