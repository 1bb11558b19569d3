// storage.k8s.io with kube-apiserver's causes (pkg/apis/storage/validation and the v1 defaulters),
// plus the specification's stricter CSIDriver name rule (at most 63 characters).

import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { cellFunction } from '../../runtime/api/table-cells.js';
import { strategiesFor } from '../../runtime/registry/strategies/index.js';
import { SUBDOMAIN_MSG, validatorOf } from '../support/validator-kinds.js';

type Obj = Record<string, unknown>;
type Cause = { reason: string; field: string; message: string };

const csiDriver = validatorOf('CSIDriver');
const csiNode = validatorOf('CSINode');
const storageClass = validatorOf('StorageClass');
const capacity = validatorOf('CSIStorageCapacity');
const attachment = validatorOf('VolumeAttachment');
const vac = validatorOf('VolumeAttributesClass');

const defaulted = (v: ReturnType<typeof validatorOf>, obj: Obj): Obj => {
  const copy = structuredClone(obj);
  v.applyDefaults(copy);
  return copy;
};
const stored = (obj: Obj): Obj => ({ ...obj, metadata: { ...(obj.metadata as Obj), resourceVersion: '1' } });

describe('CSIDriver', () => {
  const driver = (spec: Obj = {}, name = 'csi.example.com'): Obj => ({ metadata: { name }, spec });

  it('fills the defaults of the spec table', () => {
    expect(defaulted(csiDriver, driver()).spec).toEqual({
      attachRequired: true,
      podInfoOnMount: false,
      requiresRepublish: false,
      seLinuxMount: false,
      storageCapacity: false,
      fsGroupPolicy: 'ReadWriteOnceWithFSType',
      volumeLifecycleModes: ['Persistent'],
    });
    expect((defaulted(csiDriver, driver({ volumeLifecycleModes: [] })).spec as Obj).volumeLifecycleModes).toEqual(['Persistent']);
    expect((defaulted(csiDriver, driver({ attachRequired: false })).spec as Obj).attachRequired).toBe(false);
  });

  it.each<[string, Obj]>([
    ['a defaulted driver', driver()],
    ['an upper-case name (checked in lower case)', driver({}, 'CSI.Example.COM')],
    ['a 63-character name', driver({}, `a${'b'.repeat(61)}c`)],
    ['both lifecycle modes', driver({ volumeLifecycleModes: ['Persistent', 'Ephemeral'] })],
    ['token requests with distinct audiences and one empty', driver({ tokenRequests: [{ audience: '' }, { audience: 'vault', expirationSeconds: 600 }] })],
  ])('accepts %s', (_name, obj) => {
    expect(csiDriver.validate(defaulted(csiDriver, obj))).toEqual([]);
  });

  it.each<[string, Obj, Cause[]]>([
    ['a 64-character name (TooLong, as ValidateCSIDriverName reports it)', driver({}, `a${'b'.repeat(62)}c`), [{ reason: 'FieldValueTooLong', field: 'metadata.name', message: 'Too long: may not be more than 63 bytes' }]],
    ['a 64-character name ending in a dash', driver({}, `a${'b'.repeat(62)}-`), [
      { reason: 'FieldValueTooLong', field: 'metadata.name', message: 'Too long: may not be more than 63 bytes' },
      { reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "a${'b'.repeat(62)}-": ${SUBDOMAIN_MSG}` },
    ]],
    ['a name ending in a dash', driver({}, 'csi-'), [{ reason: 'FieldValueInvalid', field: 'metadata.name', message: `Invalid value: "csi-": ${SUBDOMAIN_MSG}` }]],
    ['an unknown lifecycle mode, reported at the list', driver({ volumeLifecycleModes: ['Persistent', 'Forever'] }), [{ reason: 'FieldValueNotSupported', field: 'spec.volumeLifecycleModes', message: 'Unsupported value: "Forever": supported values: "Persistent", "Ephemeral"' }]],
    ['an unknown fsGroupPolicy', driver({ fsGroupPolicy: 'Always' }), [{ reason: 'FieldValueNotSupported', field: 'spec.fsGroupPolicy', message: 'Unsupported value: "Always": supported values: "File", "None", "ReadWriteOnceWithFSType"' }]],
    ['two token requests for one audience', driver({ tokenRequests: [{ audience: 'a' }, { audience: 'a' }] }), [{ reason: 'FieldValueDuplicate', field: 'spec.tokenRequests[1].audience', message: 'Duplicate value: "a"' }]],
    ['two token requests without audience', driver({ tokenRequests: [{ audience: '' }, { audience: '' }] }), [{ reason: 'FieldValueDuplicate', field: 'spec.tokenRequests[1].audience', message: 'Duplicate value: ""' }]],
    ['a token shorter than 10 minutes', driver({ tokenRequests: [{ audience: 'a', expirationSeconds: 599 }] }), [{ reason: 'FieldValueInvalid', field: 'spec.tokenRequests[0].expirationSeconds', message: 'Invalid value: 599: may not specify a duration less than 10 minutes' }]],
    ['a token longer than 2^32 seconds', driver({ tokenRequests: [{ audience: 'a', expirationSeconds: 4294967297 }] }), [{ reason: 'FieldValueInvalid', field: 'spec.tokenRequests[0].expirationSeconds', message: 'Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds' }]],
  ])('rejects %s', (_name, obj, causes) => {
    expect(csiDriver.validate(defaulted(csiDriver, obj))).toEqual(causes);
  });

  it('reports an attachRequired change at spec.attachedRequired, as kube-apiserver does', () => {
    const old = stored(defaulted(csiDriver, driver()));
    const changed = structuredClone(old);
    (changed.spec as Obj).attachRequired = false;
    expect(csiDriver.validateUpdate(changed, old)).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.attachedRequired', message: 'Invalid value: false: field is immutable' }]);
  });

  describe('metadata.generation (csiDriverStrategy)', () => {
    const main = strategiesFor(resources.find((r) => r.kind === 'CSIDriver')!).main;
    const prepared = (obj: Obj, old?: Obj): Obj => {
      const copy = structuredClone(obj);
      if (old) main.prepareForUpdate(copy, old);
      else main.prepareForCreate(copy);
      return copy.metadata as Obj;
    };

    it('is not set on create', () => {
      expect(prepared(driver()).generation).toBeUndefined();
    });

    it.each<[string, (spec: Obj, meta: Obj) => void, number]>([
      ['grows when the spec changes', (spec) => (spec.podInfoOnMount = true), 4],
      ['stays when only labels change', (_spec, meta) => (meta.labels = { a: 'b' }), 3],
    ])('%s', (_name, change, expected) => {
      const old: Obj = { ...defaulted(csiDriver, driver()), metadata: { name: 'csi.example.com', resourceVersion: '1', generation: 3 } };
      const next = structuredClone(old);
      change(next.spec as Obj, next.metadata as Obj);
      expect(prepared(next, old).generation).toBe(expected);
    });
  });

  it('forbids changing volumeLifecycleModes, allows changing storageCapacity and fsGroupPolicy', () => {
    const old = stored(defaulted(csiDriver, driver()));
    const modes = structuredClone(old);
    (modes.spec as Obj).volumeLifecycleModes = ['Ephemeral'];
    expect(csiDriver.validateUpdate(modes, old)).toEqual([{ reason: 'FieldValueInvalid', field: 'spec.volumeLifecycleModes', message: 'Invalid value: ["Ephemeral"]: field is immutable' }]);
    const mutable = structuredClone(old);
    Object.assign(mutable.spec as Obj, { storageCapacity: true, fsGroupPolicy: 'File', podInfoOnMount: true });
    expect(csiDriver.validateUpdate(mutable, old)).toEqual([]);
  });
});

const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

describe('CSINode', () => {
  const node = (drivers: unknown[] | undefined): Obj => ({ metadata: { name: 'node-1' }, spec: drivers === undefined ? {} : { drivers } });

  it('accepts drivers with node ids, topology keys and a volume limit', () => {
    expect(csiNode.validate(node([{ name: 'csi.example.com', nodeID: 'i-123', topologyKeys: ['topology.kubernetes.io/zone'], allocatable: { count: 16 } }]))).toEqual([]);
    expect(csiNode.validate(node([]))).toEqual([]);
  });

  it.each<[string, Obj, Cause[]]>([
    ['a spec without drivers', node(undefined), [{ reason: 'FieldValueRequired', field: 'spec.drivers', message: 'Required value' }]],
    ['a driver without name', node([{ nodeID: 'n' }]), [{ reason: 'FieldValueRequired', field: 'spec.drivers[0].name', message: 'Required value' }]],
    ['a driver without nodeID', node([{ name: 'd', nodeID: '' }]), [{ reason: 'FieldValueRequired', field: 'spec.drivers[0].nodeID', message: 'Required value' }]],
    ['a nodeID over 192 characters', node([{ name: 'd', nodeID: 'n'.repeat(193) }]), [{ reason: 'FieldValueInvalid', field: 'spec.drivers[0].nodeID', message: `Invalid value: "${'n'.repeat(193)}": must be 192 characters or less` }]],
    ['a driver listed twice', node([{ name: 'd', nodeID: 'a' }, { name: 'd', nodeID: 'b' }]), [{ reason: 'FieldValueDuplicate', field: 'spec.drivers[1].name', message: 'Duplicate value: "d"' }]],
    ['a negative volume limit', node([{ name: 'd', nodeID: 'a', allocatable: { count: -1 } }]), [{ reason: 'FieldValueInvalid', field: 'spec.drivers[0].allocatable.count', message: 'Invalid value: -1: must be greater than or equal to 0' }]],
    // The key is then also checked as a qualified name, as kube-apiserver does.
    ['an empty topology key', node([{ name: 'd', nodeID: 'a', topologyKeys: [''] }]), [
      { reason: 'FieldValueRequired', field: 'spec.drivers[0]', message: 'Required value' },
      { reason: 'FieldValueInvalid', field: 'spec.drivers[0]', message: 'Invalid value: "": name part must be non-empty' },
      { reason: 'FieldValueInvalid', field: 'spec.drivers[0]', message: `Invalid value: "": name part ${QUALIFIED_NAME_MSG}` },
    ]],
    ['a topology key that is no qualified name, reported at the driver', node([{ name: 'd', nodeID: 'a', topologyKeys: ['topology.kubernetes.io/zone', 'bad key'] }]), [
      { reason: 'FieldValueInvalid', field: 'spec.drivers[0]', message: `Invalid value: "bad key": name part ${QUALIFIED_NAME_MSG}` },
    ]],
    ['a topology key twice', node([{ name: 'd', nodeID: 'a', topologyKeys: ['zone', 'zone'] }]), [{ reason: 'FieldValueDuplicate', field: 'spec.drivers[0]', message: 'Duplicate value: "zone"' }]],
    ['a driver name over 63 characters', node([{ name: 'd'.repeat(64), nodeID: 'a' }]), [{ reason: 'FieldValueTooLong', field: 'spec.drivers[0].name', message: 'Too long: may not be more than 63 bytes' }]],
  ])('rejects %s', (_name, obj, causes) => {
    expect(csiNode.validate(obj)).toEqual(causes);
  });

  describe('driver entries on update (ValidateCSINodeUpdate)', () => {
    const mainOf = (gateOn: boolean) => strategiesFor(resources.find((r) => r.kind === 'CSINode')!, (g) => gateOn && g === 'MutableCSINodeAllocatableCount').main;
    const old = stored(node([{ name: 'd', nodeID: 'a', allocatable: { count: 1 } }]));
    const immutable = (value: string): Cause => ({ reason: 'FieldValueInvalid', field: 'spec.drivers', message: `Invalid value: ${value}: field is immutable` });

    it.each<[string, boolean, unknown[], Cause[]]>([
      ['adding a driver', false, [{ name: 'd', nodeID: 'a', allocatable: { count: 1 } }, { name: 'e', nodeID: 'b' }], []],
      ['changing a nodeID', false, [{ name: 'd', nodeID: 'b', allocatable: { count: 1 } }], [immutable('{"Name":"d","NodeID":"b","TopologyKeys":null,"Allocatable":{"Count":1}}')]],
      ['changing allocatable with the gate off', false, [{ name: 'd', nodeID: 'a', allocatable: { count: 2 } }], [immutable('{"Name":"d","NodeID":"a","TopologyKeys":null,"Allocatable":{"Count":2}}')]],
      ['changing allocatable with MutableCSINodeAllocatableCount on', true, [{ name: 'd', nodeID: 'a', allocatable: { count: 2 } }], []],
      // kube-apiserver prints its internal struct (Go field names, no JSON tags); with the gate on,
      // without allocatable, as it compares the entries.
      ['changing a nodeID with the gate on', true, [{ name: 'd', nodeID: 'b', topologyKeys: ['zone'], allocatable: { count: 2 } }], [immutable('{"Name":"d","NodeID":"b","TopologyKeys":["zone"],"Allocatable":null}')]],
    ])('%s', (_name, gateOn, drivers, causes) => {
      expect(mainOf(gateOn).validateUpdate(stored(node(drivers)), old)).toEqual(causes);
    });
  });
});

/** 512 parameters whose keys and values add up to exactly 262144 bytes, both limits of validateParameters. */
function fullParameters(): Record<string, string> {
  const params: Record<string, string> = Object.fromEntries(Array.from({ length: 511 }, (_, i) => [`p${i + 1}`, 'v']));
  const used = Object.entries(params).reduce((n, [k, v]) => n + k.length + v.length, 0);
  params.p0 = 'x'.repeat(262144 - used - 'p0'.length);
  return params;
}

describe('StorageClass', () => {
  const sc = (extra: Obj = {}): Obj => ({ metadata: { name: 'fast' }, provisioner: 'ebs.csi.aws.com', ...extra });

  it('defaults reclaimPolicy to Delete and volumeBindingMode to Immediate', () => {
    const obj = defaulted(storageClass, sc());
    expect([obj.reclaimPolicy, obj.volumeBindingMode]).toEqual(['Delete', 'Immediate']);
    expect(storageClass.validate(obj)).toEqual([]);
  });

  it.each<[string, Obj]>([
    ['an upper-case provisioner (checked in lower case)', sc({ provisioner: 'kubernetes.io/AWS-EBS' })],
    ['512 parameters of exactly 256 KiB in all', sc({ parameters: fullParameters() })],
    ['Retain, WaitForFirstConsumer and topologies', sc({ reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer', allowedTopologies: [{ matchLabelExpressions: [{ key: 'topology.kubernetes.io/zone', values: ['a', 'b'] }] }] })],
  ])('accepts %s', (_name, obj) => {
    expect(storageClass.validate(defaulted(storageClass, obj))).toEqual([]);
  });

  it.each<[string, Obj, Cause[]]>([
    ['no provisioner', { metadata: { name: 'x' } }, [{ reason: 'FieldValueRequired', field: 'provisioner', message: 'Required value' }]],
    ['a provisioner with a bad prefix', sc({ provisioner: 'Bad_Prefix/x' }), [{ reason: 'FieldValueInvalid', field: 'provisioner', message: `Invalid value: "Bad_Prefix/x": prefix part ${SUBDOMAIN_MSG}` }]],
    ['reclaimPolicy Recycle', sc({ reclaimPolicy: 'Recycle' }), [{ reason: 'FieldValueNotSupported', field: 'reclaimPolicy', message: 'Unsupported value: "Recycle": supported values: "Delete", "Retain"' }]],
    ['an unknown volumeBindingMode', sc({ volumeBindingMode: 'Later' }), [{ reason: 'FieldValueNotSupported', field: 'volumeBindingMode', message: 'Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"' }]],
    ['a topology requirement without values', sc({ allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: [] }] }] }), [{ reason: 'FieldValueRequired', field: 'allowedTopologies[0].matchLabelExpressions[0].values', message: 'Required value' }]],
    ['a topology key twice in one term', sc({ allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a'] }, { key: 'zone', values: ['b'] }] }] }), [{ reason: 'FieldValueDuplicate', field: 'allowedTopologies[0].matchLabelExpressions[1].key', message: 'Duplicate value: "zone"' }]],
    ['an empty parameter key', sc({ parameters: { '': 'x', type: 'gp3' } }), [{ reason: 'FieldValueInvalid', field: 'parameters', message: 'Invalid value: "": field can not be empty.' }]],
    ['parameters over 256 KiB in all', sc({ parameters: { a: 'x'.repeat(200000), b: 'y'.repeat(62144) } }), [{ reason: 'FieldValueTooLong', field: 'parameters', message: 'Too long: may not be more than 262144 bytes' }]],
    // Over 512 entries nothing else of the map is looked at (the empty key is not reported).
    ['513 parameters, one with an empty key', sc({ parameters: Object.fromEntries(Array.from({ length: 513 }, (_, i) => [i ? `p${i}` : '', 'v'])) }), [{ reason: 'FieldValueTooLong', field: 'parameters', message: 'Too long: may not be more than 512 bytes' }]],
    ['a topology value twice', sc({ allowedTopologies: [{ matchLabelExpressions: [{ key: 'zone', values: ['a', 'a'] }] }] }), [{ reason: 'FieldValueDuplicate', field: 'allowedTopologies[0].matchLabelExpressions[0].values', message: 'Duplicate value: "a"' }]],
  ])('rejects %s', (_name, obj, causes) => {
    expect(storageClass.validate(defaulted(storageClass, obj))).toEqual(causes);
  });

  describe('duplicate allowedTopologies terms (validateAllowedTopologies)', () => {
    const main = strategiesFor(resources.find((r) => r.kind === 'StorageClass')!).main;
    const term = (...reqs: [string, string[]][]): Obj => ({ matchLabelExpressions: reqs.map(([key, values]) => ({ key, values })) });
    const dup = (i: number): Cause => ({ reason: 'FieldValueDuplicate', field: `allowedTopologies[${i}].matchLabelExpressions`, message: 'Duplicate value: ""' });

    it.each<[string, Obj[], Cause[]]>([
      ['different terms', [term(['zone', ['a']]), term(['zone', ['b']])], []],
      ['the same term with requirements and values in another order', [term(['zone', ['a', 'b']], ['rack', ['r1']]), term(['rack', ['r1']], ['zone', ['b', 'a']])], [dup(1)]],
      ['a term three times (the third matches two earlier ones)', [term(['zone', ['a']]), term(['zone', ['a']]), term(['zone', ['a']])], [dup(1), dup(2), dup(2)]],
      // kube-apiserver's seen list starts with one nil map per term, which an empty term equals.
      ['a term without requirements, once per term in the list', [term(['zone', ['a']]), {}], [dup(1), dup(1)]],
    ])('%s', (_name, allowedTopologies, causes) => {
      const obj = defaulted(storageClass, sc({ allowedTopologies }));
      main.prepareForCreate(obj);
      expect(main.validate(obj)).toEqual(causes);
    });
  });

  it('forbids changing parameters, provisioner, reclaimPolicy and volumeBindingMode, in kube-apiserver order', () => {
    const old = stored(defaulted(storageClass, sc({ parameters: { type: 'gp2' } })));
    const changed = { ...old, parameters: { type: 'gp3' }, provisioner: 'other.example.com', reclaimPolicy: 'Retain', volumeBindingMode: 'WaitForFirstConsumer' };
    expect(storageClass.validateUpdate(changed, old)).toEqual([
      { reason: 'FieldValueForbidden', field: 'parameters', message: 'Forbidden: updates to parameters are forbidden.' },
      { reason: 'FieldValueForbidden', field: 'provisioner', message: 'Forbidden: updates to provisioner are forbidden.' },
      { reason: 'FieldValueForbidden', field: 'reclaimPolicy', message: 'Forbidden: updates to reclaimPolicy are forbidden.' },
      { reason: 'FieldValueInvalid', field: 'volumeBindingMode', message: 'Invalid value: "WaitForFirstConsumer": field is immutable' },
    ]);
    expect(storageClass.validateUpdate({ ...old, allowVolumeExpansion: true, mountOptions: ['debug'] }, old)).toEqual([]);
  });
});

describe('StorageClass printer cells', () => {
  const columns = resources.find((r) => r.kind === 'StorageClass')!.printerColumns;
  const cells = (obj: Obj): Record<string, unknown> => Object.fromEntries(columns.map((c) => [c.name, cellFunction(c)(obj, new Date('2024-01-01T00:10:00Z'))]));

  // kube's printStorageClass puts a Go bool in the AllowVolumeExpansion cell, though the column says string.
  it.each<[string, Obj, boolean]>([
    ['unset', {}, false],
    ['true', { allowVolumeExpansion: true }, true],
    ['false', { allowVolumeExpansion: false }, false],
  ])('shows allowVolumeExpansion %s as a boolean', (_name, extra, expected) => {
    const row = cells({ metadata: { name: 'fast', creationTimestamp: '2024-01-01T00:05:00Z' }, provisioner: 'p', ...extra });
    expect(row).toEqual({ Name: 'fast', Provisioner: 'p', ReclaimPolicy: 'Delete', VolumeBindingMode: 'Immediate', AllowVolumeExpansion: expected, Age: '5m' });
  });
});

describe('CSIStorageCapacity', () => {
  const cap = (extra: Obj = {}): Obj => ({ metadata: { name: 'c1', namespace: 'kube-system' }, storageClassName: 'fast', ...extra });

  it('accepts a capacity with topology', () => {
    expect(capacity.validate(cap({ capacity: '10Gi', maximumVolumeSize: '1Gi', nodeTopology: { matchLabels: { 'topology.kubernetes.io/zone': 'a' } } }))).toEqual([]);
  });

  it.each<[string, Obj, Cause[]]>([
    ['a negative capacity', cap({ capacity: '-1Gi' }), [{ reason: 'FieldValueInvalid', field: 'capacity', message: 'Invalid value: "-1Gi": must be greater than or equal to 0' }]],
    ['a storage class name that is no DNS subdomain', cap({ storageClassName: 'Fast_One' }), [{ reason: 'FieldValueInvalid', field: 'storageClassName', message: `Invalid value: "Fast_One": ${SUBDOMAIN_MSG}` }]],
    ['a topology selector with an unknown operator and a bad value', cap({ nodeTopology: { matchExpressions: [{ key: 'zone', operator: 'Near' }, { key: 'zone', operator: 'In', values: ['a b'] }] } }), [
      { reason: 'FieldValueInvalid', field: 'nodeTopology.matchExpressions[0].operator', message: 'Invalid value: "Near": not a valid selector operator' },
      { reason: 'FieldValueInvalid', field: 'nodeTopology.matchExpressions[1].values[0]', message: expect.stringMatching(/^Invalid value: "a b": a valid label must be an empty string/) },
    ]],
    // kube-apiserver validates Go's zero value: no Required, the subdomain message for "".
    ['no storage class name', { metadata: { name: 'c1', namespace: 'kube-system' } }, [{ reason: 'FieldValueInvalid', field: 'storageClassName', message: `Invalid value: "": ${SUBDOMAIN_MSG}` }]],
    ['an empty storage class name', cap({ storageClassName: '' }), [{ reason: 'FieldValueInvalid', field: 'storageClassName', message: `Invalid value: "": ${SUBDOMAIN_MSG}` }]],
    ['no namespace', { metadata: { name: 'c1' }, storageClassName: 'fast' }, [{ reason: 'FieldValueRequired', field: 'metadata.namespace', message: 'Required value' }]],
  ])('rejects %s', (_name, obj, causes) => {
    expect(capacity.validate(obj)).toEqual(causes);
  });

  it('keeps storageClassName and nodeTopology, lets capacity change', () => {
    const old = stored(cap({ capacity: '1Gi' }));
    expect(capacity.validateUpdate({ ...old, capacity: '2Gi' }, old)).toEqual([]);
    expect(capacity.validateUpdate({ ...old, storageClassName: 'slow' }, old)).toEqual([{ reason: 'FieldValueInvalid', field: 'storageClassName', message: 'Invalid value: "slow": field is immutable' }]);
  });
});

describe('VolumeAttachment', () => {
  const va = (source: Obj, extra: Obj = {}): Obj => ({ metadata: { name: 'csi-123' }, spec: { attacher: 'csi.example.com', nodeName: 'node-1', source, ...extra } });

  it('accepts a persistent volume source and an inline spec', () => {
    expect(attachment.validate(va({ persistentVolumeName: 'pv-1' }))).toEqual([]);
    const atLimits = { attached: true, attachmentMetadata: { a: 'x'.repeat(262143) }, attachError: { message: 'x'.repeat(1024) }, detachError: { message: 'x'.repeat(1024) } };
    expect(attachment.validate({ ...va({ persistentVolumeName: 'pv-1' }), status: atLimits })).toEqual([]);
    expect(attachment.validate(va({ inlineVolumeSpec: { csi: { driver: 'csi.example.com', volumeHandle: 'h' }, accessModes: ['ReadWriteOnce'] } }))).toEqual([]);
  });

  it.each<[string, Obj, Cause[]]>([
    ['no source', va({}), [{ reason: 'FieldValueRequired', field: 'spec.source', message: 'Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName' }]],
    ['both sources', va({ persistentVolumeName: 'pv', inlineVolumeSpec: {} }), [{ reason: 'FieldValueForbidden', field: 'spec.source', message: 'Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName' }]],
    ['an empty volume name', va({ persistentVolumeName: '' }), [{ reason: 'FieldValueRequired', field: 'spec.source.persistentVolumeName', message: 'Required value: must specify non empty persistentVolumeName' }]],
    ['a volume name that is no DNS subdomain', va({ persistentVolumeName: 'PV_1' }), [{ reason: 'FieldValueInvalid', field: 'spec.source.persistentVolumeName', message: `Invalid value: "PV_1": ${SUBDOMAIN_MSG}` }]],
    ['an attacher over 63 characters', va({ persistentVolumeName: 'pv' }, { attacher: 'a'.repeat(64) }), [{ reason: 'FieldValueTooLong', field: 'spec.attacher', message: 'Too long: may not be more than 63 bytes' }]],
    // kube-apiserver's v1 check (ValidateCSIDriverName) adds the name rule's message for "".
    ['no attacher', va({ persistentVolumeName: 'pv' }, { attacher: '' }), [{ reason: 'FieldValueRequired', field: 'spec.attacher', message: 'Required value' }, { reason: 'FieldValueInvalid', field: 'spec.attacher', message: `Invalid value: "": ${SUBDOMAIN_MSG}` }]],
    ['a node name that is no DNS subdomain', va({ persistentVolumeName: 'pv' }, { nodeName: 'Node_1' }), [{ reason: 'FieldValueInvalid', field: 'spec.nodeName', message: `Invalid value: "Node_1": ${SUBDOMAIN_MSG}` }]],
    // kube-apiserver checks 1024 bytes but its message names the attachment metadata limit.
    ['an attach error message over 1024 bytes', { ...va({ persistentVolumeName: 'pv' }), status: { attached: false, attachError: { message: 'é'.repeat(513) } } }, [{ reason: 'FieldValueTooLong', field: 'status.attachError.message', message: 'Too long: may not be more than 262144 bytes' }]],
    ['a detach error message over 1024 bytes', { ...va({ persistentVolumeName: 'pv' }), status: { attached: false, detachError: { message: 'x'.repeat(1025) } } }, [{ reason: 'FieldValueTooLong', field: 'status.detachError.message', message: 'Too long: may not be more than 262144 bytes' }]],
    ['attachment metadata over 256 KiB', { ...va({ persistentVolumeName: 'pv' }), status: { attached: true, attachmentMetadata: { a: 'x'.repeat(262144) } } }, [{ reason: 'FieldValueTooLong', field: 'status.attachmentMetadata', message: 'Too long: may not be more than 262144 bytes' }]],
    ['a negative error code', { ...va({ persistentVolumeName: 'pv' }), status: { attached: false, attachError: { message: 'x', errorCode: -1 } } }, [{ reason: 'FieldValueInvalid', field: 'status.attachError.errorCode', message: 'Invalid value: -1: must be between 0 and 2147483647, inclusive' }]],
  ])('rejects %s', (_name, obj, causes) => {
    expect(attachment.validate(obj)).toEqual(causes);
  });

  describe('errorCode, behind MutableCSINodeAllocatableCount', () => {
    const statusOf = (on: boolean) => strategiesFor(resources.find((r) => r.kind === 'VolumeAttachment')!, (g) => on && g === 'MutableCSINodeAllocatableCount').subresources.status!;
    const withError = (attachError: Obj): Obj => ({ ...stored(va({ persistentVolumeName: 'pv' })), status: { attached: false, attachError } });
    const written = (on: boolean, obj: Obj, old: Obj): Obj => {
      const copy = structuredClone(obj);
      statusOf(on).prepareForUpdate(copy, old);
      return (copy.status as Obj).attachError as Obj;
    };

    it.each<[string, boolean, Obj, Obj]>([
      ['dropped while the gate is off', false, withError({ message: 'x' }), { message: 'x' }],
      ['kept while the gate is off when the stored object has one', false, withError({ message: 'y', errorCode: 5 }), { message: 'x', errorCode: 7 }],
      ['kept while the gate is on', true, withError({ message: 'x' }), { message: 'x', errorCode: 7 }],
    ])('is %s', (_name, on, old, expected) => {
      expect(written(on, withError({ message: 'x', errorCode: 7 }), old)).toEqual(expected);
    });
  });

  it('keeps the whole spec', () => {
    const old = stored(va({ persistentVolumeName: 'pv' }));
    const changed = { ...old, spec: { ...(old.spec as Obj), nodeName: 'node-2' } };
    expect(attachment.validateUpdate(changed, old).map((c) => [c.field, c.reason, (c.message ?? '').endsWith('field is immutable')])).toEqual([['spec', 'FieldValueInvalid', true]]);
    expect(attachment.validateUpdate({ ...old, status: { attached: true } }, old)).toEqual([]);
  });
});

describe('VolumeAttributesClass (v1beta1)', () => {
  const cls = (extra: Obj = {}): Obj => ({ metadata: { name: 'gold' }, driverName: 'csi.example.com', parameters: { iops: '5000' }, ...extra });

  it('accepts a class with parameters', () => {
    expect(vac.validate(cls())).toEqual([]);
  });

  it.each<[string, Obj, Cause[]]>([
    ['an empty parameter key (the rule StorageClass has)', cls({ parameters: { '': 'x' } }), [{ reason: 'FieldValueInvalid', field: 'parameters', message: 'Invalid value: "": field can not be empty.' }]],
    ['513 parameters', cls({ parameters: Object.fromEntries(Array.from({ length: 513 }, (_, i) => [`p${i}`, 'v'])) }), [{ reason: 'FieldValueTooLong', field: 'parameters', message: 'Too long: may not be more than 512 bytes' }]],
    ['parameters over 256 KiB in all', cls({ parameters: { a: 'x'.repeat(262144) } }), [{ reason: 'FieldValueTooLong', field: 'parameters', message: 'Too long: may not be more than 262144 bytes' }]],
    ['no parameters', cls({ parameters: {} }), [{ reason: 'FieldValueRequired', field: 'parameters', message: 'Required value: must contain at least one key/value pair' }]],
    ['no driverName', { metadata: { name: 'gold' }, parameters: { a: 'b' } }, [{ reason: 'FieldValueRequired', field: 'driverName', message: 'Required value' }]],
  ])('rejects %s', (_name, obj, causes) => {
    expect(vac.validate(obj)).toEqual(causes);
  });

  it('forbids changing driverName and parameters', () => {
    const old = stored(cls());
    expect(vac.validateUpdate({ ...old, driverName: 'other.example.com', parameters: { iops: '1' } }, old)).toEqual([
      { reason: 'FieldValueForbidden', field: 'driverName', message: 'Forbidden: updates to driverName are forbidden.' },
      { reason: 'FieldValueForbidden', field: 'parameters', message: 'Forbidden: updates to parameters are forbidden.' },
    ]);
  });
});
