// ConfigMap rules with kube-apiserver's exact causes.

import { describe, expect, it } from 'vitest';
import { CONFIG_KEY_MSG, IMMUTABLE_WHEN_SET, validatorOf } from '../support/validator-kinds.js';

const cm = validatorOf('ConfigMap');
const meta = { name: 'app', namespace: 'default' };
const stored = { resourceVersion: '5', ...meta };

describe('ConfigMap', () => {
  it('accepts valid keys in data and binaryData', () => {
    expect(cm.validate({ apiVersion: 'v1', kind: 'ConfigMap', metadata: meta, data: { 'key.name': 'x', KEY_NAME: 'y', 'key-name': 'z' }, binaryData: { 'bin.dat': 'AAE=' } })).toEqual([]);
  });

  it.each([
    ['a b', [CONFIG_KEY_MSG]],
    ['.', ["must not be '.'"]],
    ['..', ["must not be '..'"]],
    ['..hidden', ["must not start with '..'"]],
    ['k'.repeat(254), ['must be no more than 253 characters']],
    ['a/b', [CONFIG_KEY_MSG]],
  ])('rejects the data key %j', (key, messages) => {
    expect(cm.validate({ metadata: meta, data: { [key]: 'v' } })).toEqual(
      messages.map((m) => ({ reason: 'FieldValueInvalid', field: `data[${key}]`, message: `Invalid value: ${JSON.stringify(key)}: ${m}` })),
    );
  });

  it('rejects a bad binaryData key at binaryData[key]', () => {
    expect(cm.validate({ metadata: meta, binaryData: { 'a b': 'AA==' } })).toEqual([
      { reason: 'FieldValueInvalid', field: 'binaryData[a b]', message: `Invalid value: "a b": ${CONFIG_KEY_MSG}` },
    ]);
  });

  it('rejects a key present in both data and binaryData, at data[key]', () => {
    expect(cm.validate({ metadata: meta, data: { both: 'x' }, binaryData: { both: 'eA==' } })).toEqual([
      { reason: 'FieldValueInvalid', field: 'data[both]', message: 'Invalid value: "both": duplicate of key present in binaryData' },
    ]);
  });

  it('lets a mutable ConfigMap change data and become immutable', () => {
    const old = { metadata: stored, data: { a: '1' } };
    expect(cm.validateUpdate({ metadata: stored, data: { a: '2' }, immutable: true }, old)).toEqual([]);
  });

  it('lets an immutable ConfigMap change only its metadata', () => {
    const old = { metadata: stored, immutable: true, data: { a: '1' }, binaryData: { b: 'AA==' } };
    expect(cm.validateUpdate({ metadata: { ...stored, labels: { x: 'y' } }, immutable: true, data: { a: '1' }, binaryData: { b: 'AA==' } }, old)).toEqual([]);
  });

  it('forbids changing data, binaryData or unsetting immutable once immutable', () => {
    const old = { metadata: stored, immutable: true, data: { a: '1' }, binaryData: { b: 'AA==' } };
    expect(cm.validateUpdate({ metadata: stored, data: { a: '2' }, binaryData: {} }, old)).toEqual([
      { reason: 'FieldValueForbidden', field: 'immutable', message: IMMUTABLE_WHEN_SET },
      { reason: 'FieldValueForbidden', field: 'data', message: IMMUTABLE_WHEN_SET },
      { reason: 'FieldValueForbidden', field: 'binaryData', message: IMMUTABLE_WHEN_SET },
    ]);
  });

  it('forbids setting immutable to false once true', () => {
    const old = { metadata: stored, immutable: true };
    expect(cm.validateUpdate({ metadata: stored, immutable: false }, old)).toEqual([
      { reason: 'FieldValueForbidden', field: 'immutable', message: IMMUTABLE_WHEN_SET },
    ]);
  });

  it('reports update-only causes before the causes of the new object', () => {
    const old = { metadata: stored, immutable: true, data: { a: '1' } };
    expect(cm.validateUpdate({ metadata: stored, immutable: true, data: { 'a b': '1' } }, old)).toEqual([
      { reason: 'FieldValueForbidden', field: 'data', message: IMMUTABLE_WHEN_SET },
      { reason: 'FieldValueInvalid', field: 'data[a b]', message: `Invalid value: "a b": ${CONFIG_KEY_MSG}` },
    ]);
  });

  it('reports a value of the wrong JSON type', () => {
    expect(cm.validate({ metadata: meta, data: { a: 1 } })).toEqual([{ reason: 'FieldValueTypeInvalid', field: 'data[a]', message: 'Invalid value: "integer": must be of type string' }]);
  });

  it('treats null fields as absent (kubectl sends creationTimestamp: null)', () => {
    expect(cm.validate({ metadata: { ...meta, creationTimestamp: null }, data: null })).toEqual([]);
  });
});

describe('ConfigMap: null members read as absent', () => {
  const deepFreeze = <T>(v: T): T => {
    if (v && typeof v === 'object' && !Object.isFrozen(v)) {
      Object.freeze(v);
      for (const c of Object.values(v)) deepFreeze(c);
    }
    return v;
  };

  it('validates a frozen object without nulls as it is (a cached version), and the same with nulls', () => {
    const clean = deepFreeze({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a b', namespace: 'default', labels: { l: 'v' } }, data: { 'x y': 'v' } });
    const withNulls = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a b', namespace: 'default', creationTimestamp: null, labels: { l: 'v', gone: null } }, data: { 'x y': 'v' }, binaryData: null };
    const causes = cm.validate(clean);
    expect(causes.map((c) => c.field)).toEqual(['metadata.name', 'data[x y]']);
    expect(cm.validate(withNulls)).toEqual(causes);
    // The object with nulls is read through a copy: the caller's is left as it was.
    expect(withNulls.metadata.labels).toEqual({ l: 'v', gone: null });
    expect(withNulls.binaryData).toBeNull();
  });

  it('an update whose old object is a frozen cached version', () => {
    const old = deepFreeze({ metadata: { ...stored, uid: 'u' }, data: { k: 'v' }, immutable: true });
    const next = { metadata: { ...stored, uid: 'u', annotations: null }, data: { k: 'changed' }, immutable: true };
    expect(cm.validateUpdate(next, old).map((c) => c.field)).toEqual(['data']);
  });
});
