// resource.k8s.io/v1beta2 ResourceSlice with kube-apiserver 1.33's causes
// (pkg/apis/resource/validation/validation_resourceslice_test.go and validation.go): the generated
// per-field rules plus the resourceslice strategy's cross-field ones, through the same strategy
// the store uses, with every DRA gate on.

import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { strategiesFor } from '../../runtime/registry/strategies/index.js';
import { FeatureGates } from '../../runtime/server/feature-gates.js';
import { LABEL_MSG, SUBDOMAIN_MSG } from '../support/validator-kinds.js';

type Obj = Record<string, unknown>;
type Cause = { reason: string; field: string; message: string };

const def = resources.find((r) => r.kind === 'ResourceSlice')!;
const strategy = strategiesFor(def, () => true).main;
const gatesOff = strategiesFor(def, () => false).main;

const C_ID_MSG =
  "a valid C identifier must start with alphabetic character or '_', followed by a string of alphanumeric characters or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName', regex used for validation is '[A-Za-z_][A-Za-z0-9_]*')";
const NAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const SELECTION = 'exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required';
const DEVICE_SELECTION =
  'exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec';

const device = (name: string, extra: Obj = {}): Obj => ({
  name,
  attributes: { int: { int: 42 }, string: { string: 'hello world' }, version: { version: '1.2.3' }, bool: { bool: true } },
  capacity: { memory: { value: '1Gi' } },
  ...extra,
});
const devices = (n: number): Obj[] => Array.from({ length: n }, (_, i) => device(`device-${i}`));
const slice = (spec: Obj = {}, name = 'foo'): Obj => ({
  apiVersion: 'resource.k8s.io/v1beta2',
  kind: 'ResourceSlice',
  metadata: { name },
  spec: { driver: 'test.example.com', pool: { name: 'foo', generation: 0, resourceSliceCount: 1 }, nodeName: 'foo', devices: devices(1), ...spec },
});
const counterSets = (n: number): Obj[] => Array.from({ length: n }, (_, i) => ({ name: `counterset-${i}`, counters: { memory: { value: '1Gi' } } }));
const consumes = (n: number): Obj[] => Array.from({ length: n }, (_, i) => ({ counterSet: `counterset-${i}`, counters: { memory: { value: '1Gi' } } }));

