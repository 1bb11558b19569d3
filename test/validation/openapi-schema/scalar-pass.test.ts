// The validator's shortcut for plain scalar schemas must never change a verdict: every value it
// lets through, the full check passes too, and every cause is the full check's. Each schema is
// compared with the same schema behind an empty allOf, which the shortcut does not take and which
// adds no check of its own.

import { describe, expect, it } from 'vitest';
import { compileSchema, type JSONSchemaProps } from '../../../runtime/validation/openapi-schema/index.js';
import { toNode } from '../../../runtime/validation/openapi-schema/structural.js';

const SCHEMAS: JSONSchemaProps[] = [
  { type: 'string' },
  { type: 'string', maxLength: 3 },
  { type: 'string', minLength: 2 },
  { type: 'string', minLength: 2, maxLength: 2 },
  { type: 'string', pattern: '^[a-z]+$' },
  { type: 'string', pattern: '(' },
  { type: 'string', enum: ['alpha', 'beta'] },
  { type: 'boolean' },
  { type: 'boolean', enum: [true] },
  { type: 'integer' },
  { type: 'integer', minimum: 0, maximum: 10 },
  { type: 'integer', minimum: 0, maximum: 10, exclusiveMinimum: true, exclusiveMaximum: true },
  { type: 'integer', minimum: 0.5, maximum: 9.5 },
  { type: 'integer', enum: [1, 2] },
  { type: 'number' },
  { type: 'number', minimum: -1.5, maximum: 2.5 },
  { type: 'number', minimum: 0, exclusiveMinimum: true },
  { type: 'number', enum: [1.5, 2] },
];

const VALUES: unknown[] = [
  '', 'a', 'ab', 'abc', 'abcd', 'ABC', 'alpha', 'beta', 'gamma', '\u{1F600}', '\u{1F600}\u{1F600}', 'a\u{1F600}',
  true, false,
  0, 1, 2, 9, 10, 11, -1, -0, 0.5, 1.5, 2.5, 9.5, 1e21, 2 ** 63, -(2 ** 63), Number.MAX_SAFE_INTEGER,
  null, {}, { a: 1 }, [], ['a'],
];

const wrap = (x: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { spec: { type: 'object', properties: { x }, additionalProperties: x }, list: { type: 'array', items: x } } });
const cr = (value: unknown) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { x: value, other: value }, list: [value, value] });

describe('the scalar shortcut', () => {
  it('gives the full check\'s verdict and causes for every plain scalar schema and value', () => {
    let compared = 0;
    for (const schema of SCHEMAS) {
      const fast = compileSchema(wrap(schema));
      const full = compileSchema(wrap({ ...schema, allOf: [{}] }));
      for (const value of VALUES) {
        expect(fast.validate(cr(value)), `${JSON.stringify(schema)} ${JSON.stringify(value)}`).toEqual(full.validate(cr(value)));
        compared++;
      }
    }
    expect(compared).toBe(SCHEMAS.length * VALUES.length);
  });

  it('still reports failures in full, with field names and kube messages (additionalProperties before properties, as before)', () => {
    const fast = compileSchema(wrap({ type: 'integer', minimum: 0, maximum: 10 }));
    expect(fast.validate(cr(11))).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: 11: spec.other in body should be less than or equal to 10', field: 'spec.other' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: 11: spec.x in body should be less than or equal to 10', field: 'spec.x' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: 11: list[0] in body should be less than or equal to 10', field: 'list[0]' },
      { reason: 'FieldValueInvalid', message: 'Invalid value: 11: list[1] in body should be less than or equal to 10', field: 'list[1]' },
    ]);
  });

  it('is taken for plain scalar schemas only, and passes only values that pass', () => {
    const pass = toNode({ type: 'integer', minimum: 0, maximum: 1000 }).scalarPass!;
    expect([0, 10, 1000].map(pass)).toEqual([true, true, true]);
    expect([-1, 1001, 1.5, '1', null].map(pass)).toEqual([false, false, false, false, false]);
    expect(toNode({ type: 'string', enum: ['alpha'] }).scalarPass!('alpha')).toBe(true);
    for (const schema of [{ type: 'string', format: 'date-time' }, { 'x-kubernetes-int-or-string': true }, { type: 'integer', multipleOf: 2 }, { type: 'object' }, { type: 'string', allOf: [{}] }, {}]) {
      expect(toNode(schema).scalarPass, JSON.stringify(schema)).toBeUndefined();
    }
  });
});
