// A custom resource's validator reads objects with their nulls dropped (kube decodes them as
// absent) whether or not a null is left after pruning and defaulting, and never changes the
// object it checks: it copies only when a null is there to drop.
import { describe, expect, it } from 'vitest';
import { customResourceValidator } from '../../../runtime/registry/custom-resources/validator.js';
import { compileSchema } from '../../../runtime/validation/openapi-schema/index.js';
import { compileRules } from '../../../runtime/validation/kube-cel/index.js';

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        note: { type: 'string', nullable: true },
        replicas: { type: 'integer', minimum: 0 },
        tags: { type: 'array', items: { type: 'string', nullable: true } },
      },
      'x-kubernetes-validations': [
        { rule: '!has(self.note) || self.note != ""', message: 'note may not be empty' },
        { rule: '!has(self.tags) || self.tags.all(t, t != "bad")', message: 'no bad tags' },
      ],
    },
  },
};
const validator = customResourceValidator({
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  namespaced: true,
  schema: compileSchema(schema),
  rules: compileRules(schema, '').rules,
});
const widget = (spec: Record<string, unknown>) => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'default' },
  spec,
});

describe('custom resource validator', () => {
  it('treats a nullable null as absent for the schema and the rules, leaving the object as it was', () => {
    const obj = widget({ note: null, replicas: 1, tags: ['a', null] });
    const before = JSON.stringify(obj);
    expect(validator.validate(obj)).toEqual([]);
    expect(JSON.stringify(obj)).toBe(before);
  });

  it('reports the same causes with and without nulls beside them', () => {
    const expected = [
      { reason: 'FieldValueInvalid', message: 'Invalid value: -1: spec.replicas in body should be greater than or equal to 0', field: 'spec.replicas' },
    ];
    expect(validator.validate(widget({ replicas: -1 }))).toEqual(expected);
    expect(validator.validate(widget({ replicas: -1, note: null }))).toEqual(expected);
    const ruleCause = [{ reason: 'FieldValueInvalid', message: 'Invalid value: "object": no bad tags', field: 'spec' }];
    expect(validator.validate(widget({ tags: ['bad'] }))).toEqual(ruleCause);
    expect(validator.validate(widget({ tags: ['bad', null], note: null }))).toEqual(ruleCause);
  });

  it('checks an update against the old object with nulls dropped on both sides', () => {
    const old = { ...widget({ note: null, replicas: 2 }), metadata: { name: 'w', namespace: 'default', resourceVersion: '5' } };
    const obj = { ...widget({ note: '', replicas: 2 }), metadata: { name: 'w', namespace: 'default', resourceVersion: '5' } };
    expect(validator.validateUpdate(obj, old)).toEqual([
      { reason: 'FieldValueInvalid', message: 'Invalid value: "object": note may not be empty', field: 'spec' },
    ]);
    expect(old.spec.note).toBeNull();
  });
});