function created(obj: Obj, s = strategy): Obj {
  const copy = structuredClone(obj);
  s.prepareForCreate(copy);
  return copy;
}
const validate = (obj: Obj): Cause[] => strategy.validate(created(obj)) as Cause[];
const inv = (field: string, value: string, detail: string): Cause => ({ reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: ${detail}` });
const req = (field: string, detail?: string): Cause => ({ reason: 'FieldValueRequired', field, message: detail ? `Required value: ${detail}` : 'Required value' });

describe('ResourceSlice validation', () => {
  it.each<[string, Obj]>([
    ['a slice for one node with 128 devices', slice({ devices: devices(128) })],
    ['a node selector with exactly one term', slice({ nodeName: undefined, nodeSelector: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['worker'] }] }] } })],
    ['allNodes', slice({ nodeName: undefined, allNodes: true })],
    ['a 63-character driver name', slice({ driver: 'd'.repeat(63) })],
    ['a 253-character pool name', slice({ pool: { name: 'x'.repeat(253), generation: 0, resourceSliceCount: 1 } })],
    ['a pool name of several subdomains', slice({ pool: { name: 'a.example/b/c', generation: 3, resourceSliceCount: 2 } })],
    ['domain-qualified attribute names', slice({ devices: [device('a', { attributes: { [`${'x'.repeat(63)}/${'y'.repeat(32)}`]: { string: 'z' }, ['x'.repeat(32)]: { string: 'y' } } })] })],
    ['semantic versions with pre-release and build', slice({ devices: [device('a', { attributes: { v: { version: '1.0.0-alpha.1+build.5' } } })] })],
    ['32 attributes and capacities together', slice({ devices: [device('a', { attributes: Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`a${i}`, { bool: true }])) })] })],
    ['valid taints', slice({ devices: [device('a', { taints: [{ key: 'example.com/taint', effect: 'NoExecute' }, { key: 'taint', value: 'tainted', effect: 'NoSchedule', timeAdded: '2025-01-01T00:00:00Z' }] })] })],
    ['per-device node selection', slice({ nodeName: undefined, perDeviceNodeSelection: true, devices: [device('a', { nodeName: 'worker' }), device('b', { allNodes: true })] })],
    ['devices drawing on shared counters', slice({ sharedCounters: counterSets(2), devices: [device('a', { consumesCounters: consumes(2) })] })],
  ])('accepts %s', (_name, obj) => {
    expect(validate(obj)).toEqual([]);
  });

  it.each<[string, Obj, Cause[]]>([
    ['a bad object name', slice({}, '!@#$%^'), [inv('metadata.name', '"!@#$%^"', SUBDOMAIN_MSG)]],
    ['129 devices', slice({ devices: devices(129) }), [{ reason: 'FieldValueTooMany', field: 'spec.devices', message: 'Too many: 129: must have at most 128 items' }]],
    ['a bad driver name', slice({ driver: '!@#$%^' }), [inv('spec.driver', '"!@#$%^"', SUBDOMAIN_MSG)]],
    ['no driver', slice({ driver: undefined }), [req('spec.driver')]],
    ['a driver name over 63 characters', slice({ driver: 'd'.repeat(64) }), [{ reason: 'FieldValueTooLong', field: 'spec.driver', message: 'Too long: may not be more than 63 bytes' }]],
    ['a bad node name (and pool name)', slice({ nodeName: '!@#$%^', pool: { name: '!@#$%^', generation: 0, resourceSliceCount: 1 } }), [inv('spec.nodeName', '"!@#$%^"', SUBDOMAIN_MSG), inv('spec.pool.name', '"!@#$%^"', SUBDOMAIN_MSG)]],
    ['a pool name with two bad parts', slice({ pool: { name: '!@#$%^/!@#$%^', generation: 0, resourceSliceCount: 1 } }), [inv('spec.pool.name', '"!@#$%^"', SUBDOMAIN_MSG), inv('spec.pool.name', '"!@#$%^"', SUBDOMAIN_MSG)]],
    [
      'a too long pool name, zero slices and a negative generation',
      slice({ pool: { name: `${'x/'.repeat(126)}xy`, generation: -1, resourceSliceCount: 0 } }),
      [inv('spec.pool.resourceSliceCount', '0', 'must be greater than zero'), inv('spec.pool.generation', '-1', 'must be greater than or equal to zero'), { reason: 'FieldValueTooLong', field: 'spec.pool.name', message: 'Too long: may not be more than 253 bytes' }],
    ],
    ['an empty pool name', slice({ pool: { name: '', generation: 0, resourceSliceCount: 1 } }), [req('spec.pool.name')]],
    ['no node selection', slice({ nodeName: undefined }), [req('spec', SELECTION)]],
    ['nodeName and nodeSelector', slice({ nodeSelector: { nodeSelectorTerms: [{}] } }), [inv('spec', '"{`nodeName`, `nodeSelector`}"', `${SELECTION}, but multiple fields are set`)]],
    ['nodeName and allNodes', slice({ allNodes: true }), [inv('spec', '"{`nodeName`, `allNodes`}"', `${SELECTION}, but multiple fields are set`)]],
    ['an empty nodeName', slice({ nodeName: '', allNodes: true }), [inv('spec.nodeName', '""', 'must be either unset or set to a non-empty string')]],
    ['allNodes false', slice({ allNodes: false }), [inv('spec.allNodes', 'false', 'must be either unset or set to true')]],
    ['perDeviceNodeSelection false', slice({ perDeviceNodeSelection: false }), [inv('spec.perDeviceNodeSelection', 'false', 'must be either unset or set to true')]],
    ['a node selector without terms', slice({ nodeName: undefined, nodeSelector: {} }), [
      { reason: 'FieldValueRequired', field: 'spec.nodeSelector.nodeSelectorTerms', message: 'Required value: must have at least one node selector term' },
      inv('spec.nodeSelector.nodeSelectorTerms', 'null', 'must have exactly one node selector term'),
    ]],
    ['a node selector requirement without values for In', slice({ nodeName: undefined, nodeSelector: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In' }] }] } }), [
      { reason: 'FieldValueRequired', field: 'spec.nodeSelector.nodeSelectorTerms[0].matchExpressions[0].values', message: "Required value: must be specified when `operator` is 'In' or 'NotIn'" },
    ]],
    ['a node selector with two terms', slice({ nodeName: undefined, nodeSelector: { nodeSelectorTerms: [{}, {}] } }), [inv('spec.nodeSelector.nodeSelectorTerms', '[{},{}]', 'must have exactly one node selector term')]],
    ['a bad device name', slice({ devices: [device('a'), device('!@#$%^')] }), [inv('spec.devices[1].name', '"!@#$%^"', LABEL_MSG)]],
    ['two devices of one name', slice({ devices: [device('a'), device('a')] }), [{ reason: 'FieldValueDuplicate', field: 'spec.devices[1].name', message: 'Duplicate value: "a"' }]],
    [
      'bad attributes',
      slice({
        devices: [
          device('a', { attributes: { '!@#$%^': {} } }),
          device('b', { attributes: { foo: { string: 'x', version: '1.2.3' } } }),
          device('c', { attributes: { foo: { version: 'x'.repeat(65) } } }),
          device('d', { attributes: { foo: { string: 'x'.repeat(65) } } }),
        ],
      }),
      [
        { reason: 'FieldValueTypeInvalid', field: 'spec.devices[0].attributes[!@#$%^]', message: `Invalid value: "!@#$%^": ${C_ID_MSG}` },
        req('spec.devices[0].attributes[!@#$%^]', 'exactly one value must be specified'),
        inv('spec.devices[1].attributes[foo]', '{"string":"x","version":"1.2.3"}', 'exactly one value must be specified'),
        inv('spec.devices[2].attributes[foo].version', `"${'x'.repeat(65)}"`, 'must be a string compatible with semver.org spec 2.0.0'),
        { reason: 'FieldValueTooLong', field: 'spec.devices[2].attributes[foo].version', message: 'Too long: may not be more than 64 bytes' },
        { reason: 'FieldValueTooLong', field: 'spec.devices[3].attributes[foo].string', message: 'Too long: may not be more than 64 bytes' },
      ],
    ],
    [
      'an attribute name with an empty domain and name',
      slice({ devices: [device('a', { attributes: { '/': { string: 'z' } } })] }),
      [req('spec.devices[0].attributes[/]', 'the domain must not be empty'), req('spec.devices[0].attributes[/]', 'the name must not be empty')],
    ],
    [
      'a too long C identifier',
      slice({ devices: [device('a', { capacity: { ['.'.repeat(33)]: { value: '1' } } })] }),
      [
        { reason: 'FieldValueTooLong', field: `spec.devices[0].capacity[${'.'.repeat(33)}]`, message: 'Too long: may not be more than 32 bytes' },
        { reason: 'FieldValueTypeInvalid', field: `spec.devices[0].capacity[${'.'.repeat(33)}]`, message: `Invalid value: "${'.'.repeat(33)}": ${C_ID_MSG}` },
      ],
    ],
    [
      'a too long key, shortened in the path',
      slice({ devices: [device('a', { attributes: { [`${'x'.repeat(64)}/${'y'.repeat(33)}`]: { string: 'z' } } })] }),
      [
        { reason: 'FieldValueTooLong', field: 'spec.devices[0].attributes[xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxx/yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy]', message: 'Too long: may not be more than 63 bytes' },
        { reason: 'FieldValueTooLong', field: 'spec.devices[0].attributes[xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxx/yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy]', message: 'Too long: may not be more than 32 bytes' },
      ],
    ],
    [
      '33 attributes and capacities',
      slice({ devices: [device('a', { attributes: Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`a${i}`, { bool: true }])) })] }),
      [inv('spec.devices[0]', '33', 'the total number of attributes and capacities must not exceed 32')],
    ],
    ['a capacity without value', slice({ devices: [device('a', { capacity: { memory: {} } })] }), [req('spec.devices[0].capacity[memory].value')]],
    [
      'bad taints',
      slice({ devices: [device('a', { taints: [{ key: '!@#$%^', value: '!@#$%^', effect: 'PreferNoSchedule' }, { key: 'k' }] })] }),
      [
        inv('spec.devices[0].taints[0].key', '"!@#$%^"', NAME_PART_MSG),
        inv('spec.devices[0].taints[0].value', '"!@#$%^"', LABEL_VALUE_MSG),
        { reason: 'FieldValueNotSupported', field: 'spec.devices[0].taints[0].effect', message: 'Unsupported value: "PreferNoSchedule": supported values: "NoExecute", "NoSchedule"' },
        req('spec.devices[0].taints[1].effect'),
      ],
    ],
    [
      'five taints',
      slice({ devices: [device('a', { taints: Array.from({ length: 5 }, () => ({ key: 'example.com/taint', effect: 'NoExecute' })) })] }),
      [{ reason: 'FieldValueTooMany', field: 'spec.devices[0].taints', message: 'Too many: 5: must have at most 4 items' }],
    ],
    [
      'perDeviceNodeSelection with nodeName, and a device without selection',
      slice({ perDeviceNodeSelection: true }),
      [inv('spec', '"{`nodeName`, `perDeviceNodeSelection`}"', `${SELECTION}, but multiple fields are set`), req('spec.devices[0]', DEVICE_SELECTION)],
    ],
    [
      'a device with an empty nodeName and allNodes false',
      slice({ nodeName: undefined, perDeviceNodeSelection: true, devices: [device('a', { nodeName: '', allNodes: false })] }),
      [inv('spec.devices[0].nodeName', '""', 'must not be empty'), inv('spec.devices[0].allNodes', 'false', 'must be either unset or set to true'), req('spec.devices[0]', DEVICE_SELECTION)],
    ],
    [
      'a device with nodeName and allNodes',
      slice({ nodeName: undefined, perDeviceNodeSelection: true, devices: [device('a', { nodeName: 'worker', allNodes: true })] }),
      [inv('spec.devices[0]', '"{`nodeName`, `allNodes`}"', DEVICE_SELECTION)],
    ],
    [
      'a device node selection without perDeviceNodeSelection',
      slice({ devices: [device('a', { nodeName: 'worker' })] }),
      [inv('spec.devices[0]', 'null', '`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec')],
    ],
    [
      'a bad shared counter set',
      slice({ sharedCounters: [{ name: '!@#$%^', counters: {} }] }),
      [inv('spec.sharedCounters[0].name', '"!@#$%^"', LABEL_MSG), req('spec.sharedCounters[0].counters')],
    ],
    ['a bad counter name', slice({ sharedCounters: [{ name: 'foo', counters: { '!@#$%^': { value: '1Gi' } } }] }), [inv('spec.sharedCounters[0].counters[!@#$%^]', '"!@#$%^"', LABEL_MSG)]],
    ['a counter set without name', slice({ sharedCounters: [{ counters: { memory: { value: '1' } } }] }), [req('spec.sharedCounters[0].name')]],
    ['two counter sets of one name', slice({ sharedCounters: [...counterSets(1), ...counterSets(1)] }), [{ reason: 'FieldValueDuplicate', field: 'spec.sharedCounters[1].name', message: 'Duplicate value: "counterset-0"' }]],
    ['33 shared counters', slice({ sharedCounters: counterSets(33) }), [inv('spec.sharedCounters', '33', 'the total number of shared counters must not exceed 32')]],
    [
      'a consumption without counter set',
      slice({ sharedCounters: counterSets(1), devices: [device('a', { consumesCounters: [{ counters: { memory: { value: '1' } } }] })] }),
      [req('spec.devices[0].consumesCounters[0].counterSet'), inv('spec.devices[0].consumesCounters[0].counterSet', '""', 'must reference a counterSet defined in the ResourceSlice sharedCounters')],
    ],
    ['a consumption without counters', slice({ sharedCounters: counterSets(1), devices: [device('a', { consumesCounters: [{ counterSet: 'counterset-0' }] })] }), [req('spec.devices[0].consumesCounters[0].counters')]],
    [
      'a consumption of an unknown counter',
      slice({ sharedCounters: counterSets(1), devices: [device('a', { consumesCounters: [{ counterSet: 'counterset-0', counters: { fake: { value: '1' } } }] })] }),
      [inv('spec.devices[0].consumesCounters[0].counters', '"fake"', 'must reference a counter defined in the ResourceSlice sharedCounters')],
    ],
    [
      'a consumption of an unknown set',
      slice({ sharedCounters: counterSets(1), devices: [device('a', { consumesCounters: [{ counterSet: 'fake', counters: { memory: { value: '1' } } }] })] }),
      [inv('spec.devices[0].consumesCounters[0].counterSet', '"fake"', 'must reference a counterSet defined in the ResourceSlice sharedCounters')],
    ],
    [
      'two consumptions of one set',
      slice({ sharedCounters: counterSets(1), devices: [device('a', { consumesCounters: [...consumes(1), ...consumes(1)] })] }),
      [{ reason: 'FieldValueDuplicate', field: 'spec.devices[0].consumesCounters[1].counterSet', message: 'Duplicate value: "counterset-0"' }],
    ],
    [
      // A null item keeps its index (Go decodes it as a zero value), so later items' paths name the item sent.
      'a consumption of an unknown set after a null device and a null consumption',
      slice({ sharedCounters: counterSets(1), devices: [null, device('a', { consumesCounters: [null, { counterSet: 'fake', counters: { memory: { value: '1' } } }] })] }),
      [
        { reason: 'FieldValueTypeInvalid', field: 'spec.devices[0]', message: 'Invalid value: "null": must be of type object' },
        { reason: 'FieldValueTypeInvalid', field: 'spec.devices[1].consumesCounters[0]', message: 'Invalid value: "null": must be of type object' },
        inv('spec.devices[1].consumesCounters[0].counterSet', '""', 'must reference a counterSet defined in the ResourceSlice sharedCounters'),
        inv('spec.devices[1].consumesCounters[1].counterSet', '"fake"', 'must reference a counterSet defined in the ResourceSlice sharedCounters'),
      ],
    ],
    [
      '33 counters in one device (and 33 shared counters)',
      slice({ sharedCounters: counterSets(33), devices: [{ name: 'a', consumesCounters: consumes(33) }] }),
      [inv('spec.devices[0]', '33', 'the total number of counters must not exceed 32'), inv('spec.sharedCounters', '33', 'the total number of shared counters must not exceed 32')],
    ],
    [
      '1025 counters in the devices of a slice',
      slice({ sharedCounters: counterSets(16), devices: Array.from({ length: 65 }, (_, i) => device(`d${i}`, { consumesCounters: consumes(i < 64 ? 16 : 1) })) }),
      [inv('spec.devices', '1025', 'the total number of counters in devices must not exceed 1024')],
    ],
  ])('rejects %s', (_name, obj, causes) => {
    expect(validate(obj)).toEqual(expect.arrayContaining(causes));
    expect(validate(obj)).toHaveLength(causes.length);
  });
});

