// Validation of custom resources against their schema, with the causes kube-apiserver 1.33 sends:
// kube-openapi's messages (`spec.replicas in body must be of type integer: "string"`) inside
// apimachinery's field errors, as apiextensions-apiserver converts them.

import { describe, expect, it } from 'vitest';
import { compileSchema, schemaListTypes, type JSONSchemaProps } from '../../../runtime/validation/openapi-schema/index.js';

const root = (spec: JSONSchemaProps, extra: JSONSchemaProps = {}): JSONSchemaProps => ({
  type: 'object',
  properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: { type: 'object' }, spec, ...extra },
});

const cr = (spec: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'default' },
  spec,
  ...extra,
});

function validate(spec: JSONSchemaProps, value: unknown): unknown[] {
  return compileSchema(root(spec)).validate(cr(value));
}

const invalid = (field: string, message: string) => ({ reason: 'FieldValueInvalid', field, message });

describe('types', () => {
  const replicas = { type: 'object', properties: { replicas: { type: 'integer' } } };

  it('reports a wrong type as TypeInvalid with the type the value has', () => {
    expect(validate(replicas, { replicas: 'three' })).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'spec.replicas', message: 'Invalid value: "string": spec.replicas in body must be of type integer: "string"' },
    ]);
  });

  it('tells integer from number, and accepts an integer where a number is wanted', () => {
    expect(validate(replicas, { replicas: 1.5 })).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'spec.replicas', message: 'Invalid value: "number": spec.replicas in body must be of type integer: "number"' },
    ]);
    expect(validate(replicas, { replicas: 3 })).toEqual([]);
    expect(validate({ type: 'object', properties: { ratio: { type: 'number' } } }, { ratio: 3 })).toEqual([]);
  });

  it('reports null for a field that is not nullable, and accepts it when nullable', () => {
    expect(validate(replicas, { replicas: null })).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'spec.replicas', message: 'Invalid value: "null": spec.replicas in body must be of type integer: "null"' },
    ]);
    expect(validate({ type: 'object', properties: { replicas: { type: 'integer', nullable: true } } }, { replicas: null })).toEqual([]);
  });

  it('names objects, arrays and booleans by their JSON type', () => {
    const s = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'array', items: { type: 'string' } }, c: { type: 'boolean' } } };
    expect(validate(s, { a: {}, b: 'x', c: 1 })).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'spec.a', message: 'Invalid value: "object": spec.a in body must be of type string: "object"' },
      { reason: 'FieldValueTypeInvalid', field: 'spec.b', message: 'Invalid value: "string": spec.b in body must be of type array: "string"' },
      { reason: 'FieldValueTypeInvalid', field: 'spec.c', message: 'Invalid value: "integer": spec.c in body must be of type boolean: "integer"' },
    ]);
  });

  it('accepts integers and strings for x-kubernetes-int-or-string, and names both types otherwise', () => {
    const s = { type: 'object', properties: { port: { 'x-kubernetes-int-or-string': true } } };
    expect(validate(s, { port: 80 })).toEqual([]);
    expect(validate(s, { port: 'http' })).toEqual([]);
    expect(validate(s, { port: true })).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'spec.port', message: 'Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"' },
    ]);
  });

  it('reports a wrong type of an array item at its index', () => {
    const s = { type: 'object', properties: { ports: { type: 'array', items: { type: 'integer' } } } };
    expect(validate(s, { ports: [1, 'x'] })).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'spec.ports[1]', message: 'Invalid value: "string": spec.ports[1] in body must be of type integer: "string"' },
    ]);
  });
});

