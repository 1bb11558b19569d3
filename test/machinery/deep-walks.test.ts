// The walks over decoded JSON that every layer shares (key sorting, equality, copies, JSON text) take any
// depth JSON can reach (Go's decoders allow 10,000 levels) and keep their answers on shallow values.
import { describe, expect, it } from 'vitest';
import { deepEqual } from '../../runtime/machinery/deep-equal.js';
import { stringifyJSON } from '../../runtime/machinery/deep-json.js';
import { sortKeysDeep } from '../../runtime/machinery/go-format.js';
import { deepClone, deepEqual as semanticEqual } from '../../runtime/machinery/object.js';
import { sortedSharing, sortKeysInPlace } from '../../runtime/machinery/sorted-keys.js';

/** `levels` objects nested as member "z" of each other, each with "a" after "z" (out of order), built without recursion. */
function deepObjects(levels: number): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let at = root;
  for (let i = 1; i < levels; i++) {
    const inner: Record<string, unknown> = {};
    at.z = inner;
    at.a = i;
    at = inner;
  }
  return root;
}

/** `levels` arrays, each holding an out-of-order object and the next array. */
function deepArrays(levels: number): unknown[] {
  const root: unknown[] = [];
  let at = root;
  for (let i = 1; i < levels; i++) {
    const inner: unknown[] = [];
    at.push({ y: i, b: null }, inner);
    at = inner;
  }
  return root;
}

/** Keys in order at every level, checked with an explicit stack. */
function sortedThroughout(value: unknown): boolean {
  const pending = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (v === null || typeof v !== 'object') continue;
    if (!Array.isArray(v)) {
      const keys = Object.keys(v);
      if (keys.join('\0') !== [...keys].sort().join('\0')) return false;
    }
    pending.push(...Object.values(v as object));
  }
  return true;
}

const DEPTHS = [10_000, 100_000];

describe('sortKeysDeep', () => {
  it('copies shallow values with keys sorted, arrays in order, scalars as they are', () => {
    const value = { b: [{ d: 1, c: [2, { f: null, e: true }] }], a: 'x', '10': 1, '9': 2 };
    const sorted = sortKeysDeep(value) as Record<string, unknown>;
    expect(JSON.stringify(sorted)).toBe('{"9":2,"10":1,"a":"x","b":[{"c":[2,{"e":true,"f":null}],"d":1}]}');
    expect(sorted.b).not.toBe(value.b);
    expect(Object.keys(value)).toEqual(['9', '10', 'b', 'a']);
    expect(sortKeysDeep('s')).toBe('s');
    expect(sortKeysDeep(null)).toBe(null);
  });

  it.each([
    ['sortKeysDeep', sortKeysDeep],
    ['sortedSharing', sortedSharing],
  ])('%s copies an object of many members, a __proto__ member among them, as own members in order', (_, sort) => {
    const members = Array.from({ length: 30 }, (_, i) => `"k${String(29 - i).padStart(2, '0')}":${i}`);
    const value = JSON.parse(`{${members.join(',')},"__proto__":{"polluted":true}}`) as Record<string, unknown>;
    const sorted = sort(value) as Record<string, unknown>;
    expect(Object.keys(sorted)).toEqual([...Object.keys(value)].sort());
    expect(Object.getPrototypeOf(sorted)).toBe(Object.prototype);
    expect(Object.hasOwn(sorted, '__proto__')).toBe(true);
    expect((sorted as { polluted?: unknown }).polluted).toBeUndefined();
    expect(sorted).not.toBe(value);
    expect(JSON.parse(JSON.stringify(sorted))).toEqual(JSON.parse(JSON.stringify(value)));
  });

  it.each(DEPTHS)('copies objects and arrays nested %i levels', (levels) => {
    const objects = deepObjects(levels);
    const sorted = sortKeysDeep(objects);
    expect(sortedThroughout(sorted)).toBe(true);
    expect(deepEqual(sorted, objects)).toBe(true);
    expect(sortedThroughout(objects)).toBe(false);
    const arrays = deepArrays(levels);
    const sortedArrays = sortKeysDeep(arrays);
    expect(sortedThroughout(sortedArrays)).toBe(true);
    expect(deepEqual(sortedArrays, arrays)).toBe(true);
  });
});

