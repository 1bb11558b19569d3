// Hostile schemas and objects: the module answers every one with causes (or a clean result),
// never a stack overflow, a stall, or a polluted prototype.

import { describe, expect, it } from 'vitest';
import { compileSchema, MAX_SCHEMA_DEPTH, schemaCauses, type JSONSchemaProps } from '../../../runtime/validation/openapi-schema/index.js';

const P = 'spec.versions[0].schema.openAPIV3Schema';

function nested(levels: number, key: 'properties' | 'items' | 'definitions' | 'allOf'): JSONSchemaProps {
  let s: JSONSchemaProps = { type: 'string' };
  for (let i = 0; i < levels; i++) {
    if (key === 'properties') s = { type: 'object', properties: { a: s } };
    else if (key === 'items') s = { type: 'array', items: s };
    else if (key === 'definitions') s = { type: 'object', definitions: { a: s } };
    else s = { type: 'object', allOf: [s] };
  }
  return s;
}

describe('deep schemas', () => {
  it.each(['properties', 'items', 'definitions', 'allOf'] as const)('10,000 levels of %s are refused with one cause', (key) => {
    const causes = schemaCauses(nested(10_000, key), P);
    expect(causes).toHaveLength(1);
    expect(causes[0]).toMatchObject({ reason: 'FieldValueForbidden', message: `Forbidden: must not nest schemas more than ${MAX_SCHEMA_DEPTH} levels deep` });
    expect(causes[0].field?.startsWith(P)).toBe(true);
    expect(() => compileSchema(nested(10_000, key))).toThrow(/cannot be compiled/);
  });

  it('a schema as deep as real ones are (50 levels) is fine', () => {
    expect(schemaCauses(nested(50, 'properties'), P)).toEqual([]);
  });
});

describe('wide schemas', () => {
  it('100,000 properties are checked and compiled, and an object with some of them validates', () => {
    const props: Record<string, JSONSchemaProps> = {};
    for (let i = 0; i < 100_000; i++) props[`p${i}`] = { type: 'string', maxLength: 3 };
    const schema = { type: 'object', properties: { spec: { type: 'object', properties: props } } };
    expect(schemaCauses(schema, P)).toEqual([]);
    const compiled = compileSchema(schema);
    expect(compiled.validate({ spec: { p1: 'abc', p99999: 'abcd' } })).toEqual([
      { reason: 'FieldValueTooLong', field: 'spec.p99999', message: 'Too long: may not be more than 3 bytes' },
    ]);
    // A generous bound: the machine running the suite may be busy, and this test asserts no timing.
  }, 60_000);
});