describe('value rules', () => {
  it('Required value for a missing required field, at its path', () => {
    const s = { type: 'object', required: ['image'], properties: { image: { type: 'string' } } };
    expect(validate(s, {})).toEqual([{ reason: 'FieldValueRequired', field: 'spec.image', message: 'Required value' }]);
  });

  it('a required field at the root', () => {
    const schema = { ...root({ type: 'object' }), required: ['spec'] };
    expect(compileSchema(schema).validate({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' } })).toEqual([
      { reason: 'FieldValueRequired', field: 'spec', message: 'Required value' },
    ]);
  });

  it('Unsupported value with the enum listed', () => {
    const s = { type: 'object', properties: { mode: { type: 'string', enum: ['a', 'b'] }, level: { type: 'integer', enum: [1, 2] } } };
    expect(validate(s, { mode: 'x', level: 3 })).toEqual([
      { reason: 'FieldValueNotSupported', field: 'spec.mode', message: 'Unsupported value: "x": supported values: "a", "b"' },
      { reason: 'FieldValueNotSupported', field: 'spec.level', message: 'Unsupported value: 3: supported values: "1", "2"' },
    ]);
  });

  it('minimum, maximum and their exclusive forms', () => {
    const s = {
      type: 'object',
      properties: {
        a: { type: 'integer', minimum: 1 },
        b: { type: 'integer', maximum: 10, exclusiveMaximum: true },
        c: { type: 'number', minimum: 0.5, exclusiveMinimum: true },
        d: { type: 'number', maximum: 1000000 },
      },
    };
    expect(validate(s, { a: 0, b: 10, c: 0.5, d: 1500000.5 })).toEqual([
      invalid('spec.a', 'Invalid value: 0: spec.a in body should be greater than or equal to 1'),
      invalid('spec.b', 'Invalid value: 10: spec.b in body should be less than 10'),
      invalid('spec.c', 'Invalid value: 0.5: spec.c in body should be greater than 0.5'),
      invalid('spec.d', 'Invalid value: 1.5000005e+06: spec.d in body should be less than or equal to 1e+06'),
    ]);
  });

  it('multipleOf', () => {
    const s = { type: 'object', properties: { n: { type: 'integer', multipleOf: 5 } } };
    expect(validate(s, { n: 12 })).toEqual([invalid('spec.n', 'Invalid value: 12: spec.n in body should be a multiple of 5')]);
    expect(validate(s, { n: 15 })).toEqual([]);
  });

  it('string length counts characters, and Too long names the limit in bytes', () => {
    const s = { type: 'object', properties: { name: { type: 'string', maxLength: 3, minLength: 2 } } };
    expect(validate(s, { name: 'abcd' })).toEqual([{ reason: 'FieldValueTooLong', field: 'spec.name', message: 'Too long: may not be more than 3 bytes' }]);
    expect(validate(s, { name: 'a' })).toEqual([invalid('spec.name', 'Invalid value: "a": spec.name in body should be at least 2 chars long')]);
    expect(validate(s, { name: 'äöü' })).toEqual([]);
    expect(validate(s, { name: '😀😀😀' })).toEqual([]);
  });

  it('pattern, with the pattern as written', () => {
    const s = { type: 'object', properties: { name: { type: 'string', pattern: '^[a-z]+$' } } };
    expect(validate(s, { name: 'Abc' })).toEqual([invalid('spec.name', `Invalid value: "Abc": spec.name in body should match '^[a-z]+$'`)]);
    expect(validate(s, { name: 'abc' })).toEqual([]);
  });

  it('minItems and maxItems', () => {
    const s = { type: 'object', properties: { l: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 2 } } };
    expect(validate(s, { l: [] })).toEqual([invalid('spec.l', 'Invalid value: 0: spec.l in body should have at least 1 items')]);
    expect(validate(s, { l: ['a', 'b', 'c'] })).toEqual([{ reason: 'FieldValueTooMany', field: 'spec.l', message: 'Too many: 3: must have at most 2 items' }]);
  });

  it('minProperties and maxProperties', () => {
    const s = { type: 'object', properties: { m: { type: 'object', additionalProperties: { type: 'string' }, minProperties: 1, maxProperties: 1 } } };
    expect(validate(s, { m: {} })).toEqual([invalid('spec.m', 'Invalid value: 0: spec.m in body should have at least 1 properties')]);
    expect(validate(s, { m: { a: 'x', b: 'y' } })).toEqual([{ reason: 'FieldValueTooMany', field: 'spec.m', message: 'Too many: 2: must have at most 1 items' }]);
  });

  it('values of additionalProperties are checked at path.key', () => {
    const s = { type: 'object', properties: { labels: { type: 'object', additionalProperties: { type: 'string' } } } };
    expect(validate(s, { labels: { a: 'x', b: 2 } })).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'spec.labels.b', message: 'Invalid value: "integer": spec.labels.b in body must be of type string: "integer"' },
    ]);
  });

  it('formats kube validates (names without their dashes), and ignores the ones it strips (int32)', () => {
    const s = {
      type: 'object',
      properties: { ip: { type: 'string', format: 'ipv4' }, mail: { type: 'string', format: 'email' }, n: { type: 'integer', format: 'int32' }, t: { type: 'string', format: 'date-time' } },
    };
    expect(validate(s, { ip: '300.1.1.1', mail: 'nobody', n: 2 ** 40, t: 'yesterday' })).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'spec.ip', message: 'Invalid value: "300.1.1.1": spec.ip in body must be of type ipv4: "300.1.1.1"' },
      { reason: 'FieldValueTypeInvalid', field: 'spec.mail', message: 'Invalid value: "nobody": spec.mail in body must be of type email: "nobody"' },
      { reason: 'FieldValueTypeInvalid', field: 'spec.t', message: 'Invalid value: "yesterday": spec.t in body must be of type date-time: "yesterday"' },
    ]);
    expect(validate(s, { ip: '10.0.0.1', mail: 'a@example.com', t: '2024-02-29T10:00:00Z' })).toEqual([]);
  });

  it('anyOf failing names the field in a composite cause at <nil>, then the closest branch', () => {
    const s = { type: 'object', properties: { v: { type: 'string', anyOf: [{ pattern: '^a' }, { maxLength: 2 }] } } };
    expect(validate(s, { v: 'bcd' })).toEqual([
      invalid('<nil>', 'Invalid value: "": "spec.v" must validate at least one schema (anyOf)'),
      invalid('spec.v', `Invalid value: "bcd": spec.v in body should match '^a'`),
    ]);
    expect(validate(s, { v: 'abc' })).toEqual([]);
  });

  it('oneOf and not', () => {
    const s = { type: 'object', properties: { v: { type: 'object', oneOf: [{ required: ['a'] }, { required: ['b'] }], not: { required: ['c'] } } } };
    expect(validate(s, { v: { a: 1, b: 2 } })).toEqual([invalid('<nil>', 'Invalid value: "": "spec.v" must validate one and only one schema (oneOf). Found 2 valid alternatives')]);
    expect(validate(s, { v: { a: 1, c: 1 } })).toEqual([invalid('<nil>', 'Invalid value: "": "spec.v" must not validate the schema (not)')]);
    expect(validate(s, { v: { a: 1 } })).toEqual([]);
  });
});

