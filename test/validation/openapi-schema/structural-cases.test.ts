// Schemas kube-apiserver's own integration tests send (apiextensions-apiserver
// test/integration/validation_test.go, TestNonStructuralSchemaCondition), with the violations kube
// reports for each, as `field: message` texts under spec.versions[0].schema.openAPIV3Schema.

import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { schemaCauses, type JSONSchemaProps } from '../../../runtime/validation/openapi-schema/index.js';

const P = 'spec.versions[0].schema.openAPIV3Schema';
const texts = (yaml: string): string[] => schemaCauses(parse(yaml) as JSONSchemaProps, P).map((c) => `${c.field}: ${c.message}`);

describe("kube's structural-schema cases", () => {
  it('value validations may not carry type, additionalProperties, title, description or nullable', () => {
    const got = texts(`
type: object
properties:
  foo: {type: string}
not: {type: string, additionalProperties: true, title: hello, description: world, nullable: true}
allOf:
- properties:
    foo: {type: string, additionalProperties: true, title: hello, description: world, nullable: true}
anyOf:
- items: {type: string, additionalProperties: true, title: hello, description: world, nullable: true}
oneOf:
- properties:
    foo: {type: string, additionalProperties: true, title: hello, description: world, nullable: true}
`);
    for (const where of ['anyOf[0].items', 'allOf[0].properties[foo]', 'oneOf[0].properties[foo]', 'not']) {
      expect(got).toContain(`${P}.${where}.type: Forbidden: must be empty to be structural`);
      expect(got).toContain(`${P}.${where}.additionalProperties: Forbidden: must be undefined to be structural`);
      expect(got).toContain(`${P}.${where}.title: Forbidden: must be empty to be structural`);
      expect(got).toContain(`${P}.${where}.description: Forbidden: must be empty to be structural`);
      expect(got).toContain(`${P}.${where}.nullable: Forbidden: must be false to be structural`);
    }
    expect(got).toContain(`${P}.items: Required value: because it is defined in ${P}.anyOf[0].items`);
    expect(got.some((t) => t.startsWith(`${P}.not.default`))).toBe(false);
  });

  it('an invalid pattern', () => {
    expect(texts(`
type: object
properties:
  foo: {type: string, pattern: "+"}
`)).toEqual([`${P}.properties[foo].pattern: Invalid value: "+": must be a valid regular expression, but isn't: error parsing regexp: missing argument to repetition operator: \`+\``]);
  });

  it('vendor extensions inside value validations', () => {
    const got = texts(`
type: object
properties:
  int-or-string: {x-kubernetes-int-or-string: true}
  embedded-resource: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
not:
  properties:
    int-or-string: {x-kubernetes-int-or-string: true}
    embedded-resource: {x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
allOf:
- properties:
    int-or-string: {x-kubernetes-int-or-string: true}
    embedded-resource: {x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
`);
    for (const where of ['allOf[0]', 'not']) {
      expect(got).toContain(`${P}.${where}.properties[embedded-resource].x-kubernetes-preserve-unknown-fields: Forbidden: must be false to be structural`);
      expect(got).toContain(`${P}.${where}.properties[embedded-resource].x-kubernetes-embedded-resource: Forbidden: must be false to be structural`);
      expect(got).toContain(`${P}.${where}.properties[int-or-string].x-kubernetes-int-or-string: Forbidden: must be false to be structural`);
    }
  });

  it('missing types, everywhere a schema can sit', () => {
    expect(
      texts(`
properties:
  foo:
    properties:
      a: {}
  bar:
    items:
      additionalProperties:
        properties:
          a: {}
        items: {}
  abc:
    additionalProperties:
      properties:
        a:
          items:
            additionalProperties:
              items:
`),
    ).toEqual([
      `${P}.properties[abc].additionalProperties.properties[a].items.additionalProperties.type: Required value: must not be empty for specified object fields`,
      `${P}.properties[abc].additionalProperties.properties[a].items.type: Required value: must not be empty for specified array items`,
      `${P}.properties[abc].additionalProperties.properties[a].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[abc].additionalProperties.type: Required value: must not be empty for specified object fields`,
      `${P}.properties[abc].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[bar].items.additionalProperties.items.type: Required value: must not be empty for specified array items`,
      `${P}.properties[bar].items.additionalProperties.properties[a].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[bar].items.additionalProperties.type: Required value: must not be empty for specified object fields`,
      `${P}.properties[bar].items.type: Required value: must not be empty for specified array items`,
      `${P}.properties[bar].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[foo].properties[a].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[foo].type: Required value: must not be empty for specified object fields`,
      `${P}.type: Required value: must not be empty at the root`,
    ]);
  });

  it('int-or-string: only the exact anyOf [integer, string] forms are structural', () => {
    const got = texts(`
type: object
properties:
  a: {x-kubernetes-int-or-string: true}
  b: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}], allOf: [{pattern: abc}]}
  c: {x-kubernetes-int-or-string: true, allOf: [{anyOf: [{type: integer}, {type: string}]}, {pattern: abc}, {pattern: abc}]}
  d: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string, pattern: abc}]}
  e: {x-kubernetes-int-or-string: true, allOf: [{anyOf: [{type: integer}, {type: string, pattern: abc}]}, {pattern: abc}]}
  f: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}, {pattern: abc}]}
  g: {x-kubernetes-int-or-string: true, anyOf: [{type: string}, {type: integer}]}
`);
    expect(got).toEqual([
      `${P}.properties[d].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${P}.properties[d].anyOf[1].type: Forbidden: must be empty to be structural`,
      `${P}.properties[e].allOf[0].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${P}.properties[e].allOf[0].anyOf[1].type: Forbidden: must be empty to be structural`,
      `${P}.properties[f].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${P}.properties[f].anyOf[1].type: Forbidden: must be empty to be structural`,
      `${P}.properties[g].anyOf[0].type: Forbidden: must be empty to be structural`,
      `${P}.properties[g].anyOf[1].type: Forbidden: must be empty to be structural`,
    ]);
  });

  it('fields named only in value validations of the root', () => {
    const got = texts(`
type: object
properties:
  b: {type: object, properties: {b: {type: array}}}
  c: {type: array, items: {type: object}}
  d: {type: array}
not:
  properties:
    a: {}
    b: {not: {properties: {a: {}, b: {items: {}}}}}
    c: {items: {not: {items: {properties: {a: {}}}}}}
    d: {items: {}}
allOf: [{properties: {e: {}}}]
anyOf: [{properties: {f: {}}}]
oneOf: [{properties: {g: {}}}]
`);
    for (const [at, from] of [
      ['properties[d].items', 'not.properties[d].items'],
      ['properties[a]', 'not.properties[a]'],
      ['properties[b].properties[a]', 'not.properties[b].not.properties[a]'],
      ['properties[b].properties[b].items', 'not.properties[b].not.properties[b].items'],
      ['properties[c].items.items', 'not.properties[c].items.not.items'],
      ['properties[e]', 'allOf[0].properties[e]'],
      ['properties[f]', 'anyOf[0].properties[f]'],
      ['properties[g]', 'oneOf[0].properties[g]'],
    ]) {
      expect(got).toContain(`${P}.${at}: Required value: because it is defined in ${P}.${from}`);
    }
  });

  it('metadata: only name and generateName, and never inside value validations', () => {
    expect(texts(`
type: object
properties:
  metadata: {minimum: 42.0}
`)).toEqual([
      // Sorted as kube sorts them, by the whole text: '.' before ':'.
      `${P}.properties[metadata].type: Invalid value: "": must be object`,
      `${P}.properties[metadata].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ]);
    expect(texts(`
type: object
properties:
  metadata:
    properties:
      name: {pattern: "^[a-z]+$"}
      labels: {type: object, maxLength: 4}
`)).toEqual([
      `${P}.properties[metadata].properties[name].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[metadata].type: Invalid value: "": must be object`,
      `${P}.properties[metadata].type: Required value: must not be empty for specified object fields`,
      `${P}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
    ]);
    for (const props of ['{name: {type: string, pattern: "^[a-z]+$"}}', '{generateName: {type: string}}', '{name: {type: string}, generateName: {type: string}}']) {
      expect(texts(`{type: object, properties: {metadata: {type: object, properties: ${props}}}}`)).toEqual([]);
    }
    const got = texts(`
type: object
properties:
  metadata: {type: object, properties: {name: {type: string}}}
allOf: [{properties: {metadata: {}}}]
anyOf: [{properties: {metadata: {}}}]
oneOf: [{properties: {metadata: {}}}]
not: {properties: {metadata: {}}}
`);
    for (const where of ['allOf[0]', 'anyOf[0]', 'oneOf[0]', 'not']) {
      expect(got).toContain(`${P}.${where}.properties[metadata]: Forbidden: must not be specified in a nested context`);
    }
  });

  it('items as a list of schemas, also inside value validations', () => {
    expect(texts('{type: object, properties: {slice: {type: array, items: [{type: string}, {type: integer}]}}}')).toContain(
      `${P}.properties[slice].items: Forbidden: items must be a schema object and not an array`,
    );
    expect(texts('{type: object, properties: {slice: {type: array, items: {type: string}, not: {items: [{type: string}]}}}}')).toContain(
      `${P}.properties[slice].not.items: Forbidden: items must be a schema object and not an array`,
    );
  });

  it('extensions that contradict each other', () => {
    expect(texts('{x-kubernetes-preserve-unknown-fields: true, x-kubernetes-int-or-string: true}')).toContain(
      `${P}.x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
    );
    expect(texts('{type: object, x-kubernetes-embedded-resource: true, x-kubernetes-int-or-string: true}')).toContain(
      `${P}.x-kubernetes-embedded-resource: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
    );
    expect(texts('{type: array, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}')).toContain(
      `${P}.type: Invalid value: "array": must be object if x-kubernetes-embedded-resource is true`,
    );
    expect(texts('{type: "", x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}')).toContain(
      `${P}.type: Required value: must be object if x-kubernetes-embedded-resource is true`,
    );
  });
});
