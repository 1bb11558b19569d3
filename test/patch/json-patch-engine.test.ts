// The JSON Patch engine: every example of RFC 6902's appendix A and every situation of the public
// json-patch conformance suite (as tables, with our own documents), and the places where
// kube-apiserver's library (evanphx/json-patch v4) answers differently from the RFC or words its
// errors in a particular way, since clients see those texts in 422 causes.

import { describe, expect, it } from 'vitest';
import { applyJsonPatch, decodeJsonPatch } from '../../runtime/registry/patch/json-patch.js';
import { isStatusError } from '../../runtime/errors/status-error.js';

const enc = (v: unknown) => new TextEncoder().encode(typeof v === 'string' ? v : JSON.stringify(v));
const patch = (doc: unknown, ops: unknown) => applyJsonPatch(doc, decodeJsonPatch(enc(ops)));

/** The cause message of the 422 a failing patch produces. */
function failure(doc: unknown, ops: unknown): string {
  try {
    patch(doc, ops);
  } catch (err) {
    if (!isStatusError(err)) throw err;
    expect(err.code).toBe(422);
    expect(err.reason).toBe('Invalid');
    expect(err.message).toBe('the server rejected our request due to an error in our request');
    expect(err.details?.causes).toHaveLength(1);
    expect(err.details?.causes?.[0].reason).toBe('UnexpectedServerResponse');
    return err.details!.causes![0].message!;
  }
  throw new Error('patch did not fail');
}

/**
 * One row: a document, a patch (an array, or raw text where JSON.stringify cannot say it) and
 * either the patched document or the cause message of the 422. `v4` names where kube-apiserver's
 * library departs from the RFC or the conformance suite's expectation; the row follows the library.
 */
interface Row {
  name: string;
  doc: unknown;
  ops: unknown;
  want?: unknown;
  error?: string;
  v4?: string;
}

function check(row: Row): void {
  if (row.error !== undefined) expect(failure(row.doc, row.ops)).toBe(row.error);
  else expect(patch(row.doc, row.ops)).toEqual(row.want);
}

