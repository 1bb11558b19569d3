// selectableFields of a CRD version: the field set kube 1.33 computes for a custom resource and
// the field selectors it accepts or refuses (`field label not supported`), through the same
// predicate lists and watches use.

import { describe, expect, it } from 'vitest';
import { StatusError } from '../../runtime/errors/status-error.js';
import { customResourceSelectableFields } from '../../runtime/registry/crd-selectable-fields.js';
import { compilePredicate } from '../../runtime/registry/selection.js';
import type { Strategy } from '../../runtime/registry/strategy.js';

const CERT_FIELDS = [{ jsonPath: '.spec.issuerRef.group' }, { jsonPath: '.spec.issuerRef.kind' }, { jsonPath: '.spec.issuerRef.name' }];

const cert = (name: string, issuer?: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: 'cert-manager.io/v1',
  kind: 'Certificate',
  metadata: { name, namespace: 'default' },
  spec: { secretName: name, ...(issuer ? { issuerRef: { name: issuer, kind: 'Issuer' } } : {}), ...extra },
});

function strategyWith(selectableFields: Strategy['selectableFields']): Strategy {
  return { selectableFields } as Strategy;
}

function refusal(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
  throw new Error('expected a StatusError');
}

describe('customResourceSelectableFields', () => {
  it('gives metadata.name, metadata.namespace and each listed path without its dot, empty when missing', () => {
    const fields = customResourceSelectableFields(true, CERT_FIELDS);
    expect(fields(cert('a', 'ca'))).toEqual({
      'metadata.name': 'a',
      'metadata.namespace': 'default',
      'spec.issuerRef.group': '',
      'spec.issuerRef.kind': 'Issuer',
      'spec.issuerRef.name': 'ca',
    });
  });

  it('prints integers, booleans and floats as Go\'s fmt.Sprint does', () => {
    const fields = customResourceSelectableFields(false, [{ jsonPath: '.spec.replicas' }, { jsonPath: '.spec.paused' }, { jsonPath: '.spec.ratio' }]);
    expect(fields({ metadata: { name: 'r' }, spec: { replicas: 3, paused: false, ratio: 0.5 } })).toEqual({
      'metadata.name': 'r',
      'spec.replicas': '3',
      'spec.paused': 'false',
      'spec.ratio': '0.5',
    });
  });

  it('selects on the listed paths with =, == and !=', () => {
    const strategy = strategyWith(customResourceSelectableFields(true, CERT_FIELDS));
    const objects = [cert('a', 'ca'), cert('b', 'other'), cert('c')];
    const names = (selector: string) =>
      objects.filter((o) => compilePredicate(strategy, { fieldSelector: selector }).matches(o)).map((o) => o.metadata.name);
    expect(names('spec.issuerRef.name=ca')).toEqual(['a']);
    expect(names('spec.issuerRef.name==other')).toEqual(['b']);
    expect(names('spec.issuerRef.name!=ca')).toEqual(['b', 'c']);
    expect(names('spec.issuerRef.name=')).toEqual(['c']);
    expect(names('spec.issuerRef.kind=Issuer,metadata.name!=a')).toEqual(['b']);
    expect(names('metadata.namespace=default')).toEqual(['a', 'b', 'c']);
  });

  it('refuses fields the version does not list with kube\'s 400', () => {
    const strategy = strategyWith(customResourceSelectableFields(true, CERT_FIELDS));
    const err = refusal(() => compilePredicate(strategy, { fieldSelector: 'spec.secretName=a' }));
    expect(err.code).toBe(400);
    expect(err.message).toBe('field label not supported: spec.secretName');
  });

  it('refuses metadata.namespace on a cluster-scoped kind, as kube\'s converter does', () => {
    const strategy = strategyWith(customResourceSelectableFields(false, []));
    expect(refusal(() => compilePredicate(strategy, { fieldSelector: 'metadata.namespace=x' })).message).toBe(
      'field label not supported: metadata.namespace',
    );
    expect(compilePredicate(strategy, { fieldSelector: 'metadata.name=x' }).matches({ metadata: { name: 'x' } })).toBe(true);
  });
});
