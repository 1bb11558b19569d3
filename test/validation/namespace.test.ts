// Namespace rules with kube-apiserver's exact causes (and the spec's stricter condition rules).

import { describe, expect, it } from 'vitest';
import { LABEL_MSG, validatorOf } from '../support/validator-kinds.js';

const ns = validatorOf('Namespace');
const QUALIFIED_NAME_PART =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('Namespace', () => {
  it('defaults status.phase to Active, creating status', () => {
    const obj: Record<string, unknown> = { metadata: { name: 'team-a' } };
    ns.applyDefaults(obj);
    expect(obj).toEqual({ metadata: { name: 'team-a' }, status: { phase: 'Active' } });
    const terminating: Record<string, unknown> = { metadata: { name: 'x' }, status: { phase: 'Terminating' } };
    ns.applyDefaults(terminating);
    expect(terminating.status).toEqual({ phase: 'Terminating' });
  });

  it('accepts a DNS label name, standard and qualified finalizers, and valid conditions', () => {
    expect(
      ns.validate({
        metadata: { name: 'team-a' },
        spec: { finalizers: ['kubernetes', 'example.com/cleanup'] },
        status: { phase: 'Active', conditions: [{ type: 'NamespaceDeletionContentFailure', status: 'False' }] },
      }),
    ).toEqual([]);
  });

  it.each([
    ['a.b', ['must not contain dots']],
    ['Team', [LABEL_MSG]],
    ['x'.repeat(64), ['must be no more than 63 characters']],
  ])('rejects the name %j', (name, messages) => {
    expect(ns.validate({ metadata: { name } })).toEqual(messages.map((m) => ({ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: ${JSON.stringify(name)}: ${m}` })));
  });

  it('forbids metadata.namespace on this cluster-scoped kind', () => {
    expect(ns.validate({ metadata: { name: 'a', namespace: 'b' } })).toEqual([{ reason: 'FieldValueForbidden', field: 'metadata.namespace', message: 'Forbidden: not allowed on this type' }]);
  });

  it('rejects unqualified non-standard spec finalizers at spec.finalizers (no index, as upstream)', () => {
    expect(ns.validate({ metadata: { name: 'a' }, spec: { finalizers: ['custom', 'bad name/x'] } })).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.finalizers', message: 'Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified' },
      {
        reason: 'FieldValueInvalid',
        field: 'spec.finalizers',
        message: `Invalid value: "bad name/x": prefix part ${"a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"}`,
      },
    ]);
  });

  it('requires condition type and status, and status True, False or Unknown', () => {
    expect(ns.validate({ metadata: { name: 'a' }, status: { conditions: [{ type: 'Ready', status: 'Maybe' }, {}] } })).toEqual([
      { reason: 'FieldValueNotSupported', field: 'status.conditions[0].status', message: 'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"' },
      { reason: 'FieldValueRequired', field: 'status.conditions[1].type', message: 'Required value' },
      { reason: 'FieldValueRequired', field: 'status.conditions[1].status', message: 'Required value' },
    ]);
  });

  it('checks the new object before the metadata update rules', () => {
    expect(ns.validateUpdate({ metadata: { name: 'b', resourceVersion: '1' }, spec: { finalizers: ['custom'] } }, { metadata: { name: 'a' } })).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.finalizers', message: 'Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified' },
      { reason: 'FieldValueInvalid', field: 'metadata.name', message: 'Invalid value: "b": field is immutable' },
    ]);
  });

  it('has a qualified-name message for a bad metadata finalizer', () => {
    expect(ns.validate({ metadata: { name: 'a', finalizers: ['example.com/-x'] } })).toEqual([
      { reason: 'FieldValueInvalid', field: 'metadata.finalizers', message: `Invalid value: "example.com/-x": ${QUALIFIED_NAME_PART}` },
    ]);
  });
});