// RFC 6902 appendix A, each example in a document of our own of the same shape.
const appendixA: Row[] = [
  { name: 'A.1 add an object member', doc: { colour: 'red' }, ops: [{ op: 'add', path: '/size', value: 'large' }], want: { colour: 'red', size: 'large' } },
  {
    name: 'A.2 add an array element before the index',
    doc: { fruit: ['apple', 'cherry'] },
    ops: [{ op: 'add', path: '/fruit/1', value: 'banana' }],
    want: { fruit: ['apple', 'banana', 'cherry'] },
  },
  { name: 'A.3 remove an object member', doc: { a: 1, b: 2 }, ops: [{ op: 'remove', path: '/b' }], want: { a: 1 } },
  { name: 'A.4 remove an array element', doc: { list: ['x', 'y', 'z'] }, ops: [{ op: 'remove', path: '/list/1' }], want: { list: ['x', 'z'] } },
  { name: 'A.5 replace a value', doc: { mode: 'slow', n: 1 }, ops: [{ op: 'replace', path: '/mode', value: 'fast' }], want: { mode: 'fast', n: 1 } },
  {
    name: 'A.6 move a member between objects',
    doc: { src: { k: 'v', keep: 1 }, dst: {} },
    ops: [{ op: 'move', from: '/src/k', path: '/dst/k' }],
    want: { src: { keep: 1 }, dst: { k: 'v' } },
  },
  { name: 'A.7 move an array element', doc: { seq: [1, 2, 3, 4] }, ops: [{ op: 'move', from: '/seq/1', path: '/seq/3' }], want: { seq: [1, 3, 4, 2] } },
  {
    name: 'A.8 tests that hold change nothing',
    doc: { name: 'n1', tags: ['p', 'q'] },
    ops: [
      { op: 'test', path: '/name', value: 'n1' },
      { op: 'test', path: '/tags/1', value: 'q' },
    ],
    want: { name: 'n1', tags: ['p', 'q'] },
  },
  { name: 'A.9 a test that does not hold fails', doc: { name: 'n1' }, ops: [{ op: 'test', path: '/name', value: 'n2' }], error: 'testing value /name failed: test failed' },
  { name: 'A.10 add a nested object', doc: { top: 1 }, ops: [{ op: 'add', path: '/child', value: { grand: {} } }], want: { top: 1, child: { grand: {} } } },
  { name: 'A.11 members an operation does not define are ignored', doc: {}, ops: [{ op: 'add', path: '/k', value: 1, extra: { x: 1 } }], want: { k: 1 } },
  {
    name: 'A.12 add below a missing member fails',
    doc: { present: 1 },
    ops: [{ op: 'add', path: '/absent/child', value: 1 }],
    error: 'add operation does not apply: doc is missing path: "/absent/child": missing value',
  },
  {
    name: 'A.13 a repeated "op" member: the last one is the operation',
    doc: { keep: 1 },
    ops: '[{"op":"add","path":"/extra","value":"x","op":"remove"}]',
    error: "error in remove for path: '/extra': Unable to remove nonexistent key: extra: missing value",
    v4: 'the RFC calls the document invalid; v4 decodes an operation into a Go map, where a repeated key keeps its last value',
  },
  {
    name: 'A.13 a repeated "op" member removes when the member exists',
    doc: { keep: 1, extra: 2 },
    ops: '[{"op":"add","path":"/extra","value":"x","op":"remove"}]',
    want: { keep: 1 },
    v4: 'same map decoding: the patch is applied, as a remove',
  },
  { name: 'A.14 ~01 is "~1", not "/"', doc: { '/': 1, '~1': 2 }, ops: [{ op: 'test', path: '/~01', value: 2 }], want: { '/': 1, '~1': 2 } },
  { name: 'A.15 a string never equals a number', doc: { '/': 1, '~1': 2 }, ops: [{ op: 'test', path: '/~01', value: '2' }], error: 'testing value /~01 failed: test failed' },
  { name: 'A.16 an array value is added as one element', doc: { outer: ['a'] }, ops: [{ op: 'add', path: '/outer/-', value: ['b', 'c'] }], want: { outer: ['a', ['b', 'c']] } },
];

