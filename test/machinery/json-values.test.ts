// The JSON accessors hand-written rules read untrusted request bodies through.

import { describe, expect, it } from 'vitest';
import { asList, asObject, asObjectList, asString, isPlainObject, isSet } from '../../runtime/machinery/json-values.js';

describe('JSON value accessors', () => {
  it('asObject gives a plain object back as is and {} for anything else', () => {
    const o = { a: 1 };
    expect(asObject(o)).toBe(o);
    for (const v of [undefined, null, 0, '', 'x', true, [], [1]]) expect(asObject(v)).toEqual({});
    expect(isPlainObject([])).toBe(false);
    expect(isPlainObject(null)).toBe(false);
  });

  it('asObjectList keeps every item at its index, a non-object one as {}', () => {
    const b = { name: 'b' };
    const items = asObjectList([null, 'x', b, 7]);
    expect(items).toEqual([{}, {}, { name: 'b' }, {}]);
    // The object items are the caller's own, so rules that fill defaults write into the request.
    expect(items[2]).toBe(b);
    expect(asObjectList({ 0: b })).toEqual([]);
  });

  it('asList and asString fall back to the empty value of their type', () => {
    const l = [1, null];
    expect(asList(l)).toBe(l);
    expect(asList('x')).toEqual([]);
    expect(asString('x')).toBe('x');
    for (const v of [undefined, null, 1, {}, []]) expect(asString(v)).toBe('');
  });

  it('isSet is false only for absent and null', () => {
    for (const v of [0, '', false, [], {}]) expect(isSet(v)).toBe(true);
    expect(isSet(undefined)).toBe(false);
    expect(isSet(null)).toBe(false);
  });
});