describe('list types', () => {
  const ports = {
    type: 'object',
    properties: {
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
      },
      tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      pairs: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name', 'port'],
        items: { type: 'object', required: ['name', 'port'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
      },
    },
  };

  it('a repeated map key is a Duplicate value printed as Go prints the key map', () => {
    expect(validate(ports, { ports: [{ name: 'a', port: 1 }, { name: 'a', port: 2 }] })).toEqual([
      { reason: 'FieldValueDuplicate', field: 'spec.ports[1]', message: 'Duplicate value: map[string]interface {}{"name":"a"}' },
    ]);
  });

  it('composite keys, and a set with a repeated item', () => {
    expect(validate(ports, { pairs: [{ name: 'a', port: 1 }, { name: 'a', port: 2 }, { name: 'a', port: 1 }], tags: ['x', 'y', 'x', 'x'] })).toEqual([
      { reason: 'FieldValueDuplicate', field: 'spec.pairs[2]', message: 'Duplicate value: map[string]interface {}{"name":"a", "port":1}' },
      { reason: 'FieldValueDuplicate', field: 'spec.tags[2]', message: 'Duplicate value: "x"' },
    ]);
  });

  it('exposes list types, keys and map types for server-side apply', () => {
    const facts = compileSchema(root(ports)).listTypes;
    expect(facts.get('.spec.ports')).toEqual({ listType: 'map', listMapKeys: ['name'] });
    expect(facts.get('.spec.tags')).toEqual({ listType: 'set' });
    expect(schemaListTypes(root(ports))).toEqual(facts);
    const nested = schemaListTypes(
      root({
        type: 'object',
        properties: {
          byName: { type: 'object', 'x-kubernetes-map-type': 'atomic', additionalProperties: { type: 'array', 'x-kubernetes-list-type': 'atomic', items: { type: 'string' } } },
          matrix: { type: 'array', items: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'integer' } } },
        },
      }),
    );
    expect([...nested]).toEqual([
      ['.spec.byName', { mapType: 'atomic' }],
      ['.spec.byName{}', { listType: 'atomic' }],
      ['.spec.matrix[]', { listType: 'set' }],
    ]);
  });
});