// The situations of the public json-patch conformance suite (tests.json, spec_tests.json), in our
// own documents; the suite's top-level array documents are wrapped in an object, as every
// document kube-apiserver patches is one.
const conformance: Row[] = [
  // Empty patches and add.
  { name: 'an empty patch changes nothing', doc: { a: 1, b: { c: 2 } }, ops: [], want: { b: { c: 2 }, a: 1 } },
  { name: 'add replaces a member, even a null one', doc: { slot: null }, ops: [{ op: 'add', path: '/slot', value: 5 }], want: { slot: 5 } },
  { name: 'add of a numeric string stays a string', doc: {}, ops: [{ op: 'add', path: '/n', value: '5' }], want: { n: '5' } },
  { name: 'add true, false and null', doc: {}, ops: [{ op: 'add', path: '/t', value: true }, { op: 'add', path: '/f', value: false }, { op: 'add', path: '/z', value: null }], want: { t: true, f: false, z: null } },
  { name: 'add at "/" names the empty member', doc: { a: 1 }, ops: [{ op: 'add', path: '/', value: 3 }], want: { a: 1, '': 3 } },
  { name: 'a trailing slash names the empty member of the child', doc: { child: {} }, ops: [{ op: 'add', path: '/child/', value: 3 }], want: { child: { '': 3 } } },
  { name: '"0" is a member name in an object', doc: { a: 1 }, ops: [{ op: 'add', path: '/0', value: 'z' }], want: { a: 1, '0': 'z' } },
  { name: 'member names are case-sensitive', doc: { key: 'lower' }, ops: [{ op: 'add', path: '/KEY', value: 'upper' }], want: { key: 'lower', KEY: 'upper' } },
  { name: 'add into an object inside an array', doc: { items: [{ n: 'a' }] }, ops: [{ op: 'add', path: '/items/0/m', value: 'b' }], want: { items: [{ n: 'a', m: 'b' }] } },
  { name: 'add with "-" appends', doc: { l: [1, 2] }, ops: [{ op: 'add', path: '/l/-', value: { k: [3] } }], want: { l: [1, 2, { k: [3] }] } },
  { name: 'add with "-" appends levels down', doc: { m: [0, [1, [2]]] }, ops: [{ op: 'add', path: '/m/1/1/-', value: 3 }], want: { m: [0, [1, [2, 3]]] } },
  { name: 'add at index 0 prepends', doc: { l: ['b', 'c'] }, ops: [{ op: 'add', path: '/l/0', value: 'a' }], want: { l: ['a', 'b', 'c'] } },
  { name: 'add at the length appends', doc: { l: ['a', 'b'] }, ops: [{ op: 'add', path: '/l/2', value: 'c' }], want: { l: ['a', 'b', 'c'] } },
  {
    name: 'add past the end fails',
    doc: { l: ['a', 'b'] },
    ops: [{ op: 'add', path: '/l/3', value: 'c' }],
    error: "error in add for path: '/l/3': Unable to access invalid index: 3: invalid index referenced",
  },
  {
    name: 'add at -1 inserts before the end slot',
    doc: { l: [1, 2] },
    ops: [{ op: 'add', path: '/l/-1', value: 9 }],
    want: { l: [1, 2, 9] },
    v4: 'the suite expects "out of bounds"; v4 counts negative indices from the end',
  },
  {
    name: 'add below the lowest negative index fails',
    doc: { l: [1, 2] },
    ops: [{ op: 'add', path: '/l/-4', value: 9 }],
    error: "error in add for path: '/l/-4': Unable to access invalid index: -4: invalid index referenced",
  },
  {
    name: 'add with a member name on an array fails',
    doc: { l: ['a'] },
    ops: [{ op: 'add', path: '/l/name', value: 1 }],
    error: `error in add for path: '/l/name': value was not a proper array index: 'name': strconv.Atoi: parsing "name": invalid syntax`,
  },
  {
    name: 'add with "1e0" as an index fails',
    doc: { l: ['a', 'b'] },
    ops: [{ op: 'add', path: '/l/1e0', value: 'c' }],
    error: `error in add for path: '/l/1e0': value was not a proper array index: '1e0': strconv.Atoi: parsing "1e0": invalid syntax`,
  },
  {
    name: 'add with an index past a 64-bit int fails as Atoi does',
    doc: { l: [] },
    ops: [{ op: 'add', path: '/l/99999999999999999999', value: 1 }],
    error: `error in add for path: '/l/99999999999999999999': value was not a proper array index: '99999999999999999999': strconv.Atoi: parsing "99999999999999999999": value out of range`,
  },
  { name: 'add of an array into an array is not flattened', doc: { l: ['a', 'd'] }, ops: [{ op: 'add', path: '/l/1', value: ['b', 'c'] }], want: { l: ['a', ['b', 'c'], 'd'] } },
  {
    name: 'add without a value stores null',
    doc: { l: [1] },
    ops: [{ op: 'add', path: '/l/-' }],
    want: { l: [1, null] },
    v4: 'the suite wants a missing-value error; v4 adds the absent value as null',
  },
  {
    name: 'add at the root "" fails',
    doc: { a: 1 },
    ops: [{ op: 'add', path: '', value: { b: 2 } }],
    error: 'add operation does not apply: doc is missing path: "": missing value',
    v4: 'the RFC replaces the whole document; v4 finds no parent for ""',
  },
  {
    name: 'a path without a leading slash loses its first segment',
    doc: {},
    ops: [{ op: 'add', path: 'ignored/kept', value: 1 }],
    want: { kept: 1 },
    v4: 'the RFC refuses the pointer; v4 splits on "/" and skips the first piece',
  },

  // Remove.
  { name: 'remove a member holding an array', doc: { a: 1, l: [1, 2] }, ops: [{ op: 'remove', path: '/l' }], want: { a: 1 } },
  { name: 'remove a member inside an array element', doc: { items: [{ n: 'a' }] }, ops: [{ op: 'remove', path: '/items/0/n' }], want: { items: [{}] } },
  { name: 'remove a null member', doc: { gone: null, kept: 1 }, ops: [{ op: 'remove', path: '/gone' }], want: { kept: 1 } },
  { name: 'remove the first element', doc: { l: [1, 2, 3] }, ops: [{ op: 'remove', path: '/l/0' }], want: { l: [2, 3] } },
  { name: 'repeated removes see the shifted array', doc: { l: ['a', 'b', 'c', 'd'] }, ops: [{ op: 'remove', path: '/l/1' }, { op: 'remove', path: '/l/2' }], want: { l: ['a', 'c'] } },
  { name: 'remove of a missing member fails', doc: { a: 1 }, ops: [{ op: 'remove', path: '/b' }], error: "error in remove for path: '/b': Unable to remove nonexistent key: b: missing value" },
  {
    name: 'remove past the end fails',
    doc: { l: ['a', 'b'] },
    ops: [{ op: 'remove', path: '/l/2' }],
    error: "error in remove for path: '/l/2': Unable to access invalid index: 2: invalid index referenced",
  },
  {
    name: 'remove with "1e0" as an index fails',
    doc: { l: [1, 2] },
    ops: [{ op: 'remove', path: '/l/1e0' }],
    error: `error in remove for path: '/l/1e0': strconv.Atoi: parsing "1e0": invalid syntax`,
  },
  {
    name: 'remove through "1e0" as an index fails to find the parent',
    doc: { items: [{ n: 'a' }] },
    ops: [{ op: 'remove', path: '/items/1e0/n' }],
    error: 'remove operation does not apply: doc is missing path: "/items/1e0/n": missing value',
  },
  {
    name: 'remove of the root "" fails',
    doc: { a: 1 },
    ops: [{ op: 'remove', path: '' }],
    error: 'remove operation does not apply: doc is missing path: "": missing value',
    v4: 'the RFC would leave no document; v4 finds no parent for ""',
  },

  // Replace.
  { name: 'replace a member with an array', doc: { a: 1, b: 2 }, ops: [{ op: 'replace', path: '/a', value: [1, 2] }], want: { a: [1, 2], b: 2 } },
  { name: 'replace inside an array element', doc: { items: [{ n: 'a' }] }, ops: [{ op: 'replace', path: '/items/0/n', value: 'b' }], want: { items: [{ n: 'b' }] } },
  { name: 'replace an element by scalars of each kind', doc: { l: ['', '', '', ''] }, ops: [0, true, false, null].map((value, i) => ({ op: 'replace', path: `/l/${i}`, value })), want: { l: [0, true, false, null] } },
  { name: 'replace an element with an array is not flattened', doc: { l: ['a', 'b'] }, ops: [{ op: 'replace', path: '/l/1', value: ['c', 'd'] }], want: { l: ['a', ['c', 'd']] } },
  { name: 'replace a null member', doc: { slot: null }, ops: [{ op: 'replace', path: '/slot', value: 'set' }], want: { slot: 'set' } },
  { name: 'replace with null', doc: { slot: 'set' }, ops: [{ op: 'replace', path: '/slot', value: null }], want: { slot: null } },
  { name: 'replace the root "" swaps the document', doc: { old: 1 }, ops: [{ op: 'replace', path: '', value: { fresh: 2 } }], want: { fresh: 2 } },
  {
    name: 'replace the root "" with a scalar fails',
    doc: { old: 1 },
    ops: [{ op: 'replace', path: '', value: 'text' }],
    error: 'replace operation value must be object or array: %!w(<nil>)',
  },
  {
    name: 'replace the root "" without a value fails',
    doc: { old: 1 },
    ops: [{ op: 'replace', path: '' }],
    error: 'replace operation value must be object or array: %!w(<nil>)',
    v4: 'v4 dereferences the absent value and panics (a 500); we answer as for a scalar, a Status rather than a crash',
  },
  {
    name: 'replace of a missing member adds it',
    doc: { a: 1 },
    ops: [{ op: 'replace', path: '/b', value: 2 }],
    want: { a: 1, b: 2 },
    v4: 'the RFC requires the target to exist; v4 only checks array indices',
  },
  {
    name: 'replace below a missing parent fails',
    doc: { other: 'x' },
    ops: [{ op: 'replace', path: '/missing/child', value: false }],
    error: 'replace operation does not apply: doc is missing path: /missing/child: missing value',
  },
  { name: 'replace past the end fails', doc: { l: [1] }, ops: [{ op: 'replace', path: '/l/1', value: 2 }], error: 'replace operation does not apply: doc is missing key: /l/1: missing value' },
  { name: 'replace with "1e0" as an index fails', doc: { l: [''] }, ops: [{ op: 'replace', path: '/l/1e0', value: false }], error: 'replace operation does not apply: doc is missing key: /l/1e0: missing value' },
  {
    name: 'replace without a value stores null',
    doc: { l: [1] },
    ops: [{ op: 'replace', path: '/l/0' }],
    want: { l: [null] },
    v4: 'the suite wants a missing-value error; v4 sets the absent value as null',
  },

  // Move and copy.
  { name: 'move to the same place changes nothing', doc: { a: 1 }, ops: [{ op: 'move', from: '/a', path: '/a' }], want: { a: 1 } },
  { name: 'move a member to a new name', doc: { a: 1, l: [{ n: 'x' }] }, ops: [{ op: 'move', from: '/a', path: '/b' }], want: { l: [{ n: 'x' }], b: 1 } },
  { name: 'move a member out of an array element into the array', doc: { l: [{ n: 'x' }] }, ops: [{ op: 'move', from: '/l/0/n', path: '/l/1' }], want: { l: [{}, 'x'] } },
  { name: 'move the first element to the end', doc: { l: ['a', 'b', 'c'] }, ops: [{ op: 'move', from: '/l/0', path: '/l/-' }], want: { l: ['b', 'c', 'a'] } },
  { name: 'move an element out to a member', doc: { l: ['a', 'b'] }, ops: [{ op: 'move', from: '/l/1', path: '/picked' }], want: { l: ['a'], picked: 'b' } },
  { name: 'move a null member', doc: { a: null }, ops: [{ op: 'move', from: '/a', path: '/b' }], want: { b: null } },
  {
    name: 'move into a child of itself fails',
    doc: { a: { b: 1 } },
    ops: [{ op: 'move', from: '/a', path: '/a/b/c' }],
    error: 'move operation does not apply: doc is missing destination path: /a/b/c: missing value',
    v4: 'the RFC forbids it outright; v4 removes the source first and then finds no destination',
  },
  {
    name: 'move from "1e0" as an index fails',
    doc: { l: [1, 2], a: 0 },
    ops: [{ op: 'move', from: '/l/1e0', path: '/a' }],
    error: `error in move for path: '1e0': strconv.Atoi: parsing "1e0": invalid syntax`,
  },
  {
    name: 'move from the root "" fails',
    doc: { a: 1 },
    ops: [{ op: 'move', from: '', path: '/b' }],
    error: 'move operation does not apply: doc is missing from path: : missing value',
  },
  {
    name: 'move without "from" fails',
    doc: { a: 1 },
    ops: [{ op: 'move', path: '' }],
    error: 'move operation failed to decode from: operation, missing from field: missing value',
  },
  { name: 'copy an element to a member', doc: { l: [{ n: 'x' }] }, ops: [{ op: 'copy', from: '/l/0', path: '/first' }], want: { l: [{ n: 'x' }], first: { n: 'x' } } },
  { name: 'copy an element to the end of its array', doc: { l: ['a', 'b'] }, ops: [{ op: 'copy', from: '/l/0', path: '/l/-' }], want: { l: ['a', 'b', 'a'] } },
  { name: 'copy a null member', doc: { a: null }, ops: [{ op: 'copy', from: '/a', path: '/b' }], want: { a: null, b: null } },
  {
    name: 'copy of a missing member stores null',
    doc: { a: 1 },
    ops: [{ op: 'copy', from: '/nothing', path: '/b' }],
    want: { a: 1, b: null },
    v4: 'the RFC requires "from" to exist; v4 reads a missing member as null',
  },
  {
    name: 'copy from "1e0" as an index fails',
    doc: { l: [1, 2] },
    ops: [{ op: 'copy', from: '/l/1e0', path: '/b' }],
    error: `error in copy for from: '/l/1e0': strconv.Atoi: parsing "1e0": invalid syntax`,
  },
  {
    name: 'copy without "from" fails',
    doc: { l: [1] },
    ops: [{ op: 'copy', path: '/l/-' }],
    error: 'copy operation failed to decode from: operation, missing from field: missing value',
  },
  {
    name: 'copy from the root "" fails',
    doc: { a: 1 },
    ops: [{ op: 'copy', from: '', path: '/b' }],
    error: 'copy operation does not apply: doc is missing from path: : missing value',
  },

  // Test.
  { name: 'test ignores members it does not define', doc: { a: 1 }, ops: [{ op: 'test', path: '/a', value: 1, note: 'x' }], want: { a: 1 } },
  { name: 'test of a null member against null holds', doc: { a: null }, ops: [{ op: 'test', path: '/a', value: null }], want: { a: null } },
  { name: 'test of objects ignores member order', doc: { o: { x: 1, y: 2 } }, ops: [{ op: 'test', path: '/o', value: { y: 2, x: 1 } }], want: { o: { x: 1, y: 2 } } },
  { name: 'test ignores member order inside arrays', doc: { l: [{ x: 1, y: 2 }] }, ops: [{ op: 'test', path: '/l', value: [{ y: 2, x: 1 }] }], want: { l: [{ x: 1, y: 2 }] } },
  { name: 'test of an object against an array fails', doc: { o: { l: [1, 2] } }, ops: [{ op: 'test', path: '/o', value: [1, 2] }], error: 'testing value /o failed: test failed' },
  {
    name: 'test of 1 against 1.0 fails',
    doc: { n: 1 },
    ops: '[{"op":"test","path":"/n","value":1.0}]',
    error: 'testing value /n failed: test failed',
    v4: 'the RFC compares numbers by value; v4 compares scalars as JSON text',
  },
  { name: 'test of the whole document at ""', doc: { a: 1 }, ops: [{ op: 'test', path: '', value: { a: 1 } }], want: { a: 1 } },
  { name: 'test of the empty member at "/"', doc: { '': 1 }, ops: [{ op: 'test', path: '/', value: 1 }], want: { '': 1 } },
  {
    name: 'test reaches members with punctuation in their names',
    doc: { 'a/b': 1, 'c%d': 2, 'e^f': 3, 'g|h': 4, 'i\\j': 5, 'k"l': 6, ' ': 7, 'm~n': 8 },
    ops: [
      ['/a~1b', 1],
      ['/c%d', 2],
      ['/e^f', 3],
      ['/g|h', 4],
      ['/i\\j', 5],
      ['/k"l', 6],
      ['/ ', 7],
      ['/m~0n', 8],
    ].map(([path, value]) => ({ op: 'test', path, value })),
    want: { 'a/b': 1, 'c%d': 2, 'e^f': 3, 'g|h': 4, 'i\\j': 5, 'k"l': 6, ' ': 7, 'm~n': 8 },
  },
  { name: '"1e0" is a member name in an object', doc: { '1e0': 'x' }, ops: [{ op: 'test', path: '/1e0', value: 'x' }], want: { '1e0': 'x' } },
  {
    name: 'test with "1e0" as an index fails',
    doc: { l: ['a', 'b'] },
    ops: [{ op: 'test', path: '/l/1e0', value: 'b' }],
    error: `error in test for path: '/l/1e0': strconv.Atoi: parsing "1e0": invalid syntax`,
  },
  {
    name: 'an index with a leading zero is read as a number',
    doc: { l: ['a', 'b'] },
    ops: [{ op: 'test', path: '/l/01', value: 'b' }, { op: 'test', path: '/l/00', value: 'a' }, { op: 'test', path: '/l/+1', value: 'b' }],
    want: { l: ['a', 'b'] },
    v4: 'the RFC refuses "01" and "00"; v4 parses indices with strconv.Atoi, which takes leading zeros and a sign',
  },
  {
    name: 'test without a value holds against a null element',
    doc: { l: [null] },
    ops: [{ op: 'test', path: '/l/0' }],
    want: { l: [null] },
    v4: 'the suite wants a missing-value error; v4 treats the absent value as null',
  },
  { name: 'test without a value fails against false', doc: { l: [false] }, ops: [{ op: 'test', path: '/l/0' }], error: 'testing value /l/0 failed: test failed' },

  // Unknown operations.
  { name: 'an unknown op fails', doc: { a: 1 }, ops: [{ op: 'spam', path: '/a', value: 1 }], error: 'Unexpected kind: spam' },
  {
    name: 'a repeated "op" member: the last one wins',
    doc: { src: 'v' },
    ops: '[{"op":"add","path":"/dst","value":"w","op":"move","from":"/src"}]',
    want: { dst: 'v' },
    v4: 'the suite (disabled case) wants an error; v4 decodes the operation into a map',
  },
];

