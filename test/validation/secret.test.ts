// Secret rules with kube-apiserver's exact causes.

import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { strategiesFor } from '../../runtime/registry/strategies/index.js';
import { CONFIG_KEY_MSG, IMMUTABLE_WHEN_SET, validatorOf } from '../support/validator-kinds.js';

const secret = validatorOf('Secret');
// type's immutability is checked by the strategy (and declaratively, test/registry/declarative-validation.test.ts).
const secretStrategy = strategiesFor(resources.find((r) => r.kind === 'Secret' && r.group === '')!).main;
const meta = { name: 'creds', namespace: 'default' };
const stored = { resourceVersion: '7', ...meta };

describe('Secret', () => {
  it('defaults type to Opaque and keeps a given type', () => {
    const s: Record<string, unknown> = { metadata: meta };
    secret.applyDefaults(s);
    expect(s.type).toBe('Opaque');
    const tls: Record<string, unknown> = { metadata: meta, type: 'kubernetes.io/tls' };
    secret.applyDefaults(tls);
    expect(tls.type).toBe('kubernetes.io/tls');
  });

  it('accepts valid data keys and stringData', () => {
    expect(secret.validate({ metadata: meta, type: 'Opaque', data: { 'user.name': 'YWRtaW4=' }, stringData: { password: 'x' } })).toEqual([]);
  });

  it('rejects a bad data key at data[key]', () => {
    expect(secret.validate({ metadata: meta, data: { 'a b': 'AA==' } })).toEqual([
      { reason: 'FieldValueInvalid', field: 'data[a b]', message: `Invalid value: "a b": ${CONFIG_KEY_MSG}` },
    ]);
  });

  it('keeps type immutable', () => {
    expect(secretStrategy.validateUpdate({ metadata: stored, type: 'example.com/x' }, { metadata: stored, type: 'Opaque' })).toEqual([
      { reason: 'FieldValueInvalid', field: 'type', message: 'Invalid value: "example.com/x": field is immutable' },
    ]);
    expect(secretStrategy.validateUpdate({ metadata: stored, type: 'Opaque', data: { a: 'AA==' } }, { metadata: stored, type: 'Opaque' })).toEqual([]);
  });

  it('forbids changing data or unsetting immutable once immutable, in upstream order', () => {
    const old = { metadata: stored, type: 'Opaque', immutable: true, data: { a: 'AA==' } };
    expect(secretStrategy.validateUpdate({ metadata: stored, type: 'Other', data: { a: 'AQ==' } }, old)).toEqual([
      { reason: 'FieldValueInvalid', field: 'type', message: 'Invalid value: "Other": field is immutable' },
      { reason: 'FieldValueForbidden', field: 'immutable', message: IMMUTABLE_WHEN_SET },
      { reason: 'FieldValueForbidden', field: 'data', message: IMMUTABLE_WHEN_SET },
    ]);
  });

  it('lets an immutable Secret change its metadata only', () => {
    const old = { metadata: stored, type: 'Opaque', immutable: true, data: { a: 'AA==' } };
    expect(secret.validateUpdate({ metadata: { ...stored, annotations: { note: 'x' } }, type: 'Opaque', immutable: true, data: { a: 'AA==' } }, old)).toEqual([]);
  });
});