describe('ResourceSlice updates', () => {
  const stored = (obj: Obj): Obj => {
    const copy = created(obj);
    (copy.metadata as Obj).resourceVersion = '1';
    (copy.metadata as Obj).generation = 1;
    return copy;
  };
  const update = (old: Obj, change: (spec: Obj) => void): Cause[] => {
    const obj = structuredClone(old);
    change(obj.spec as Obj);
    strategy.prepareForUpdate(obj, old);
    return strategy.validateUpdate(obj, old) as Cause[];
  };
  const immutable = (field: string, value: string): Cause => inv(field, value, 'field is immutable');

  it('keeps driver, pool name and nodeName', () => {
    const old = stored(slice());
    expect(update(old, () => {})).toEqual([]);
    expect(update(old, (s) => (s.driver = 'other.example.com'))).toEqual([immutable('spec.driver', '"other.example.com"')]);
    expect(update(old, (s) => ((s.pool as Obj).name = 'foo-updated'))).toEqual([immutable('spec.pool.name', '"foo-updated"')]);
    expect(update(old, (s) => (s.nodeName = 'foo-updated'))).toEqual([immutable('spec.nodeName', '"foo-updated"')]);
  });

  it('bumps metadata.generation on a spec change only', () => {
    const old = stored(slice());
    const same = structuredClone(old);
    strategy.prepareForUpdate(same, old);
    expect((same.metadata as Obj).generation).toBe(1);
    const changed = structuredClone(old);
    ((changed.spec as Obj).pool as Obj).generation = 1;
    strategy.prepareForUpdate(changed, old);
    expect((changed.metadata as Obj).generation).toBe(2);
  });

  it('stamps timeAdded on new taints, keeping given ones', () => {
    const obj = created(slice({ devices: [device('a', { taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'NoSchedule', timeAdded: '2025-01-01T00:00:00Z' }] })] }));
    const taints = ((obj.spec as Obj).devices as Obj[])[0]!.taints as Obj[];
    expect(taints[0]!.timeAdded).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(taints[1]!.timeAdded).toBe('2025-01-01T00:00:00Z');
    const old = stored(slice());
    const next = structuredClone(old);
    ((next.spec as Obj).devices as Obj[])[0]!.taints = [{ key: 'a', effect: 'NoExecute' }];
    strategy.prepareForUpdate(next, old);
    expect((((next.spec as Obj).devices as Obj[])[0]!.taints as Obj[])[0]!.timeAdded).toBeTypeOf('string');
  });
});

