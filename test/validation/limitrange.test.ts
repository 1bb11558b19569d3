// LimitRange with kube-apiserver's causes (ValidateLimitRange, pkg/apis/core/validation) and the
// Container defaults of SetDefaults_LimitRangeItem, through the kind's strategy.

import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { strategiesFor } from '../../runtime/registry/strategies/index.js';
import { canonicalQuantity } from '../../runtime/machinery/quantity.js';

type Obj = Record<string, unknown>;
type Cause = { reason: string; field: string; message: string };

const def = resources.find((r) => r.kind === 'LimitRange')!;
const strategy = strategiesFor(def, () => false).main;
const QUALIFIED_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

const limitRange = (...limits: Obj[]): Obj => ({ apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'limits', namespace: 'default' }, spec: { limits } });

const created = (obj: Obj): Obj => {
  const copy = structuredClone(obj);
  strategy.prepareForCreate(copy);
  return copy;
};
const validate = (obj: Obj): Cause[] => strategy.validate(created(obj)) as Cause[];

describe('quantity canonical form (as kube-apiserver prints quantities in messages)', () => {
  it.each([
    ['1024Mi', '1Gi'],
    ['1000m', '1'],
    ['1.5Gi', '1536Mi'],
    ['500m', '500m'],
    ['0.5', '500m'],
    ['1500', '1500'],
    ['1e3', '1e3'],
    ['100Ki', '100Ki'],
    // Ei is the exbibyte suffix, not an exponent.
    ['1Ei', '1Ei'],
    ['3Ei', '3Ei'],
    ['512', '512'],
    ['0', '0'],
    ['-1', '-1'],
    // Exponent forms have no E cap; the exponent is read as an int32, as Go keeps it.
    ['1e21', '1e21'],
    ['1e400', '10e399'],
    ['1.5e3', '1500'],
    ['12e2', '1200'],
    ['1e2000000000', '100e1999999998'],
    ['-1E9223372036854775807', '-100e-3'],
    ['2e4294967298', '200'],
    // Below a nano a value rounds up, away from zero.
    ['1e-400', '1e-9'],
    ['1.5e-9', '2e-9'],
    ['999999999e-18', '1e-9'],
    ['1.0000000001e-1', '100000001e-9'],
    ['0e99999', '0'],
  ])('%s -> %s', (input, out) => {
    expect(canonicalQuantity(input)).toBe(out);
  });
});

describe('LimitRange defaults', () => {
  it('fills a Container item: default from max, defaultRequest from default then min', () => {
    const obj = created(limitRange({ type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { 'ephemeral-storage': '1Gi' }, default: { cpu: '1' } }));
    expect((obj.spec as Obj).limits).toEqual([
      {
        type: 'Container',
        max: { cpu: '2', memory: '1Gi' },
        min: { 'ephemeral-storage': '1Gi' },
        default: { cpu: '1', memory: '1Gi' },
        defaultRequest: { cpu: '1', memory: '1Gi', 'ephemeral-storage': '1Gi' },
      },
    ]);
  });

  it('leaves Pod and PersistentVolumeClaim items alone', () => {
    const items = [
      { type: 'Pod', max: { cpu: '2' } },
      { type: 'PersistentVolumeClaim', max: { storage: '2Gi' } },
    ];
    expect((created(limitRange(...items)).spec as Obj).limits).toEqual(items);
  });
});

