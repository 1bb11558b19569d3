// reachesField: whether a field meeting a test lies anywhere below a kind's type, through refs,
// lists and maps and around cycles; answered from one pass over the table per test.
import { describe, expect, it } from 'vitest';
import { list, map, reachesField, ref, scalar, type FieldTest, type TypeTable } from '../../runtime/validation/type-table.js';

const isGated: FieldTest = (f) => f.featureGate !== undefined;

const table: TypeTable = {
  // A and B refer to each other; B reaches C only as the values of a map of lists.
  A: { fields: { b: { shape: ref('B') }, name: { shape: scalar } } },
  B: { fields: { a: { shape: ref('A') }, cs: { shape: map(list(ref('C'))) } } },
  C: { fields: { gated: { shape: scalar, featureGate: 'SomeGate' } } },
  // D's cycle and its reference to a type the table does not hold lead to no gated field.
  D: { fields: { self: { shape: list(ref('D')) }, missing: { shape: ref('Absent') } } },
  E: { fields: { d: { shape: ref('D') } } },
};

describe('reachesField', () => {
  it('finds a field below refs, lists and maps, and through a cycle', () => {
    expect(reachesField(table, 'A', isGated)).toBe(true);
    expect(reachesField(table, 'B', isGated)).toBe(true);
    expect(reachesField(table, 'C', isGated)).toBe(true);
  });

  it('answers no for types that reach no such field, cycles and absent types included', () => {
    expect(reachesField(table, 'D', isGated)).toBe(false);
    expect(reachesField(table, 'E', isGated)).toBe(false);
    expect(reachesField(table, 'Absent', isGated)).toBe(false);
  });

  it('keeps the answers of each test apart', () => {
    const named: FieldTest = (f) => f.shape.t === 'scalar' && f.featureGate === undefined;
    expect(reachesField(table, 'A', named)).toBe(true);
    expect(reachesField(table, 'C', named)).toBe(false);
    expect(reachesField(table, 'C', isGated)).toBe(true);
  });

  it('without a root, asks whether the table has such a field at all', () => {
    expect(reachesField(table, undefined, isGated)).toBe(true);
    expect(reachesField({ D: table.D }, undefined, isGated)).toBe(false);
  });
});
