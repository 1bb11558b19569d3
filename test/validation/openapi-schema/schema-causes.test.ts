// What a CRD write says about an openAPIV3Schema: kube-apiserver 1.33's structural-schema rules,
// its OpenAPI node rules and its checks of defaults, with its fields and messages.

import { describe, expect, it } from 'vitest';
import { schemaCauses, type JSONSchemaProps } from '../../../runtime/validation/openapi-schema/index.js';

const P = 'spec.versions[0].schema.openAPIV3Schema';
const causes = (schema: JSONSchemaProps, opts?: { statusEnabled?: boolean }) => schemaCauses(schema, P, opts);
const withSpec = (spec: JSONSchemaProps): JSONSchemaProps => ({ type: 'object', properties: { spec } });

const required = (field: string, detail: string) => ({ reason: 'FieldValueRequired', field: `${P}${field}`, message: `Required value: ${detail}` });
const forbidden = (field: string, detail: string) => ({ reason: 'FieldValueForbidden', field: `${P}${field}`, message: `Forbidden: ${detail}` });
const invalid = (field: string, message: string) => ({ reason: 'FieldValueInvalid', field: `${P}${field}`, message });

describe('structural schema rules', () => {
  it('a property needs a type', () => {
    expect(causes(withSpec({ properties: { a: { type: 'string' } } }))).toEqual([
      required('.properties[spec].type', 'must not be empty for specified object fields'),
    ]);
  });

  it('the root needs a type, and it must be object; items need a type; arrays need items', () => {
    expect(causes({ properties: { spec: { type: 'object' } } })).toEqual([required('.type', 'must not be empty at the root')]);
    expect(causes({ type: 'string' })).toEqual([invalid('.type', 'Invalid value: "string": must be object at the root')]);
    expect(causes(withSpec({ type: 'array', items: { maxLength: 1 } }))).toEqual([
      required('.properties[spec].items.type', 'must not be empty for specified array items'),
    ]);
    expect(causes(withSpec({ type: 'array' }))).toEqual([required('.properties[spec].items', 'must be specified')]);
  });

  it('x-kubernetes-preserve-unknown-fields and x-kubernetes-int-or-string stand in for a type', () => {
    expect(causes(withSpec({ type: 'object', properties: { raw: { 'x-kubernetes-preserve-unknown-fields': true }, port: { 'x-kubernetes-int-or-string': true } } }))).toEqual([]);
  });

  it('int-or-string with its anyOf form is structural; anyOf with types otherwise is not', () => {
    const port = { 'x-kubernetes-int-or-string': true, anyOf: [{ type: 'integer' }, { type: 'string' }] };
    expect(causes(withSpec({ type: 'object', properties: { port } }))).toEqual([]);
    const wrong = { type: 'string', anyOf: [{ type: 'string', description: 'x' }, { maxLength: 3 }] };
    expect(causes(withSpec({ type: 'object', properties: { v: wrong } }))).toEqual([
      forbidden('.properties[spec].properties[v].anyOf[0].description', 'must be empty to be structural'),
      forbidden('.properties[spec].properties[v].anyOf[0].type', 'must be empty to be structural'),
    ]);
  });

  it('the value validations of the root must not name fields the schema does not have', () => {
    const schema = { type: 'object', properties: { spec: { type: 'object' } }, anyOf: [{ required: ['spec'] }, { properties: { status: { required: ['x'] } } }] };
    expect(causes(schema)).toEqual([required('.properties[status]', `because it is defined in ${P}.anyOf[1].properties[status]`)]);
  });

  it('metadata at the root may only restrict name and generateName', () => {
    const ok = { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string', maxLength: 10 } } } } };
    expect(causes(ok)).toEqual([]);
    const bad = { type: 'object', properties: { metadata: { type: 'object', properties: { labels: { type: 'object' } } } } };
    expect(causes(bad)).toEqual([forbidden('.properties[metadata]', 'must not specify anything other than name and generateName, but metadata is implicitly specified')]);
    expect(causes({ type: 'object', properties: { kind: { type: 'integer' } } })).toEqual([invalid('.properties[kind].type', 'Invalid value: "integer": must be string')]);
  });

  it('additionalProperties is not allowed at the root', () => {
    expect(causes({ type: 'object', additionalProperties: { type: 'string' } })).toEqual([forbidden('.additionalProperties', 'must not be used at the root')]);
  });

  it('embedded resources must be objects with properties or preserving unknown fields', () => {
    expect(causes(withSpec({ type: 'object', properties: { t: { type: 'object', 'x-kubernetes-embedded-resource': true } } }))).toEqual([
      required('.properties[spec].properties[t].properties', 'must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields'),
    ]);
    expect(causes(withSpec({ type: 'object', properties: { t: { type: 'string', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } }))).toEqual([
      invalid('.properties[spec].properties[t].type', 'Invalid value: "string": must be object if x-kubernetes-embedded-resource is true'),
    ]);
  });

  it('a pattern Go cannot compile is refused with Go\'s parse error', () => {
    expect(causes(withSpec({ type: 'string', pattern: '^(?=a)b' }))).toEqual([
      invalid('.properties[spec].pattern', "Invalid value: \"^(?=a)b\": must be a valid regular expression, but isn't: error parsing regexp: invalid or unsupported Perl syntax: `(?=`"),
    ]);
    expect(causes(withSpec({ type: 'string', pattern: '(a' }))).toEqual([
      invalid('.properties[spec].pattern', "Invalid value: \"(a\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): `(a`"),
    ]);
  });
});

describe('OpenAPI rules of every node', () => {
  it.each([
    ['uniqueItems', { type: 'array', items: { type: 'string' }, uniqueItems: true }, '.uniqueItems', 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'],
    ['additionalItems', { type: 'array', items: { type: 'string' }, additionalItems: false }, '.additionalItems', 'additionalItems is not supported'],
    ['$ref', { type: 'object', $ref: '#/definitions/x' }, '.$ref', '$ref is not supported'],
    ['id', { type: 'object', id: 'x' }, '.id', 'id is not supported'],
    ['patternProperties', { type: 'object', patternProperties: { '^a': { type: 'string' } } }, '.patternProperties', 'patternProperties is not supported'],
    ['dependencies', { type: 'object', dependencies: { a: ['b'] } }, '.dependencies', 'dependencies is not supported'],
  ])('refuses %s', (_name, spec, at, detail) => {
    expect(causes(withSpec(spec as JSONSchemaProps))).toContainEqual(forbidden(`.properties[spec]${at}`, detail));
  });

  it('refuses definitions', () => {
    expect(causes(withSpec({ type: 'object', definitions: { x: { type: 'string' } } }))).toEqual([forbidden('.properties[spec].definitions', 'definitions is not supported')]);
  });

  it('refuses types OpenAPI v3 does not have, and null', () => {
    expect(causes(withSpec({ type: 'object', properties: { a: { type: 'float' }, b: { type: 'null' } } }))).toEqual([
      {
        reason: 'FieldValueNotSupported',
        field: `${P}.properties[spec].properties[a].type`,
        message: 'Unsupported value: "float": supported values: "array", "boolean", "integer", "number", "object", "string"',
      },
      {
        reason: 'FieldValueNotSupported',
        field: `${P}.properties[spec].properties[b].type`,
        message: 'Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"',
      },
      forbidden('.properties[spec].properties[b].type', 'type cannot be set to null, use nullable as an alternative'),
    ]);
  });

  it('properties and additionalProperties exclude each other', () => {
    expect(causes(withSpec({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } }))).toEqual([
      forbidden('.properties[spec].additionalProperties', 'additionalProperties and properties are mutual exclusive'),
    ]);
  });

  it('defaults are not allowed in top-level metadata, and nullable not at the root', () => {
    const schema = { type: 'object', nullable: true, properties: { metadata: { type: 'object', default: {} } } };
    expect(causes(schema)).toContainEqual(forbidden('.properties[metadata].default', 'must not be set in top-level metadata'));
    expect(causes(schema)).toContainEqual(forbidden('.nullable', 'nullable cannot be true at the root'));
  });

  it('x-kubernetes-preserve-unknown-fields: false is refused', () => {
    expect(causes(withSpec({ type: 'object', 'x-kubernetes-preserve-unknown-fields': false }))).toEqual([
      invalid('.properties[spec].x-kubernetes-preserve-unknown-fields', 'Invalid value: false: must be true or undefined'),
    ]);
  });

  it('list types: map needs keys that are required scalar properties; set items must be atomic', () => {
    const map = { type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name', 'missing'], items: { type: 'object', properties: { name: { type: 'string' } } } };
    expect(causes(withSpec({ type: 'object', properties: { l: map } }))).toEqual([
      invalid('.properties[spec].properties[l].x-kubernetes-list-map-keys', 'Invalid value: []string{"name", "missing"}: entries must all be names of item properties'),
      required('.properties[spec].properties[l].items.properties[name].default', 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'),
    ]);
    const set = { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'object', properties: { a: { type: 'string' } } } };
    expect(causes(withSpec({ type: 'object', properties: { s: set } }))).toEqual([
      invalid('.properties[spec].properties[s].items.x-kubernetes-map-type', 'Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set'),
    ]);
    expect(causes(withSpec({ type: 'object', 'x-kubernetes-list-type': 'set' }))).toEqual([
      invalid('.properties[spec].type', 'Invalid value: "object": must be array if x-kubernetes-list-type is specified'),
    ]);
    expect(causes(withSpec({ type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'bag' }))).toEqual([
      { reason: 'FieldValueNotSupported', field: `${P}.properties[spec].x-kubernetes-list-type`, message: 'Unsupported value: "bag": supported values: "atomic", "set", "map"' },
    ]);
  });
});

describe('defaults', () => {
  it('must validate against their schema', () => {
    expect(causes(withSpec({ type: 'object', properties: { replicas: { type: 'integer', default: 'one' }, mode: { type: 'string', enum: ['a'], default: 'b' } } }))).toEqual([
      {
        reason: 'FieldValueTypeInvalid',
        field: `${P}.properties[spec].properties[replicas].default`,
        message: 'Invalid value: "string":  in body must be of type integer: "string"',
      },
      {
        reason: 'FieldValueNotSupported',
        field: `${P}.properties[spec].properties[mode].default`,
        message: 'Unsupported value: "b": supported values: "a"',
      },
    ]);
  });

  it('must not carry fields the schema would prune', () => {
    expect(causes(withSpec({ type: 'object', properties: { a: { type: 'string' } }, default: { a: 'x', b: 'y' } }))).toEqual([
      invalid('.properties[spec].default', 'Invalid value: map[string]interface {}{"a":"x", "b":"y"}: must not have unknown fields'),
    ]);
  });

  it('of object fields are checked inside, at default.<field>', () => {
    expect(causes(withSpec({ type: 'object', required: ['a'], properties: { a: { type: 'string' } }, default: {} }))).toEqual([
      { reason: 'FieldValueRequired', field: `${P}.properties[spec].default.a`, message: 'Required value' },
    ]);
  });

  it('of embedded resources must name apiVersion and kind before anything else is checked', () => {
    const t = { type: 'object', 'x-kubernetes-embedded-resource': true, properties: { data: { type: 'integer' } }, default: { data: 'x' } };
    expect(causes(withSpec({ type: 'object', properties: { t } }))).toEqual([
      { reason: 'FieldValueRequired', field: `${P}.properties[spec].properties[t].default.apiVersion`, message: 'Required value' },
      { reason: 'FieldValueRequired', field: `${P}.properties[spec].properties[t].default.kind`, message: 'Required value' },
    ]);
  });

  it('that pass the schema go to the caller\'s CEL rules, with the default\'s path', () => {
    const seen: [unknown, unknown, string][] = [];
    const schema = withSpec({ type: 'object', properties: { a: { type: 'integer', default: 'x' }, b: { type: 'integer', default: 3, 'x-kubernetes-validations': [{ rule: 'self < 3' }] } } });
    const got = schemaCauses(schema, P, {
      defaultRules: (s, value, path) => {
        seen.push([s['x-kubernetes-validations'], value, path]);
        return [{ reason: 'FieldValueInvalid', field: path, message: 'Invalid value: "integer": failed rule: self < 3' }];
      },
    });
    expect(seen).toEqual([[[{ rule: 'self < 3' }], 3, `${P}.properties[spec].properties[b].default`]]);
    expect(got.map((c) => c.field)).toEqual([`${P}.properties[spec].properties[a].default`, `${P}.properties[spec].properties[b].default`]);
  });

  it('are only checked once the schema is structural', () => {
    expect(causes(withSpec({ properties: { replicas: { type: 'integer', default: 'one' } } }))).toEqual([
      required('.properties[spec].type', 'must not be empty for specified object fields'),
    ]);
  });
});

describe('with the status subresource', () => {
  it('the root may only hold the fields kube lists', () => {
    expect(causes({ type: 'object', properties: { spec: { type: 'object' } }, anyOf: [{ required: ['spec'] }] }, { statusEnabled: true })[0]).toMatchObject({
      reason: 'FieldValueInvalid',
      field: P,
      message: expect.stringContaining(
        'only [Description Type Format Title Maximum ExclusiveMaximum Minimum ExclusiveMinimum MaxLength MinLength Pattern MaxItems MinItems UniqueItems MultipleOf Required Items Properties ExternalDocs Example XPreserveUnknownFields XValidations] fields are allowed at the root of the schema if the status subresource is enabled',
      ),
    });
    expect(causes({ type: 'object', properties: { spec: { type: 'object' } }, required: ['spec'] }, { statusEnabled: true })).toEqual([]);
  });
});