describe('sortKeysInPlace', () => {
  it('keeps objects already in order and replaces the others by sorted copies', () => {
    const inOrder = { a: { b: 1, c: [{ d: 1 }] } };
    expect(sortKeysInPlace(inOrder)).toBe(inOrder);
    const inner = { y: 1, x: { q: 1, p: 2 } };
    const value = { a: [inner], b: 2 };
    const result = sortKeysInPlace(value) as typeof value;
    expect(result).toBe(value);
    expect(JSON.stringify(result)).toBe('{"a":[{"x":{"p":2,"q":1},"y":1}],"b":2}');
    const outOfOrder = { b: { d: 1, c: 2 }, a: 1 };
    expect(JSON.stringify(sortKeysInPlace(outOfOrder))).toBe('{"a":1,"b":{"c":2,"d":1}}');
  });

  it.each(DEPTHS)('sorts objects and arrays nested %i levels', (levels) => {
    const expected = sortKeysDeep(deepObjects(levels));
    const sorted = sortKeysInPlace(deepObjects(levels));
    expect(sortedThroughout(sorted)).toBe(true);
    expect(deepEqual(sorted, expected)).toBe(true);
    const arrays = sortKeysInPlace(deepArrays(levels));
    expect(sortedThroughout(arrays)).toBe(true);
    expect(deepEqual(arrays, deepArrays(levels))).toBe(true);
  });
});

describe('sortedSharing', () => {
  it('shares every part in order, copies the parts out of order and their parents, and leaves the value as it was', () => {
    const inOrder = { a: { b: 1, c: [{ d: 1 }, 'x'] } };
    expect(sortedSharing(inOrder)).toBe(inOrder);
    const leaf = { p: {}, q: [1, 2] };
    const unsorted = { y: 1, x: 2 };
    const list = [leaf, unsorted, 'z'];
    const value = { m: leaf, l: list, a: { k: 1 } };
    const before = JSON.stringify(value);
    const sorted = sortedSharing(value) as Record<string, unknown>;
    expect(JSON.stringify(sorted)).toBe('{"a":{"k":1},"l":[{"p":{},"q":[1,2]},{"x":2,"y":1},"z"],"m":{"p":{},"q":[1,2]}}');
    expect(JSON.stringify(value)).toBe(before);
    expect(sorted).not.toBe(value);
    expect(sorted.m).toBe(leaf);
    expect(sorted.a).toBe(value.a);
    const sortedList = sorted.l as unknown[];
    expect(sortedList).not.toBe(list);
    expect(sortedList[0]).toBe(leaf);
    expect(sortedList[1]).not.toBe(unsorted);
    // In order itself, with an out-of-order member after members kept as they are.
    const tail = { a: 1, b: { d: 1, c: 2 } };
    const sortedTail = sortedSharing(tail) as Record<string, unknown>;
    expect(sortedTail).not.toBe(tail);
    expect(JSON.stringify(sortedTail)).toBe('{"a":1,"b":{"c":2,"d":1}}');
    expect(JSON.stringify(tail)).toBe('{"a":1,"b":{"d":1,"c":2}}');
    expect(sortedSharing('s')).toBe('s');
    expect(sortedSharing(null)).toBe(null);
  });

  it('keeps a __proto__ member as an own member when it copies the members before an out-of-order one', () => {
    const kept = JSON.parse('{"__proto__":{"x":1},"b":{"d":1,"c":2}}') as Record<string, unknown>;
    const sortedKept = sortedSharing(kept) as Record<string, unknown>;
    expect(Object.hasOwn(sortedKept, '__proto__')).toBe(true);
    expect(JSON.stringify(sortedKept)).toBe('{"__proto__":{"x":1},"b":{"c":2,"d":1}}');
  });

  it.each(DEPTHS)('gives what sortKeysDeep gives for objects and arrays nested %i levels', (levels) => {
    const objects = deepObjects(levels);
    const sorted = sortedSharing(objects);
    expect(sortedThroughout(sorted)).toBe(true);
    expect(deepEqual(sorted, sortKeysDeep(objects))).toBe(true);
    expect(sortedThroughout(objects)).toBe(false);
    const arrays = deepArrays(levels);
    expect(sortedThroughout(sortedSharing(arrays))).toBe(true);
    expect(deepEqual(sortedSharing(arrays), arrays)).toBe(true);
  });
});