describe('embedded resources', () => {
  const s = { type: 'object', properties: { template: { type: 'object', 'x-kubernetes-embedded-resource': true, 'x-kubernetes-preserve-unknown-fields': true } } };

  it('requires apiVersion and kind, and checks their form', () => {
    expect(validate(s, { template: { metadata: { name: 'x' } } })).toEqual([
      { reason: 'FieldValueRequired', field: 'spec.template.apiVersion', message: 'Required value' },
      { reason: 'FieldValueRequired', field: 'spec.template.kind', message: 'Required value' },
    ]);
    expect(validate(s, { template: { apiVersion: '', kind: '' } })).toEqual([
      { reason: 'FieldValueRequired', field: 'spec.template.apiVersion', message: 'Required value' },
      { reason: 'FieldValueRequired', field: 'spec.template.kind', message: 'Required value' },
    ]);
    expect(validate(s, { template: { apiVersion: 'a/b/c', kind: 'Not_A_Kind' } })).toEqual([
      invalid('spec.template.apiVersion', 'Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c'),
      invalid(
        'spec.template.kind',
        `Invalid value: "Not_A_Kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`,
      ),
    ]);
    expect(validate(s, { template: { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'b' } } })).toEqual([]);
  });

  it('checks their metadata with ObjectMeta\'s rules, names as path segments (no name is fine)', () => {
    expect(validate(s, { template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { labels: { app: 'web' } } } })).toEqual([]);
    expect(validate(s, { template: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a/b', labels: { 'bad key!': 'x' } } } })).toEqual([
      invalid('spec.template.metadata.name', `Invalid value: "a/b": may not contain '/'`),
      invalid(
        'spec.template.metadata.labels',
        `Invalid value: "bad key!": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
      ),
    ]);
  });
});

describe('validation ratcheting on update', () => {
  const s = {
    type: 'object',
    properties: {
      name: { type: 'string', maxLength: 3 },
      size: { type: 'integer', maximum: 5 },
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer', maximum: 100 } } },
      },
    },
  };
  const compiled = compileSchema(root(s));

  it('lets values stored under a looser schema stay while other fields change', () => {
    const old = cr({ name: 'toolong', size: 1, ports: [{ name: 'a', port: 500 }] });
    const updated = cr({ name: 'toolong', size: 2, ports: [{ name: 'b', port: 1 }, { name: 'a', port: 500 }] });
    expect(compiled.validateUpdate(updated, old)).toEqual([]);
  });

  it('still refuses values that changed, and new items of a map list', () => {
    const old = cr({ name: 'toolong', size: 1, ports: [{ name: 'a', port: 500 }] });
    const updated = cr({ name: 'longer!', size: 9, ports: [{ name: 'a', port: 501 }, { name: 'c', port: 700 }] });
    expect(compiled.validateUpdate(updated, old)).toEqual([
      { reason: 'FieldValueTooLong', field: 'spec.name', message: 'Too long: may not be more than 3 bytes' },
      invalid('spec.size', 'Invalid value: 9: spec.size in body should be less than or equal to 5'),
      invalid('spec.ports[0].port', 'Invalid value: 501: spec.ports[0].port in body should be less than or equal to 100'),
      invalid('spec.ports[1].port', 'Invalid value: 700: spec.ports[1].port in body should be less than or equal to 100'),
    ]);
  });
});

describe("kube's own custom resource validation cases (its noxu schema)", () => {
  const noxu = compileSchema({
    type: 'object',
    required: ['alpha', 'beta'],
    properties: {
      alpha: { type: 'string', pattern: '^[a-zA-Z0-9_]*$' },
      beta: { type: 'number', minimum: 10 },
      gamma: { type: 'string', enum: ['foo', 'bar', 'baz'] },
      delta: { 'x-kubernetes-preserve-unknown-fields': true, anyOf: [{ type: 'string', maxLength: 5 }, { type: 'number', minimum: 0 }] },
    },
  });
  const instance = (changes: Record<string, unknown>) => ({
    apiVersion: 'mygroup.example.com/v1beta1',
    kind: 'WishIHadChosenNoxu',
    metadata: { namespace: 'not-the-default', name: 'foo' },
    alpha: 'foo_123',
    beta: 10,
    gamma: 'bar',
    delta: 'hello',
    ...changes,
  });

  it('accepts the valid instance', () => {
    expect(noxu.validate(instance({}))).toEqual([]);
  });

  it.each([
    ['bad alpha', { alpha: 'foo_123!' }, [invalid('alpha', `Invalid value: "foo_123!": alpha in body should match '^[a-zA-Z0-9_]*$'`)]],
    ['bad beta', { beta: 5 }, [invalid('beta', 'Invalid value: 5: beta in body should be greater than or equal to 10')]],
    ['bad gamma', { gamma: 'qux' }, [{ reason: 'FieldValueNotSupported', field: 'gamma', message: 'Unsupported value: "qux": supported values: "foo", "bar", "baz"' }]],
    [
      'bad delta',
      { delta: 'foobarbaz' },
      [invalid('<nil>', 'Invalid value: "": "delta" must validate at least one schema (anyOf)'), { reason: 'FieldValueTooLong', field: 'delta', message: 'Too long: may not be more than 5 bytes' }],
    ],
    [
      'absent alpha and beta',
      { alpha: undefined, beta: undefined },
      [
        { reason: 'FieldValueRequired', field: 'alpha', message: 'Required value' },
        { reason: 'FieldValueRequired', field: 'beta', message: 'Required value' },
      ],
    ],
  ])('%s', (_name, changes, causes) => {
    const obj = JSON.parse(JSON.stringify(instance(changes))) as Record<string, unknown>;
    expect(noxu.validate(obj)).toEqual(causes);
  });
});