describe('ResourceSlice gated fields', () => {
  it('drops taints and partitionable-device fields when their gates are off', () => {
    const obj = created(
      slice({ nodeName: undefined, perDeviceNodeSelection: true, sharedCounters: counterSets(1), devices: [device('a', { nodeName: 'w', consumesCounters: consumes(1), taints: [{ key: 'k', effect: 'NoSchedule' }] })] }),
      gatesOff,
    );
    const spec = obj.spec as Obj;
    expect(spec.perDeviceNodeSelection).toBeUndefined();
    expect(spec.sharedCounters).toBeUndefined();
    expect((spec.devices as Obj[])[0]).toEqual(device('a'));
  });

  it('drops fields that Kubernetes 1.33 does not have', () => {
    const gates = new FeatureGates().set({ DRADeviceTaints: true, DRAPartitionableDevices: true });
    const asServed = strategiesFor(def, (g) => gates.isKnown(g) && gates.enabled(g)).main;
    const obj = created(slice({ skipNodeOperations: ['x'], devices: [device('a', { bindsToNode: true, allowMultipleAllocations: true, attributes: { a: { ints: [1] } } })] }), asServed);
    const spec = obj.spec as Obj;
    expect(spec.skipNodeOperations).toBeUndefined();
    expect((spec.devices as Obj[])[0]).toEqual({ name: 'a', attributes: { a: {} }, capacity: { memory: { value: '1Gi' } } });
  });

  it('selects by spec.driver and spec.nodeName', () => {
    expect(strategy.selectableFields(slice())).toEqual({ 'metadata.name': 'foo', 'spec.driver': 'test.example.com', 'spec.nodeName': 'foo' });
    expect(strategy.selectableFields(slice({ nodeName: undefined, allNodes: true }))['spec.nodeName']).toBe('');
  });
});

describe('the kubectl catalog sample', () => {
  it('is a valid ResourceSlice', async () => {
    const { readFileSync } = await import('node:fs');
    const { parse } = await import('yaml');
    const sample = parse(readFileSync(new URL('../e2e/catalog/resourceslice.yaml', import.meta.url), 'utf8')) as Obj;
    expect(validate(sample)).toEqual([]);
  });
});
