import { describe, expect, it } from 'vitest';
import { SchemaIndex } from '../../runtime/machinery/openapi-schema.js';
import { omitEmptyCollections } from '../../runtime/registry/omit-empty.js';

const index = new SchemaIndex({
  'test.Obj': {
    required: ['items'],
    properties: {
      metadata: { allOf: [{ $ref: '#/components/schemas/test.Meta' }] },
      data: { additionalProperties: { type: 'string' } },
      items: { items: { properties: { tags: { items: { type: 'string' } } } } },
      spec: { properties: { finalizers: { items: { type: 'string' } } } },
      raw: { 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
  'test.Meta': { properties: { annotations: { additionalProperties: { type: 'string' } }, finalizers: { items: { type: 'string' } } } },
});

describe('omitting empty collections as a Go round trip does', () => {
  it('drops empty optional maps and lists at every depth, keeping structs, required fields and free-form data', () => {
    const obj: Record<string, unknown> = {
      metadata: { annotations: {}, finalizers: [] },
      data: {},
      items: [{ tags: [] }],
      spec: { finalizers: [] },
      raw: { empty: {} },
    };
    omitEmptyCollections(obj, index.component('test.Obj')!, index);
    expect(obj).toEqual({ metadata: {}, items: [{}], spec: {}, raw: { empty: {} } });
  });

  it('keeps a required list even when empty, and non-empty collections', () => {
    const obj: Record<string, unknown> = { items: [], data: { a: 'b' } };
    omitEmptyCollections(obj, index.component('test.Obj')!, index);
    expect(obj).toEqual({ items: [], data: { a: 'b' } });
  });
});