describe('RFC 6902 appendix A', () => {
  it.each(appendixA)('$name', check);
});

describe('json-patch conformance situations', () => {
  it.each(conformance)('$name', check);

  it('applies all operations or none', () => {
    const doc = { a: 1 };
    failure(doc, [{ op: 'add', path: '/b', value: 2 }, { op: 'test', path: '/a', value: 9 }]);
    expect(doc).toEqual({ a: 1 });
  });

  it('keeps a copied value independent of its source', () => {
    const result = patch({ from: { deep: [1] } }, [
      { op: 'copy', from: '/from', path: '/to' },
      { op: 'add', path: '/to/deep/-', value: 2 },
    ]);
    expect(result).toEqual({ from: { deep: [1] }, to: { deep: [1, 2] } });
  });
});

describe('kube-apiserver (json-patch v4) behaviour', () => {
  it('replace of a missing object member adds it', () => {
    expect(patch({ a: 1 }, [{ op: 'replace', path: '/b', value: 2 }])).toEqual({ a: 1, b: 2 });
  });

  it('counts negative indices from the end', () => {
    expect(patch({ l: [1, 2, 3] }, [{ op: 'remove', path: '/l/-1' }])).toEqual({ l: [1, 2] });
    expect(patch({ l: [1, 2] }, [{ op: 'add', path: '/l/-1', value: 9 }])).toEqual({ l: [1, 2, 9] });
    expect(patch({ l: [1, 2] }, [{ op: 'replace', path: '/l/-2', value: 0 }])).toEqual({ l: [0, 2] });
  });

  it('lets a test of a missing or null member pass against null', () => {
    expect(patch({ n: null }, [{ op: 'test', path: '/n', value: null }, { op: 'test', path: '/gone', value: null }])).toEqual({ n: null });
    expect(failure({}, [{ op: 'test', path: '/gone', value: 'x' }])).toBe('testing value /gone failed: test failed');
  });

  it('words its failures as the library does', () => {
    expect(failure({ a: 1 }, [{ op: 'remove', path: '/b' }])).toBe("error in remove for path: '/b': Unable to remove nonexistent key: b: missing value");
    expect(failure({ l: [1] }, [{ op: 'remove', path: '/l/5' }])).toBe("error in remove for path: '/l/5': Unable to access invalid index: 5: invalid index referenced");
    expect(failure({ l: [1] }, [{ op: 'add', path: '/l/3', value: 1 }])).toBe("error in add for path: '/l/3': Unable to access invalid index: 3: invalid index referenced");
    expect(failure({ l: [1] }, [{ op: 'add', path: '/l/x', value: 1 }])).toBe(
      `error in add for path: '/l/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`,
    );
    expect(failure({ l: [1] }, [{ op: 'replace', path: '/l/4', value: 1 }])).toBe('replace operation does not apply: doc is missing key: /l/4: missing value');
    expect(failure({}, [{ op: 'replace', path: '/a/b', value: 1 }])).toBe('replace operation does not apply: doc is missing path: /a/b: missing value');
    expect(failure({}, [{ op: 'move', from: '/x', path: '/y' }])).toBe("error in move for path: 'x': Unable to remove nonexistent key: x: missing value");
    expect(failure({}, [{ op: 'test', path: '/a/b', value: 1 }])).toBe('test operation does not apply: is missing path: /a/b: missing value');
    expect(failure({}, [{ op: 'frobnicate', path: '/a' }])).toBe('Unexpected kind: frobnicate');
    expect(failure({}, [{ path: '/a' }])).toBe('Unexpected kind: unknown');
    expect(failure({}, [{ op: 'add', value: 1 }])).toBe('add operation failed to decode path: missing value');
    expect(failure({}, [{ op: 'replace', value: 1 }])).toBe('replace operation failed to decode path: operation missing path field: missing value');
    expect(failure({}, [{ op: 'move', path: '/a' }])).toBe('move operation failed to decode from: operation, missing from field: missing value');
  });

  it('compares a whole document with an empty path', () => {
    expect(patch({ a: [1] }, [{ op: 'test', path: '', value: { a: [1] } }])).toEqual({ a: [1] });
    expect(failure({ a: 1 }, [{ op: 'test', path: '', value: {} }])).toBe('testing value  failed: test failed');
  });

  it('decodes the document as DecodePatch does', () => {
    expect(decodeJsonPatch(enc('null'))).toEqual([]);
    const bad = (text: string) => {
      try {
        decodeJsonPatch(enc(text));
      } catch (err) {
        if (!isStatusError(err)) throw err;
        return [err.code, err.message];
      }
      return undefined;
    };
    expect(bad('{"op":"add"}')).toEqual([400, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch']);
    expect(bad('["add"]')).toEqual([400, 'json: cannot unmarshal string into Go value of type jsonpatch.Operation']);
    expect(bad(JSON.stringify(Array.from({ length: 10001 }, () => ({ op: 'test', path: '/a' }))))).toEqual([
      413,
      'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
    ]);
  });

  it('bounds what copies add to 3 MiB, counting the JSON of each copied value', () => {
    // A 1 MiB string encodes in 1 MiB and its quotes: the third copy passes the limit.
    const big = 'x'.repeat(1024 * 1024);
    const copy = (n: number) => Array.from({ length: n }, (_, i) => ({ op: 'copy', from: '/s', path: `/c${i}` }));
    expect(Object.keys(patch({ s: big }, copy(2)) as object)).toEqual(['s', 'c0', 'c1']);
    expect(failure({ s: big }, copy(3))).toBe('Unable to complete the copy, the accumulated size increase of copy is 3145734, exceeding the limit 3145728');
    // Go escapes <, > and & in six bytes each.
    const escaped = '<'.repeat(524288);
    expect(failure({ s: escaped }, copy(1))).toBe('Unable to complete the copy, the accumulated size increase of copy is 3145730, exceeding the limit 3145728');
    // An object counts its braces, member names, colons and commas; null copies count nothing.
    const members = { a: 'x'.repeat(1572861), b: null };
    expect(JSON.stringify(members).length).toBe(1572878);
    expect(failure({ m: members }, [{ op: 'copy', from: '/m', path: '/n' }, { op: 'copy', from: '/m/b', path: '/o' }, { op: 'copy', from: '/m', path: '/p' }])).toBe(
      'Unable to complete the copy, the accumulated size increase of copy is 3145756, exceeding the limit 3145728',
    );
  });

  it('stops a patch of doubling copies at the limit without building the document', () => {
    const ops = Array.from({ length: 30 }, (_, i) => ({ op: 'copy', from: '/metadata/annotations', path: `/metadata/annotations/k${i}` }));
    const message = failure({ metadata: { annotations: { a: 'x'.repeat(100) } } }, ops);
    const accumulated = Number(/^Unable to complete the copy, the accumulated size increase of copy is (\d+), exceeding the limit 3145728$/.exec(message)?.[1]);
    expect(accumulated).toBeGreaterThan(3145728);
    expect(accumulated).toBeLessThan(2 * 3145728);
  });
});
