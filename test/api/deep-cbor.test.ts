// CBOR responses of values nested deeper than a recursive writer's stack allows (JSON may nest
// 10,000 levels; kube-apiserver's encoder writes them, though its decoder takes only 64).
import { describe, expect, it } from 'vitest';
import { encodeCBOR } from '../../runtime/api/cbor.js';

/** The self-described CBOR prefix (tag 55799) encodeCBOR starts with. */
const SELF_DESCRIBED = [0xd9, 0xd9, 0xf7];

describe('encodeCBOR of deep values', () => {
  it.each([10, 300, 10_000])('writes %i nested maps and arrays, byte for byte', (levels) => {
    // {"a": [{"a": [ ... {} ... ]}]}: a map of one key "a" (a1, and strings as byte strings as
    // kube-apiserver writes them: 41 61) holding an array of one item (81).
    const root: Record<string, unknown> = {};
    let at = root;
    for (let i = 1; i < levels; i++) {
      const next: Record<string, unknown> = {};
      at.a = [next];
      at = next;
    }
    const expected = [...SELF_DESCRIBED, ...new Array<number[]>(levels - 1).fill([0xa1, 0x41, 0x61, 0x81]).flat(), 0xa0];
    expect(Buffer.from(encodeCBOR(root)).equals(Buffer.from(expected))).toBe(true);
  });

  it('writes keys in CBOR core deterministic order and scalars at depth', () => {
    const deep: Record<string, unknown> = {};
    let at = deep;
    for (let i = 1; i < 400; i++) {
      const next: Record<string, unknown> = {};
      at.a = next;
      at = next;
    }
    at.bb = true;
    at.c = null;
    at.a = [1, 'x'];
    const bytes = Buffer.from(encodeCBOR(deep));
    // The innermost map: "a", "c" (one byte each, in byte order), then "bb".
    const tail = Buffer.from([0xa3, 0x41, 0x61, 0x82, 0x01, 0x41, 0x78, 0x41, 0x63, 0xf6, 0x42, 0x62, 0x62, 0xf5]);
    expect(bytes.subarray(bytes.length - tail.length).equals(tail)).toBe(true);
    expect(bytes.length).toBe(SELF_DESCRIBED.length + 3 * 399 + tail.length);
  });
});
