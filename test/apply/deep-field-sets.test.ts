// Field sets as deep as managedFields may nest (fieldsV1 is free-form JSON in every kind, and Go's
// decoders take 10,000 levels): read, written and combined without running out of stack, with the
// answers they give on shallow sets.
import { describe, expect, it } from 'vitest';
import { stringifyJSON } from '../../runtime/machinery/deep-json.js';
import { FieldSet } from '../../runtime/registry/apply/fieldpath.js';

const LEVELS = 10_000;

/**
 * FieldsV1 of `levels` nested "f:a" objects, each a member itself (".") with a member "f:b" beside
 * it, the deepest holding `leaf` too; keys in FieldsV1 order. Built without recursion.
 */
function chain(levels: number, leaf = 'f:z'): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  let at = root;
  for (let level = 1; level <= levels; level++) {
    const node: Record<string, unknown> = { '.': {} };
    at['f:a'] = node;
    if (level > 1) at['f:b'] = {};
    at = node;
  }
  at['f:b'] = {};
  at[leaf] = {};
  return root;
}

const as = (n: number) => new Array<string>(n).fill('f:a');
/** The path of the deepest member of chain(levels, leaf). */
const deepest = (levels: number, leaf = 'f:z') => [...as(levels), leaf];

describe('FieldSet at 10,000 levels', () => {
  it('reads FieldsV1 and writes it back as it was', () => {
    const fields = chain(LEVELS);
    const set = FieldSet.fromFieldsV1(fields);
    expect(set.has(deepest(LEVELS))).toBe(true);
    expect(set.has(as(LEVELS))).toBe(true);
    expect(set.has([...as(LEVELS - 1), 'f:b'])).toBe(true);
    expect(set.has([...as(LEVELS), 'f:a'])).toBe(false);
    // Compared as text: the written form nests as deep as the set.
    expect(stringifyJSON(set.toFieldsV1())).toBe(stringifyJSON(fields));
    expect(set.empty()).toBe(false);
    expect(stringifyJSON(set.clone().toFieldsV1())).toBe(stringifyJSON(fields));
  });

  it('combines deep sets: union, difference, intersection, withoutPrefixes, paths', () => {
    const a = FieldSet.fromFieldsV1(chain(LEVELS));
    const b = FieldSet.fromFieldsV1(chain(LEVELS, 'f:y'));
    const union = a.union(b);
    expect(union.has(deepest(LEVELS))).toBe(true);
    expect(union.has(deepest(LEVELS, 'f:y'))).toBe(true);
    const difference = a.difference(b);
    expect(difference.paths()).toEqual([deepest(LEVELS)]);
    expect(a.difference(a).empty()).toBe(true);
    const intersection = a.intersection(b);
    expect(intersection.has(deepest(LEVELS))).toBe(false);
    expect(intersection.has(as(LEVELS))).toBe(true);
    expect(intersection.equals(a.difference(difference))).toBe(true);
    const prefix = FieldSet.of(as(LEVELS / 2));
    const without = a.withoutPrefixes(prefix);
    expect(without.has(deepest(LEVELS))).toBe(false);
    expect(without.has([...as(LEVELS / 2 - 1), 'f:b'])).toBe(true);
    expect(without.has(as(LEVELS / 2))).toBe(false);
    // Every path of a deep set is as long as the set is deep: counted on a shallower one.
    const paths = FieldSet.fromFieldsV1(chain(300)).paths();
    expect(paths.length).toBe(2 * 300 + 1);
    expect(paths.slice(0, 3)).toEqual([['f:a'], as(2), as(3)]);
    expect(paths.at(-1)).toEqual(['f:a', 'f:b']);
  });

  it('refuses what is not FieldsV1 at any depth, naming where', () => {
    const bad = '{"f:a":'.repeat(LEVELS) + '{"x":{}}' + '}'.repeat(LEVELS);
    expect(() => FieldSet.fromFieldsV1(JSON.parse(bad))).toThrow('unexpected FieldsV1 key "x"');
    const notObject = '{"f:a":'.repeat(3) + '{"f:b":[1]}' + '}'.repeat(3);
    expect(() => FieldSet.fromFieldsV1(JSON.parse(notObject))).toThrow('expected an object in FieldsV1 at ["f:a","f:a","f:a","f:b"]');
    expect(() => FieldSet.fromFieldsV1([])).toThrow('expected an object in FieldsV1 at []');
  });
});