describe('deepEqual', () => {
  it('compares as semantic DeepEqual after a round trip: absent equals empty', () => {
    expect(deepEqual({ a: [1, { b: 'x' }] }, { a: [1, { b: 'x' }] })).toBe(true);
    expect(deepEqual({ a: [1, { b: 'x' }] }, { a: [1, { b: 'y' }] })).toBe(false);
    expect(deepEqual({ a: {}, b: [] }, {})).toBe(true);
    expect(deepEqual({}, { a: null, b: [] })).toBe(true);
    expect(deepEqual({ a: 1 }, {})).toBe(false);
    expect(deepEqual({}, { a: 0 })).toBe(false);
    expect(deepEqual([1, 2], [1, 2, 3])).toBe(false);
    expect(deepEqual([1], { 0: 1 })).toBe(false);
    expect(deepEqual('1', 1)).toBe(false);
  });

  it('reads only own members, whatever they are named', () => {
    const withProto = JSON.parse('{"__proto__":{"x":1}}') as unknown;
    expect(deepEqual(withProto, {})).toBe(false);
    expect(deepEqual({}, withProto)).toBe(false);
    expect(deepEqual(withProto, JSON.parse('{"__proto__":{"x":1}}'))).toBe(true);
    expect(deepEqual({ constructor: 'x' }, {})).toBe(false);
    expect(deepEqual({}, { constructor: 'x' })).toBe(false);
    expect(deepEqual({}, { toString: {} })).toBe(true);
  });

  it.each(DEPTHS)('compares values nested %i levels, finding a difference at the bottom', (levels) => {
    expect(deepEqual(deepObjects(levels), deepObjects(levels))).toBe(true);
    expect(deepEqual(deepArrays(levels), deepArrays(levels))).toBe(true);
    const changed = deepObjects(levels);
    let at = changed;
    while (at.z && Object.keys(at.z).length > 0) at = at.z as Record<string, unknown>;
    at.a = 'other';
    expect(deepEqual(deepObjects(levels), changed)).toBe(false);
    expect(deepEqual(changed, deepObjects(levels))).toBe(false);
  });
});

describe('stringifyJSON', () => {
  const shallow = { b: [1, 'two', null, true, { c: {} }, [], undefined, () => 1], a: { d: undefined, e: 'x<>&\u2028"\\', f: new Date(0) }, '': -0.5e-7 };

  it('writes what JSON.stringify writes, compact and indented', () => {
    expect(stringifyJSON(shallow)).toBe(JSON.stringify(shallow));
    expect(stringifyJSON(shallow, 2)).toBe(JSON.stringify(shallow, null, 2));
    expect(stringifyJSON('s')).toBe('"s"');
    expect(stringifyJSON(undefined)).toBe('null');
  });

  it.each(DEPTHS)('writes objects and arrays nested %i levels, as JSON.parse reads them back', (levels) => {
    const objects = deepObjects(levels);
    const text = stringifyJSON(objects);
    expect(text.startsWith('{"z":{"z":')).toBe(true);
    expect(deepEqual(JSON.parse(text), objects)).toBe(true);
    const arrays = deepArrays(levels);
    expect(deepEqual(JSON.parse(stringifyJSON(arrays)), arrays)).toBe(true);
  });

  it('indents a value too deep for the native writer as JSON.stringify indents a shallow one', () => {
    // Indented text grows with the square of the depth: 6,000 levels are 72 MB.
    const levels = 6_000;
    const text = stringifyJSON(deepObjects(levels), 2);
    expect(text.split('\n', 4)).toEqual(['{', '  "z": {', '    "z": {', '      "z": {']);
    expect(deepEqual(JSON.parse(text), deepObjects(levels))).toBe(true);
  });
});

describe('deepClone and the semantic deepEqual of object.ts', () => {
  it('copies shallow values, own __proto__ members as members', () => {
    const value = JSON.parse('{"a":[1,{"b":null}],"__proto__":{"x":1}}') as Record<string, unknown>;
    const copy = deepClone(value);
    expect(copy).not.toBe(value);
    expect(semanticEqual(copy, value)).toBe(true);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['a', '__proto__']);
  });

  it.each(DEPTHS)('copies and compares values nested %i levels', (levels) => {
    const objects = deepObjects(levels);
    const copy = deepClone(objects);
    // (vitest's matchers walk their operands recursively: deep values are compared as booleans)
    expect(copy === objects).toBe(false);
    expect(semanticEqual(copy, objects)).toBe(true);
    expect(semanticEqual(deepClone(deepArrays(levels)), deepArrays(levels))).toBe(true);
    let at = copy;
    while (at.z && Object.keys(at.z).length > 0) at = at.z as Record<string, unknown>;
    at.a = 'other';
    expect(semanticEqual(copy, objects)).toBe(false);
    expect(semanticEqual({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(semanticEqual({ a: {} }, {})).toBe(false);
  });

  it('compares members by name, however many each side has set', () => {
    expect(semanticEqual({ a: 1, b: 2 }, { a: 1, c: 2 })).toBe(false);
    expect(semanticEqual({ a: undefined, b: 1 }, { c: undefined, b: 1 })).toBe(true);
    expect(semanticEqual({ a: 1 }, { a: 1, b: undefined })).toBe(true);
    expect(semanticEqual({ a: null }, {})).toBe(false);
    expect(semanticEqual({}, { a: null })).toBe(false);
    // A member named like one of Object.prototype's is compared with the other side's own member.
    expect(semanticEqual(JSON.parse('{"constructor":"x"}'), {})).toBe(false);
    expect(semanticEqual(JSON.parse('{"toString":{}}'), JSON.parse('{"toString":{}}'))).toBe(true);
  });
});