describe('hostile values', () => {
  const compiled = compileSchema({
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          n: { type: 'integer', maximum: 10 },
          x: { type: 'number' },
          s: { type: 'string', format: 'uuid' },
          set: { type: 'array', 'x-kubernetes-list-type': 'set', items: { 'x-kubernetes-preserve-unknown-fields': true } },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      },
    },
  });

  it('huge numbers: beyond int64 a number is no integer; a huge maximum violation prints as Go prints a float', () => {
    expect(compiled.validate({ spec: { n: 1e300 } })).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'spec.n', message: 'Invalid value: "number": spec.n in body must be of type integer: "number"' },
      { reason: 'FieldValueInvalid', field: 'spec.n', message: 'Invalid value: 1e+300: spec.n in body should be less than or equal to 10' },
    ]);
    expect(compiled.validate({ spec: { x: Number.MAX_VALUE } })).toEqual([]);
  });

  it('NaN-looking strings are strings', () => {
    expect(compiled.validate({ spec: { n: 'NaN', x: 'Infinity', s: 'NaN' } })).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'spec.n', message: 'Invalid value: "string": spec.n in body must be of type integer: "string"' },
      { reason: 'FieldValueTypeInvalid', field: 'spec.x', message: 'Invalid value: "string": spec.x in body must be of type number: "string"' },
      { reason: 'FieldValueTypeInvalid', field: 'spec.s', message: 'Invalid value: "NaN": spec.s in body must be of type uuid: "NaN"' },
    ]);
  });

  it('values nested 10,000 levels deep under preserved fields and in sets are handled without recursion trouble', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const obj = { apiVersion: 'x/v1', kind: 'X', metadata: {}, spec: { free: { a: deep }, set: [deep, deep], other: deep } };
    expect(compiled.prune(obj)).toEqual(['.spec.other']);
    compiled.applyDefaults(obj);
    const causes = compiled.validate(obj);
    expect(causes).toHaveLength(1);
    expect(causes[0]).toMatchObject({ reason: 'FieldValueDuplicate', field: 'spec.set[1]' });
  });

  it('__proto__ keys in objects and in properties are plain names', () => {
    const schema = compileSchema(
      JSON.parse('{"type":"object","properties":{"spec":{"type":"object","required":["__proto__"],"properties":{"__proto__":{"type":"integer"},"constructor":{"type":"string"}}}}}') as JSONSchemaProps,
    );
    const obj = JSON.parse('{"apiVersion":"x/v1","kind":"X","metadata":{},"spec":{"__proto__":"x","constructor":1}}') as Record<string, unknown>;
    expect(schema.prune(obj)).toEqual([]);
    expect(schema.validate(obj)).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'spec.__proto__', message: 'Invalid value: "string": spec.__proto__ in body must be of type integer: "string"' },
      { reason: 'FieldValueTypeInvalid', field: 'spec.constructor', message: 'Invalid value: "integer": spec.constructor in body must be of type string: "integer"' },
    ]);
    expect(schema.validate({ apiVersion: 'x/v1', kind: 'X', metadata: {}, spec: {} })).toEqual([
      { reason: 'FieldValueRequired', field: 'spec.__proto__', message: 'Required value' },
    ]);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('a spec that is not an object is a type error, and the walk goes no further', () => {
    expect(compiled.validate({ spec: [1, 2] })).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'spec', message: 'Invalid value: "array": spec in body must be of type object: "array"' },
    ]);
    const obj = { spec: 'x' };
    expect(compiled.prune(obj)).toEqual([]);
    compiled.applyDefaults(obj);
    expect(obj).toEqual({ spec: 'x' });
  });
});

describe('a typical object', () => {
  it('validates 30 fields (each kind of rule) with no cause, repeatably', () => {
    const props: Record<string, JSONSchemaProps> = {};
    const value: Record<string, unknown> = {};
    for (let i = 0; i < 10; i++) {
      props[`s${i}`] = { type: 'string', maxLength: 63, pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$' };
      props[`n${i}`] = { type: 'integer', minimum: 0, maximum: 65535 };
      props[`e${i}`] = { type: 'string', enum: ['Always', 'Never', 'IfNotPresent'] };
      value[`s${i}`] = `name-${i}`;
      value[`n${i}`] = 8000 + i;
      value[`e${i}`] = 'Always';
    }
    const compiled = compileSchema({ type: 'object', properties: { spec: { type: 'object', properties: props } } });
    for (let round = 0; round < 1000; round++) expect(compiled.validate({ spec: value })).toEqual([]);
  });
});

describe('many causes', () => {
  it('200,000 properties without a type give 200,000 causes, not a stack overflow', () => {
    const props: Record<string, JSONSchemaProps> = {};
    for (let i = 0; i < 200_000; i++) props[`p${i}`] = {};
    const causes = schemaCauses({ type: 'object', properties: { spec: { type: 'object', properties: props } } }, P);
    expect(causes).toHaveLength(200_000);
    expect(causes[0]).toEqual({
      reason: 'FieldValueRequired',
      field: `${P}.properties[spec].properties[p0].type`,
      message: 'Required value: must not be empty for specified object fields',
    });
  }, 60_000);
});

describe('deep values in messages', () => {
  it('an enum of values nested 10,000 levels is listed in the Unsupported value cause', () => {
    let deep: unknown = 'x<y';
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const compiled = compileSchema({ type: 'object', properties: { spec: { type: 'object', properties: { v: { 'x-kubernetes-preserve-unknown-fields': true, enum: [deep, { a: 1 }] } } } } });
    const [cause] = compiled.validate({ spec: { v: 1 } });
    expect(cause.reason).toBe('FieldValueNotSupported');
    expect(cause.message).toContain(`"[[[`);
    expect(cause.message).toContain('x\\\\u003cy');
    expect(cause.message?.endsWith(`, "{\\"a\\":1}"`)).toBe(true);
  });
});
