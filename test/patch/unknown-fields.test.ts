import { describe, expect, it } from 'vitest';
import { StatusError } from '../../runtime/errors/status-error.js';
import { SchemaIndex } from '../../runtime/machinery/openapi-schema.js';
import { parseFieldValidation, pruneUnknownFields, unknownFieldOutcome } from '../../runtime/registry/unknown-fields.js';

const index = new SchemaIndex({
  'test.Obj': {
    properties: {
      metadata: { allOf: [{ $ref: '#/components/schemas/test.Meta' }] },
      data: { additionalProperties: { type: 'string' } },
      items: { items: { properties: { name: { type: 'string' } } } },
      raw: { 'x-kubernetes-preserve-unknown-fields': true },
    },
  },
  'test.Meta': { properties: { name: { type: 'string' }, labels: { additionalProperties: { type: 'string' } } } },
});
const root = index.component('test.Obj')!;

describe('unknown fields', () => {
  it('drops and reports fields the schema does not know, at every depth', () => {
    const obj: Record<string, unknown> = {
      bogus: 1,
      metadata: { name: 'a', nope: true, labels: { anyKey: 'ok' } },
      data: { free: 'form' },
      items: [{ name: 'x' }, { name: 'y', extra: 2 }],
      raw: { anything: { goes: 1 } },
    };
    expect(pruneUnknownFields(obj, root, index)).toEqual(['bogus', 'metadata.nope', 'items[1].extra']);
    expect(obj).toEqual({
      metadata: { name: 'a', labels: { anyKey: 'ok' } },
      data: { free: 'form' },
      items: [{ name: 'x' }, { name: 'y' }],
      raw: { anything: { goes: 1 } },
    });
  });

  it('defaults to Warn and rejects unknown directives', () => {
    expect(parseFieldValidation(undefined, 'CreateOptions')).toBe('Warn');
    expect(parseFieldValidation('Strict', 'CreateOptions')).toBe('Strict');
    let error: unknown;
    try {
      parseFieldValidation('Loud', 'PatchOptions');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).toStatus()).toMatchObject({
      code: 422,
      reason: 'Invalid',
      message: 'PatchOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"',
      details: { group: 'meta.k8s.io', kind: 'PatchOptions', causes: [{ field: 'fieldValidation', reason: 'FieldValueNotSupported' }] },
    });
  });

  it('fails Strict with the strict decoding message, warns under Warn, is silent under Ignore', () => {
    expect(() => unknownFieldOutcome(['bogus'], 'Strict', 'ConfigMap', 'v1')).toThrowError(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"',
    );
    expect(unknownFieldOutcome(['a', 'b.c'], 'Warn', 'ConfigMap', 'v1')).toEqual(['unknown field "a"', 'unknown field "b.c"']);
    expect(unknownFieldOutcome(['a'], 'Ignore', 'ConfigMap', 'v1')).toEqual([]);
  });
});
