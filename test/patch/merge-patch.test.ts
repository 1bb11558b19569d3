// JSON merge patch (RFC 7386) as kube-apiserver applies it with evanphx/json-patch v4's
// MergePatch: every example of the RFC's appendix A, in documents of our own of the same shapes,
// then the places where the library departs from the RFC (rows marked `v4`).

import { describe, expect, it } from 'vitest';
import { isStatusError } from '../../runtime/errors/status-error.js';
import { applyMergePatch } from '../../runtime/registry/patch/merge-patch.js';

interface Row {
  name: string;
  target: unknown;
  patch: unknown;
  want?: unknown;
  /** The message of the 400 the patch is refused with. */
  error?: string;
  v4?: string;
}

function check(row: Row): void {
  if (row.error === undefined) {
    expect(applyMergePatch(row.target, row.patch)).toEqual(row.want);
    return;
  }
  try {
    applyMergePatch(row.target, row.patch);
  } catch (err) {
    if (!isStatusError(err)) throw err;
    expect([err.code, err.reason, err.message]).toEqual([400, 'BadRequest', row.error]);
    return;
  }
  throw new Error('the patch was not refused');
}

const appendixA: Row[] = [
  { name: '1 a member is replaced', target: { tier: 'web' }, patch: { tier: 'db' }, want: { tier: 'db' } },
  { name: '2 a member is added', target: { tier: 'web' }, patch: { zone: 'east' }, want: { tier: 'web', zone: 'east' } },
  { name: '3 null removes the only member', target: { tier: 'web' }, patch: { tier: null }, want: {} },
  { name: '4 null removes one member of two', target: { tier: 'web', zone: 'east' }, patch: { tier: null }, want: { zone: 'east' } },
  { name: '5 a scalar replaces an array', target: { ports: ['80'] }, patch: { ports: 'none' }, want: { ports: 'none' } },
  { name: '6 an array replaces a scalar', target: { ports: 'none' }, patch: { ports: ['443'] }, want: { ports: ['443'] } },
  {
    name: '7 nested objects merge, a nested null removes',
    target: { limits: { cpu: '1' } },
    patch: { limits: { cpu: '2', memory: null } },
    want: { limits: { cpu: '2' } },
  },
  { name: '8 an array replaces an array of objects whole', target: { items: [{ k: 'v' }] }, patch: { items: [7] }, want: { items: [7] } },
  { name: '9 an array patch replaces an array target', target: ['x', 'y'], patch: ['p', 'q'], want: ['p', 'q'] },
  { name: '10 an array patch replaces an object target', target: { tier: 'web' }, patch: ['only'], want: ['only'] },
  {
    name: '11 a null patch',
    target: { tier: 'web' },
    patch: null,
    error: 'Invalid JSON Patch',
    v4: 'the RFC yields null; MergePatch refuses a null patch and kube-apiserver answers 400',
  },
  {
    name: '12 a scalar patch',
    target: { tier: 'web' },
    patch: 'replaced',
    error: 'Invalid JSON Patch',
    v4: 'the RFC yields the scalar; MergePatch decodes the patch as an object or an array only',
  },
  { name: '13 a null already in the target stays', target: { gone: null }, patch: { n: 1 }, want: { gone: null, n: 1 } },
  { name: '14 an object patch over an array target starts from {}', target: [1, 2], patch: { keep: 'k', drop: null }, want: { keep: 'k' } },
  { name: '15 nulls inside new objects are dropped', target: {}, patch: { outer: { inner: { leaf: null } } }, want: { outer: { inner: {} } } },
];

const v4Departures: Row[] = [
  {
    name: 'nulls in an array for a missing member are pruned',
    target: {},
    patch: { list: ['a', null, 'b'] },
    want: { list: ['a', 'b'] },
    v4: 'the RFC keeps array items as they are; pruneNulls drops null items',
  },
  {
    name: 'nulls in an array replacing an array are pruned, at every depth',
    target: { list: ['old'] },
    patch: { list: [null, { k: null, v: 1 }, [null, 2]] },
    want: { list: [{ v: 1 }, [2]] },
    v4: 'a member that is not an object has nothing to merge with, so the patch value is pruned',
  },
  {
    name: 'nulls in an array replacing a null member are pruned',
    target: { list: null },
    patch: { list: [null, 'x'] },
    want: { list: ['x'] },
    v4: 'a null member counts as missing',
  },
  {
    name: 'nulls in an array replacing an object member are kept',
    target: { conf: { a: 1 } },
    patch: { conf: [null, 'x'] },
    want: { conf: [null, 'x'] },
    v4: 'the library returns a non-object patch over an object member without pruning it',
  },
  {
    name: 'nulls in an object replacing a scalar member are dropped',
    target: { conf: 'flat' },
    patch: { conf: { a: null, b: { c: null, d: 1 } } },
    want: { conf: { b: { d: 1 } } },
  },
  {
    name: 'a top-level array patch loses its nulls',
    target: { tier: 'web' },
    patch: [null, 'only'],
    want: ['only'],
    v4: 'the RFC returns the array as is',
  },
];

describe('RFC 7386 appendix A', () => {
  it.each(appendixA)('$name', check);
});

describe('evanphx/json-patch v4 MergePatch departures', () => {
  it.each(v4Departures)('$name', check);

  it('keeps a member named __proto__ an own member', () => {
    const result = applyMergePatch({}, JSON.parse('{"__proto__":{"x":1}}')) as Record<string, unknown>;
    expect(Object.hasOwn(result, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });

  it('leaves the target untouched', () => {
    const target = { a: { b: 1 }, l: [1] };
    applyMergePatch(target, { a: { b: 2, c: 3 }, l: null });
    expect(target).toEqual({ a: { b: 1 }, l: [1] });
  });
});