describe('LimitRange validation', () => {
  it.each<[string, Obj]>([
    ['a Container item with ordered bounds', limitRange({ type: 'Container', min: { cpu: '100m' }, defaultRequest: { cpu: '200m' }, default: { cpu: '500m' }, max: { cpu: '1' }, maxLimitRequestRatio: { cpu: '10' } })],
    ['a Pod item', limitRange({ type: 'Pod', max: { cpu: '4', memory: '8Gi', 'hugepages-2Mi': '1Gi' } })],
    ['a PersistentVolumeClaim item with a storage bound', limitRange({ type: 'PersistentVolumeClaim', min: { storage: '1Gi' }, max: { storage: '10Gi' } })],
    ['a fully qualified type with an extended resource', limitRange({ type: 'example.com/thing', max: { 'example.com/widgets': '3' } })],
    ['equal min and max written differently', limitRange({ type: 'Container', min: { memory: '1Gi' }, max: { memory: '1024Mi' } })],
    ['no limits at all', limitRange()],
  ])('accepts %s', (_name, obj) => {
    expect(validate(obj)).toEqual([]);
  });

  it.each<[string, Obj, Cause[]]>([
    ['an empty type', limitRange({ max: { cpu: '1' } }), [
      { reason: 'FieldValueInvalid', field: 'spec.limits[0].type', message: 'Invalid value: "": name part must be non-empty' },
      { reason: 'FieldValueInvalid', field: 'spec.limits[0].type', message: `Invalid value: "": ${QUALIFIED_MSG}` },
    ]],
    ['an unknown unqualified type', limitRange({ type: 'Node' }), [{ reason: 'FieldValueInvalid', field: 'spec.limits[0].type', message: 'Invalid value: "Node": must be a standard limit type or fully qualified' }]],
    ['the same type twice', limitRange({ type: 'Pod' }, { type: 'Pod' }), [{ reason: 'FieldValueDuplicate', field: 'spec.limits[1].type', message: 'Duplicate value: "Pod"' }]],
    ['a default on a Pod item', limitRange({ type: 'Pod', default: { cpu: '1' }, defaultRequest: { cpu: '1' } }), [
      { reason: 'FieldValueForbidden', field: 'spec.limits[0].default', message: "Forbidden: may not be specified when `type` is 'Pod'" },
      { reason: 'FieldValueForbidden', field: 'spec.limits[0].defaultRequest', message: "Forbidden: may not be specified when `type` is 'Pod'" },
    ]],
    // The defaults copied from max are checked too, as kube-apiserver defaults before it validates.
    ['a non-container resource on a Container item', limitRange({ type: 'Container', max: { pods: '1' } }), ['max', 'default', 'defaultRequest'].map((m) => ({ reason: 'FieldValueInvalid', field: `spec.limits[0].${m}[pods]`, message: 'Invalid value: "pods": must be a standard resource for containers' }))],
    ['a non-standard unqualified resource', limitRange({ type: 'PersistentVolumeClaim', max: { storage: '1Gi', disks: '1' } }), [{ reason: 'FieldValueInvalid', field: 'spec.limits[0].max[disks]', message: 'Invalid value: "disks": must be a standard resource type or fully qualified' }]],
    ['a claim item without a storage bound', limitRange({ type: 'PersistentVolumeClaim', maxLimitRequestRatio: { storage: '2' } }), [{ reason: 'FieldValueRequired', field: 'spec.limits[0].limits', message: 'Required value: either minimum or maximum storage value is required, but neither was provided' }]],
    ['min above max', limitRange({ type: 'Pod', min: { memory: '2Gi' }, max: { memory: '1024Mi' } }), [{ reason: 'FieldValueInvalid', field: 'spec.limits[0].min[memory]', message: 'Invalid value: "2Gi": min value 2Gi is greater than max value 1Gi' }]],
    ['min above defaultRequest', limitRange({ type: 'Container', min: { cpu: '1' }, defaultRequest: { cpu: '500m' }, default: { cpu: '2' } }), [{ reason: 'FieldValueInvalid', field: 'spec.limits[0].defaultRequest[cpu]', message: 'Invalid value: "500m": min value 1 is greater than default request value 500m' }]],
    ['defaultRequest above max', limitRange({ type: 'Container', defaultRequest: { cpu: '3' }, default: { cpu: '3' }, max: { cpu: '2' } }), [
      { reason: 'FieldValueInvalid', field: 'spec.limits[0].defaultRequest[cpu]', message: 'Invalid value: "3": default request value 3 is greater than max value 2' },
      { reason: 'FieldValueInvalid', field: 'spec.limits[0].default[cpu]', message: 'Invalid value: "2": default value 3 is greater than max value 2' },
    ]],
    ['defaultRequest above default', limitRange({ type: 'Container', defaultRequest: { memory: '2Gi' }, default: { memory: '1Gi' } }), [{ reason: 'FieldValueInvalid', field: 'spec.limits[0].defaultRequest[memory]', message: 'Invalid value: "2Gi": default request value 2Gi is greater than default limit value 1Gi' }]],
    ['min above default', limitRange({ type: 'Container', min: { cpu: '2' }, default: { cpu: '1' }, defaultRequest: { cpu: '2' } }), [
      { reason: 'FieldValueInvalid', field: 'spec.limits[0].defaultRequest[cpu]', message: 'Invalid value: "2": default request value 2 is greater than default limit value 1' },
      { reason: 'FieldValueInvalid', field: 'spec.limits[0].default[cpu]', message: 'Invalid value: "2": min value 2 is greater than default value 1' },
    ]],
    ['a ratio below 1', limitRange({ type: 'Container', maxLimitRequestRatio: { cpu: '500m' } }), [{ reason: 'FieldValueInvalid', field: 'spec.limits[0].maxLimitRequestRatio[cpu]', message: 'Invalid value: "500m": ratio 500m is less than 1' }]],
    ['a ratio above max/min', limitRange({ type: 'Pod', min: { cpu: '1' }, max: { cpu: '2' }, maxLimitRequestRatio: { cpu: '3' } }), [{ reason: 'FieldValueInvalid', field: 'spec.limits[0].maxLimitRequestRatio[cpu]', message: 'Invalid value: "3": ratio 3 is greater than max/min = 2.000000' }]],
    ['different default and defaultRequest for huge pages', limitRange({ type: 'Container', default: { 'hugepages-2Mi': '4Mi' }, defaultRequest: { 'hugepages-2Mi': '2Mi' } }), [{ reason: 'FieldValueInvalid', field: 'spec.limits[0].defaultRequest[hugepages-2Mi]', message: 'Invalid value: "2Mi": default value 4Mi must equal to defaultRequest value 2Mi in hugepages-2Mi' }]],
  ])('rejects %s', (_name, obj, causes) => {
    expect(validate(obj)).toEqual(causes);
  });

  it('checks updates with the same rules', () => {
    const old = { ...created(limitRange({ type: 'Pod', max: { cpu: '1' } })), metadata: { name: 'limits', namespace: 'default', resourceVersion: '1' } };
    const next = structuredClone(old) as Obj;
    ((next.spec as Obj).limits as Obj[])[0] = { type: 'Pod', max: { cpu: '1' }, min: { cpu: '2' } };
    strategy.prepareForUpdate(next, old);
    expect(strategy.validateUpdate(next, old)).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.limits[0].min[cpu]', message: 'Invalid value: "2": min value 2 is greater than max value 1' }]);
  });
});
