// The Scale of a custom resource and the checks of its scale paths, as apiextensions-apiserver's
// scaleFromCustomResource and customResourceValidator.ValidateScaleSpec/Status compute them.

import { describe, expect, it } from 'vitest';
import { scaleFromCustomResource, scaleSpecCauses, scaleStatusCauses, setSpecReplicas } from '../../runtime/registry/crd-scale.js';

const ROLLOUT_SCALE = { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.HPAReplicas', labelSelectorPath: '.status.selector' };

const rollout = (spec: Record<string, unknown>, status?: Record<string, unknown>) => ({
  apiVersion: 'argoproj.io/v1alpha1',
  kind: 'Rollout',
  metadata: { name: 'web', namespace: 'default', uid: 'u-1', resourceVersion: '42', creationTimestamp: '2026-01-01T00:00:00Z', labels: { a: 'b' }, generation: 3 },
  spec,
  ...(status ? { status } : {}),
});

describe('scaleFromCustomResource', () => {
  it('reads replicas, status replicas and the selector at the CRD\'s paths, with only the identifying metadata', () => {
    const { scale, specReplicasFound } = scaleFromCustomResource(rollout({ replicas: 5 }, { HPAReplicas: 4, selector: 'app=web' }), ROLLOUT_SCALE);
    expect(specReplicasFound).toBe(true);
    expect(scale).toEqual({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name: 'web', namespace: 'default', uid: 'u-1', resourceVersion: '42', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: { replicas: 5 },
      status: { replicas: 4, selector: 'app=web' },
    });
  });

  it('leaves out spec.replicas when zero or missing (omitempty) and says whether it was there', () => {
    expect(scaleFromCustomResource(rollout({ replicas: 0 }), ROLLOUT_SCALE)).toMatchObject({ scale: { spec: {}, status: { replicas: 0 } }, specReplicasFound: true });
    expect(scaleFromCustomResource(rollout({}), ROLLOUT_SCALE)).toMatchObject({ scale: { spec: {} }, specReplicasFound: false });
  });

  it('fails with unstructured\'s accessor errors for values of the wrong type', () => {
    expect(() => scaleFromCustomResource(rollout({ replicas: 'three' }), ROLLOUT_SCALE)).toThrow('.spec.replicas accessor error: three is of the type string, expected int64');
    expect(() => scaleFromCustomResource({ metadata: { name: 'x' }, spec: 'flat' }, ROLLOUT_SCALE)).toThrow(
      '.spec.replicas accessor error: flat is of the type string, expected map[string]interface{}',
    );
    expect(() => scaleFromCustomResource(rollout({ replicas: 1 }, { selector: 7 }), ROLLOUT_SCALE)).toThrow('.status.selector accessor error: 7 is of the type int64, expected string');
  });
});

describe('setSpecReplicas', () => {
  it('writes the replicas at the path, making missing parents', () => {
    const cr: Record<string, unknown> = { metadata: { name: 'x' } };
    setSpecReplicas(cr, { specReplicasPath: '.spec.scaling.replicas', statusReplicasPath: '.status.replicas' }, 7);
    expect(cr.spec).toEqual({ scaling: { replicas: 7 } });
  });
});

describe('scale path checks', () => {
  it('refuses negative, too large and mistyped replicas at the path as written', () => {
    expect(scaleSpecCauses(rollout({ replicas: -1 }), ROLLOUT_SCALE)).toEqual([
      { reason: 'FieldValueInvalid', field: '.spec.replicas', message: 'Invalid value: -1: should be a non-negative integer' },
    ]);
    expect(scaleSpecCauses(rollout({ replicas: 2147483648 }), ROLLOUT_SCALE)[0].message).toBe('Invalid value: 2147483648: should be less than or equal to 2147483647');
    expect(scaleSpecCauses(rollout({ replicas: 1.5 }), ROLLOUT_SCALE)[0].message).toBe(
      'Invalid value: 0: .spec.replicas accessor error: 1.5 is of the type float64, expected int64',
    );
    expect(scaleSpecCauses(rollout({ replicas: 2 }), ROLLOUT_SCALE)).toEqual([]);
    expect(scaleSpecCauses(rollout({}), undefined)).toEqual([]);
  });

  it('checks status replicas and the selector\'s type', () => {
    expect(scaleStatusCauses(rollout({}, { HPAReplicas: -2, selector: ['a'] }), ROLLOUT_SCALE)).toEqual([
      { reason: 'FieldValueInvalid', field: '.status.HPAReplicas', message: 'Invalid value: -2: should be a non-negative integer' },
      { reason: 'FieldValueInvalid', field: '.status.selector', message: 'Invalid value: "": .status.selector accessor error: [a] is of the type []interface {}, expected string' },
    ]);
  });
});
