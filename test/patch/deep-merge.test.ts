// The merge patch and the field sets of a create on values as deep as JSON goes (Go's decoders take
// 10,000 levels): merged and collected without running out of stack, as on shallow values.
import { describe, expect, it } from 'vitest';
import { stringifyJSON } from '../../runtime/machinery/deep-json.js';
import { DEDUCED } from '../../runtime/registry/apply/schema.js';
import { applyMergePatch } from '../../runtime/registry/patch/merge-patch.js';
import { addedFields, compare } from '../../runtime/registry/patch/typed-merge.js';

const LEVELS = 10_000;

/** JSON text: `levels` objects nested as member "a", the innermost holding `inner` (members' text). */
const nested = (levels: number, inner: string) => '{"a":'.repeat(levels - 1) + `{${inner}}` + '}'.repeat(levels - 1);
const as = (n: number) => new Array<string>(n).fill('f:a');

describe('merge patch at 10,000 levels', () => {
  it('merges a deep patch into a deep target, a null deleting at the bottom', () => {
    const target = JSON.parse(nested(LEVELS, '"keep":1,"drop":2'));
    const patch = JSON.parse(nested(LEVELS, '"drop":null,"add":3'));
    const merged = applyMergePatch(target, patch);
    expect(stringifyJSON(merged)).toBe(nested(LEVELS, '"keep":1,"add":3'));
    // The target is left as it was.
    expect(stringifyJSON(target)).toBe(nested(LEVELS, '"keep":1,"drop":2'));
  });

  it('prunes the nulls of a deep value placed where the target has no object', () => {
    const patch = JSON.parse(`{"b":${nested(LEVELS, '"x":null,"y":[1,null,{"z":null}]')}}`);
    const placed: string[] = [];
    const merged = applyMergePatch({ b: 'scalar' }, patch, (_from, key) => placed.push(key));
    expect(stringifyJSON(merged)).toBe(`{"b":${nested(LEVELS, '"y":[1,{}]')}}`);
    expect(placed.filter((k) => k === 'a').length).toBe(LEVELS - 1);
  });
});

describe('field sets at 10,000 levels', () => {
  const value = () => JSON.parse(nested(LEVELS, '"leaf":true,"list":[1,2]'));

  it('collects every path a deep create writes', () => {
    const set = addedFields(value(), DEDUCED);
    expect(set.has(as(1))).toBe(true);
    expect(set.has(as(LEVELS - 1))).toBe(true);
    expect(set.has([...as(LEVELS - 1), 'f:leaf'])).toBe(true);
    expect(set.has([...as(LEVELS - 1), 'f:list'])).toBe(true);
    expect(stringifyJSON(set.toFieldsV1())).toBe('{"f:a":'.repeat(LEVELS - 1).replace(/\{"f:a":/g, (m, at) => (at === 0 ? m : '{".":{},"f:a":')) + '{".":{},"f:leaf":{},"f:list":{}}' + '}'.repeat(LEVELS - 1));
    // The same set as the general comparison from nothing.
    expect(compare(undefined, value(), DEDUCED).added.equals(set)).toBe(true);
  });

  it('compares deep values: a change at the bottom, and a deep subtree gone', () => {
    const before = value();
    const after = JSON.parse(nested(LEVELS, '"leaf":false,"list":[1,2]'));
    const changed = compare(before, after, DEDUCED);
    expect(changed.modified.paths()).toEqual([[...as(LEVELS - 1), 'f:leaf']]);
    expect(changed.added.empty() && changed.removed.empty()).toBe(true);
    const gone = compare({ a: before, b: 1 }, { b: 1 }, DEDUCED);
    expect(gone.removed.has(as(LEVELS))).toBe(true);
    expect(gone.removed.has([...as(LEVELS), 'f:leaf'])).toBe(true);
    expect(gone.added.empty() && gone.modified.empty()).toBe(true);
  });
});
