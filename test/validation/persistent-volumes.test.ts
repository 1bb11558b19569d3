// PersistentVolume and PersistentVolumeClaim with kube-apiserver's causes
// (ValidatePersistentVolume*, ValidatePersistentVolumeClaim* in pkg/apis/core/validation, the
// v1 defaults and the persistentvolume(claim) strategies), through the kinds' strategies, plus
// the specification's stricter rule that a claim's requests may not exceed its limits.

import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { strategiesFor } from '../../runtime/registry/strategies/index.js';
import type { Strategy } from '../../runtime/registry/strategy.js';
import { SUBDOMAIN_MSG } from '../support/validator-kinds.js';

type Obj = Record<string, unknown>;
type Cause = { reason: string; field: string; message: string };

/** Kubernetes 1.33's defaults for the gates these kinds use, with the spec's RecoverVolumeExpansionFailure off. */
const GATES: Record<string, boolean> = { AnyVolumeDataSource: true, VolumeAttributesClass: false, CrossNamespaceVolumeDataSource: false, RecoverVolumeExpansionFailure: false };
const gates = (over: Record<string, boolean> = {}) => (gate: string): boolean => ({ ...GATES, ...over })[gate] ?? false;

const strategiesOf = (kind: string, over: Record<string, boolean> = {}) => strategiesFor(resources.find((r) => r.kind === kind)!, gates(over));
const pvStrategies = strategiesOf('PersistentVolume');
const pvcStrategies = strategiesOf('PersistentVolumeClaim');

const created = (s: Strategy, obj: Obj): Obj => {
  const copy = structuredClone(obj);
  s.prepareForCreate(copy);
  return copy;
};
const stored = (s: Strategy, obj: Obj): Obj => ({ ...created(s, obj), metadata: { ...(obj.metadata as Obj), resourceVersion: '1' } });
const updated = (s: Strategy, obj: Obj, old: Obj): Cause[] => {
  const copy = structuredClone(obj);
  s.prepareForUpdate(copy, old);
  return s.validateUpdate(copy, old) as Cause[];
};
const spec = (obj: Obj): Obj => obj.spec as Obj;

const pv = (fields: Obj = {}, name = 'pv-1'): Obj => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/data' }, ...fields },
});
const without = (obj: Obj, ...keys: string[]): Obj => {
  const copy = structuredClone(obj);
  for (const k of keys) delete (copy.spec as Obj)[k];
  return copy;
};
const affinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['node-1'] }] }] } };

describe('gated fields per kind', () => {
  it('gives claims and volumes a field dropper, but not other kinds of the same group version', () => {
    const validator = (kind: string) => resources.find((r) => r.kind === kind)!.validator;
    expect(validator('PersistentVolumeClaim').dropDisabledFields).toBeTypeOf('function');
    expect(validator('PersistentVolume').dropDisabledFields).toBeTypeOf('function');
    expect(validator('LimitRange').dropDisabledFields).toBeUndefined();
  });
});

describe('PersistentVolume defaults and status', () => {
  it('defaults reclaim policy, volume mode and hostPath type; status starts Pending', () => {
    const obj = created(pvStrategies.main, { ...pv(), status: { phase: 'Bound' } });
    expect(spec(obj)).toMatchObject({ persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem', hostPath: { path: '/data', type: '' } });
    expect(obj.status).toEqual({ phase: 'Pending', lastPhaseTransitionTime: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/) });
  });

  it('defaults the fields of in-tree sources as the v1 defaulters do', () => {
    const source = (s: Obj): Obj => spec(created(pvStrategies.main, pv({ hostPath: undefined, ...s })));
    expect(source({ rbd: { monitors: ['m'], image: 'i' } }).rbd).toEqual({ monitors: ['m'], image: 'i', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring' });
    expect(source({ iscsi: { targetPortal: 'p', iqn: 'iqn.x' } }).iscsi).toEqual({ targetPortal: 'p', iqn: 'iqn.x', iscsiInterface: 'default' });
    expect(source({ azureDisk: { diskName: 'd', diskURI: 'https://a' } }).azureDisk).toEqual({ diskName: 'd', diskURI: 'https://a', cachingMode: 'ReadWrite', fsType: 'ext4', readOnly: false, kind: 'Shared' });
    expect(source({ scaleIO: { gateway: 'g', system: 's', secretRef: { name: 'n' }, volumeName: 'v' } }).scaleIO).toMatchObject({ storageMode: 'ThinProvisioned', fsType: 'xfs' });
  });

  it('keeps a given reclaim policy', () => {
    expect(spec(created(pvStrategies.main, pv({ persistentVolumeReclaimPolicy: 'Delete' }))).persistentVolumeReclaimPolicy).toBe('Delete');
  });
});

describe('PersistentVolume validation', () => {
  const validate = (obj: Obj): Cause[] => pvStrategies.main.validate(created(pvStrategies.main, obj)) as Cause[];

  it.each<[string, Obj]>([
    ['a hostPath volume', pv()],
    ['a hostPath volume of every type', pv({ hostPath: { path: '/dev/sda', type: 'BlockDevice' } })],
    ['a local volume with node affinity', pv({ hostPath: undefined, local: { path: '/mnt/disks/ssd1' }, nodeAffinity: affinity })],
    ['a CSI volume with secret references', pv({ hostPath: undefined, csi: { driver: 'csi.example.com', volumeHandle: 'vol-1', nodePublishSecretRef: { name: 's', namespace: 'ns' } } })],
    ['an NFS volume', pv({ hostPath: undefined, nfs: { server: 'nfs.example.com', path: '/exports' } })],
    ['ReadWriteOncePod alone', pv({ accessModes: ['ReadWriteOncePod'] })],
    ['a storage class and Block mode', pv({ storageClassName: 'fast', volumeMode: 'Block' })],
    ['mount options, which are not validated', pv({ mountOptions: ['hard', '??'] })],
  ])('accepts %s', (_name, obj) => {
    expect(validate(JSON.parse(JSON.stringify(obj)))).toEqual([]);
  });

  it.each<[string, Obj, Cause[]]>([
    ['no access modes', without(pv(), 'accessModes'), [{ reason: 'FieldValueRequired', field: 'spec.accessModes', message: 'Required value' }]],
    ['an unknown access mode', pv({ accessModes: ['ReadWriteSometimes'] }), [{ reason: 'FieldValueNotSupported', field: 'spec.accessModes', message: 'Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"' }]],
    ['ReadWriteOncePod with another mode', pv({ accessModes: ['ReadWriteOncePod', 'ReadOnlyMany'] }), [{ reason: 'FieldValueForbidden', field: 'spec.accessModes', message: 'Forbidden: may not use ReadWriteOncePod with other access modes' }]],
    ['no capacity', without(pv(), 'capacity'), [
      { reason: 'FieldValueRequired', field: 'spec.capacity', message: 'Required value' },
      { reason: 'FieldValueNotSupported', field: 'spec.capacity', message: 'Unsupported value: {}: supported values: "storage"' },
    ]],
    ['a zero capacity', pv({ capacity: { storage: '0' } }), [{ reason: 'FieldValueInvalid', field: 'spec.capacity[storage]', message: 'Invalid value: "0": must be greater than zero' }]],
    ['a negative capacity', pv({ capacity: { storage: '-1Gi' } }), [
      { reason: 'FieldValueInvalid', field: 'spec.capacity[storage]', message: 'Invalid value: -1073741824: must be a valid resource quantity' },
      { reason: 'FieldValueInvalid', field: 'spec.capacity[storage]', message: 'Invalid value: "-1Gi": must be greater than zero' },
    ]],
    ['an unknown reclaim policy', pv({ persistentVolumeReclaimPolicy: 'Keep' }), [{ reason: 'FieldValueNotSupported', field: 'spec.persistentVolumeReclaimPolicy', message: 'Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"' }]],
    ['no volume source', without(pv(), 'hostPath'), [{ reason: 'FieldValueRequired', field: 'spec', message: 'Required value: must specify a volume type' }]],
    ['two volume sources', pv({ nfs: { server: 'nfs', path: '/x' } }), [{ reason: 'FieldValueForbidden', field: 'spec.nfs', message: 'Forbidden: may not specify more than 1 volume type' }]],
    ['a hostPath without path', pv({ hostPath: { path: '' } }), [{ reason: 'FieldValueRequired', field: 'spec.hostPath.path', message: 'Required value' }]],
    ['a hostPath with ..', pv({ hostPath: { path: '/data/../etc' } }), [{ reason: 'FieldValueInvalid', field: 'spec.hostPath.path', message: `Invalid value: "/data/../etc": must not contain '..'` }]],
    ['an unknown hostPath type', pv({ hostPath: { path: '/data', type: 'Pipe' } }), [{ reason: 'FieldValueNotSupported', field: 'spec.hostPath.type', message: 'Unsupported value: "Pipe": supported values: "", "BlockDevice", "CharDevice", "Directory", "DirectoryOrCreate", "File", "FileOrCreate", "Socket"' }]],
    ['Recycle for a hostPath of /', pv({ hostPath: { path: '//' }, persistentVolumeReclaimPolicy: 'Recycle' }), [{ reason: 'FieldValueForbidden', field: 'spec.persistentVolumeReclaimPolicy', message: "Forbidden: may not be 'recycle' for a hostPath mount of '/'" }]],
    ['a local volume without node affinity', pv({ hostPath: undefined, local: { path: '/mnt' } }), [{ reason: 'FieldValueRequired', field: 'spec.nodeAffinity', message: 'Required value: Local volume requires node affinity' }]],
    ['a local volume without path', pv({ hostPath: undefined, local: { path: '' }, nodeAffinity: affinity }), [{ reason: 'FieldValueRequired', field: 'spec.local.path', message: 'Required value' }]],
    ['node affinity without required', pv({ nodeAffinity: {} }), [{ reason: 'FieldValueRequired', field: 'spec.nodeAffinity.required', message: 'Required value: must specify required node constraints' }]],
    ['node affinity without terms', pv({ nodeAffinity: { required: { nodeSelectorTerms: [] } } }), [{ reason: 'FieldValueRequired', field: 'spec.nodeAffinity.required.nodeSelectorTerms', message: 'Required value: must have at least one node selector term' }]],
    ['a selector requirement with a bad operator and Exists with values', pv({ nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Near' }, { key: 'zone', operator: 'Exists', values: ['a'] }] }] } } }), [
      { reason: 'FieldValueInvalid', field: 'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].operator', message: 'Invalid value: "Near": not a valid selector operator' },
      { reason: 'FieldValueForbidden', field: 'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[1].values', message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'" },
    ]],
    ['a field requirement on another field', pv({ nodeAffinity: { required: { nodeSelectorTerms: [{ matchFields: [{ key: 'spec.unschedulable', operator: 'In', values: ['x'] }] }] } } }), [{ reason: 'FieldValueInvalid', field: 'spec.nodeAffinity.required.nodeSelectorTerms[0].matchFields[0].key', message: 'Invalid value: "spec.unschedulable": not a valid field selector key' }]],
    ['a CSI driver name over 63 characters', pv({ hostPath: undefined, csi: { driver: 'd'.repeat(64), volumeHandle: 'h' } }), [{ reason: 'FieldValueTooLong', field: 'spec.csi.driver', message: 'Too long: may not be more than 63 bytes' }]],
    ['a CSI volume without driver and handle', pv({ hostPath: undefined, csi: { driver: '', volumeHandle: '' } }), [
      { reason: 'FieldValueRequired', field: 'spec.csi.driver', message: 'Required value' },
      // ValidateCSIDriverName also runs the subdomain check on the empty name.
      { reason: 'FieldValueInvalid', field: 'spec.csi.driver', message: `Invalid value: "": ${SUBDOMAIN_MSG}` },
      { reason: 'FieldValueRequired', field: 'spec.csi.volumeHandle', message: 'Required value' },
    ]],
    ['a CSI secret reference without name and namespace', pv({ hostPath: undefined, csi: { driver: 'd', volumeHandle: 'h', controllerExpandSecretRef: {} } }), [
      { reason: 'FieldValueRequired', field: 'spec.csi.controllerExpandSecretRef.name', message: 'Required value' },
      { reason: 'FieldValueRequired', field: 'spec.csi.controllerExpandSecretRef.namespace', message: 'Required value' },
    ]],
    ['an NFS path that is not absolute', pv({ hostPath: undefined, nfs: { server: 'nfs', path: 'exports' } }), [{ reason: 'FieldValueInvalid', field: 'spec.nfs.path', message: 'Invalid value: "exports": must be an absolute path' }]],
    ['a GCE disk without name (kube-apiserver reports spec.persistentDisk)', pv({ hostPath: undefined, gcePersistentDisk: { pdName: '', partition: 256 } }), [
      { reason: 'FieldValueRequired', field: 'spec.persistentDisk.pdName', message: 'Required value' },
      { reason: 'FieldValueInvalid', field: 'spec.persistentDisk.partition', message: 'Invalid value: 256: must be between 1 and 255, inclusive' },
    ]],
    ['an FC volume with both targetWWNs and wwids, no lun', pv({ hostPath: undefined, fc: { targetWWNs: ['500a0982991b8dc5'], wwids: ['x'] } }), [
      { reason: 'FieldValueInvalid', field: 'spec.fc.targetWWNs', message: 'Invalid value: ["500a0982991b8dc5"]: targetWWNs and wwids can not be specified simultaneously' },
      { reason: 'FieldValueRequired', field: 'spec.fc.lun', message: 'Required value: lun is required if targetWWNs is specified' },
    ]],
    ['a flocker volume with name and UUID', pv({ hostPath: undefined, flocker: { datasetName: 'a/b', datasetUUID: 'u' } }), [
      { reason: 'FieldValueInvalid', field: 'spec.flocker', message: 'Invalid value: "resource": datasetName and datasetUUID can not be specified simultaneously' },
      { reason: 'FieldValueInvalid', field: 'spec.flocker.datasetName', message: `Invalid value: "a/b": must not contain '/'` },
    ]],
    ['an iSCSI volume with CHAP and no secret', pv({ hostPath: undefined, iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 300, chapAuthSession: true } }), [
      { reason: 'FieldValueInvalid', field: 'spec.iscsi.lun', message: 'Invalid value: 300: must be between 0 and 255, inclusive' },
      { reason: 'FieldValueRequired', field: 'spec.iscsi.secretRef', message: 'Required value' },
    ]],
    ['a managed Azure disk with a blob URI', pv({ hostPath: undefined, azureDisk: { diskName: 'd', diskURI: 'https://acct.blob.core.windows.net/c/d.vhd', kind: 'Managed', cachingMode: 'Sometimes' } }), [
      { reason: 'FieldValueNotSupported', field: 'spec.azureDisk.cachingMode', message: 'Unsupported value: "Sometimes": supported values: "None", "ReadOnly", "ReadWrite"' },
      { reason: 'FieldValueNotSupported', field: 'spec.azureDisk.diskURI', message: 'Unsupported value: "https://acct.blob.core.windows.net/c/d.vhd": supported values: "/subscriptions/{sub-id}/resourcegroups/{group-name}/providers/microsoft.compute/disks/{disk-id}"' },
    ]],
    ['an NFS volume without server', pv({ hostPath: undefined, nfs: { path: '/x' } }), [{ reason: 'FieldValueRequired', field: 'spec.nfs.server', message: 'Required value' }]],
    ['a bad storage class name', pv({ storageClassName: 'Fast' }), [{ reason: 'FieldValueInvalid', field: 'spec.storageClassName', message: `Invalid value: "Fast": ${SUBDOMAIN_MSG}` }]],
    ['an unknown volume mode', pv({ volumeMode: 'Raw' }), [{ reason: 'FieldValueNotSupported', field: 'spec.volumeMode', message: 'Unsupported value: "Raw": supported values: "Block", "Filesystem"' }]],
  ])('rejects %s', (_name, obj, causes) => {
    expect(validate(JSON.parse(JSON.stringify(obj)))).toEqual(causes);
  });

  it('drops volumeAttributesClassName while the VolumeAttributesClass gate is off, and checks it when on', () => {
    const csi = pv({ hostPath: undefined, csi: { driver: 'd', volumeHandle: 'h' }, volumeAttributesClassName: 'gold' });
    expect(spec(created(pvStrategies.main, JSON.parse(JSON.stringify(csi)))).volumeAttributesClassName).toBeUndefined();
    const on = strategiesOf('PersistentVolume', { VolumeAttributesClass: true }).main;
    expect(spec(created(on, JSON.parse(JSON.stringify(csi)))).volumeAttributesClassName).toBe('gold');
    expect(on.validate(created(on, pv({ volumeAttributesClassName: '' })))).toEqual([
      { reason: 'FieldValueRequired', field: 'spec.volumeAttributesClassName', message: 'Required value: an empty string is disallowed' },
      { reason: 'FieldValueRequired', field: 'spec.csi', message: 'Required value: has to be specified when using volumeAttributesClassName' },
    ]);
  });
});

describe('PersistentVolume warnings and mount options', () => {
  it('warns about the beta class annotation, Recycle, deprecated node labels and sources', () => {
    const obj = created(pvStrategies.main, {
      ...pv({ hostPath: undefined, rbd: { monitors: ['m'], image: 'i' }, persistentVolumeReclaimPolicy: 'Recycle', nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'beta.kubernetes.io/os', operator: 'Exists' }] }] } } }),
      metadata: { name: 'pv-1', annotations: { 'volume.beta.kubernetes.io/storage-class': 'slow' } },
    });
    expect(pvStrategies.main.warningsOnCreate(obj)).toEqual([
      'metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead',
      'spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.',
      'spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key: beta.kubernetes.io/os is deprecated since v1.14; use "kubernetes.io/os" instead',
      'spec.rbd: deprecated in v1.28, non-functional in v1.31+',
    ]);
  });

  it('refuses the mount-options annotation on a source without mount options', () => {
    const withOptions = (source: Obj): Obj => ({ ...pv({ hostPath: undefined, ...source }), metadata: { name: 'pv-1', annotations: { 'volume.beta.kubernetes.io/mount-options': 'ro' } } });
    expect(pvStrategies.main.validate(created(pvStrategies.main, withOptions({ hostPath: { path: '/x' } })))).toEqual([
      { reason: 'FieldValueForbidden', field: 'metadata.annotations.volume.beta.kubernetes.io/mount-options', message: 'Forbidden: may not specify mount options for this volume type' },
    ]);
    expect(pvStrategies.main.validate(created(pvStrategies.main, withOptions({ nfs: { server: 's', path: '/x' } })))).toEqual([]);
  });
});

describe('PersistentVolume updates', () => {
  const old = stored(pvStrategies.main, JSON.parse(JSON.stringify(pv({ hostPath: undefined, csi: { driver: 'd', volumeHandle: 'h' }, nodeAffinity: affinity }))));

  it('allows changing capacity, reclaim policy and claimRef, and adding a controller expand secret', () => {
    const next = structuredClone(old);
    Object.assign(spec(next), { capacity: { storage: '2Gi' }, persistentVolumeReclaimPolicy: 'Delete', claimRef: { namespace: 'default', name: 'c' } });
    (spec(next).csi as Obj).controllerExpandSecretRef = { name: 's', namespace: 'ns' };
    expect(updated(pvStrategies.main, next, old)).toEqual([]);
  });

  it('lists the causes of the new volume twice, as kube-apiserver validates it twice on update', () => {
    const next = structuredClone(old);
    spec(next).persistentVolumeReclaimPolicy = 'Keep';
    const cause = { reason: 'FieldValueNotSupported', field: 'spec.persistentVolumeReclaimPolicy', message: 'Unsupported value: "Keep": supported values: "Delete", "Recycle", "Retain"' };
    expect(updated(pvStrategies.main, next, old)).toEqual([cause, cause]);
  });

  it('forbids changing the volume source', () => {
    const next = structuredClone(old);
    (spec(next).csi as Obj).volumeHandle = 'other';
    const causes = updated(pvStrategies.main, next, old);
    expect(causes).toHaveLength(1);
    expect(causes[0]).toMatchObject({ reason: 'FieldValueForbidden', field: 'spec.persistentvolumesource' });
    expect(causes[0]!.message).toMatch(/^Forbidden: spec\.persistentvolumesource is immutable after creation\n/);
  });

  it('forbids changing volumeMode and a set nodeAffinity', () => {
    const next = structuredClone(old);
    spec(next).volumeMode = 'Block';
    spec(next).nodeAffinity = { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Exists' }] }] } };
    expect(updated(pvStrategies.main, next, old)).toEqual([
      { reason: 'FieldValueInvalid', field: 'volumeMode', message: 'Invalid value: "Block": field is immutable' },
      { reason: 'FieldValueInvalid', field: 'nodeAffinity', message: 'Invalid value: {"required":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"zone","operator":"Exists"}]}]}}: field is immutable' },
    ]);
  });

  it('main writes keep the stored status; status writes keep the stored spec and stamp the phase change', () => {
    const next = structuredClone(old);
    next.status = { phase: 'Bound' };
    pvStrategies.main.prepareForUpdate(next, old);
    expect(next.status).toEqual(old.status);
    const statusWrite = { ...structuredClone(old), spec: { ...spec(old), capacity: { storage: '9Gi' } }, status: { phase: 'Available' } };
    const status = pvStrategies.subresources.status!;
    status.prepareForUpdate(statusWrite, old);
    expect(statusWrite.spec).toEqual(old.spec);
    expect(statusWrite.status).toEqual({ phase: 'Available', lastPhaseTransitionTime: expect.any(String) });
    expect(status.validateUpdate(statusWrite, old)).toEqual([]);
  });
});

const pvc = (specFields: Obj = {}, name = 'claim-1'): Obj => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'default' },
  spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...specFields },
});

describe('PersistentVolumeClaim defaults and data sources', () => {
  it('defaults volumeMode and resets the status to Pending', () => {
    const obj = created(pvcStrategies.main, { ...pvc(), status: { phase: 'Bound', capacity: { storage: '1Gi' } } });
    expect(spec(obj).volumeMode).toBe('Filesystem');
    expect(obj.status).toEqual({ phase: 'Pending' });
  });

  it('fills dataSourceRef from dataSource and the reverse', () => {
    const fromOld = created(pvcStrategies.main, pvc({ dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } }));
    expect(spec(fromOld).dataSourceRef).toEqual({ kind: 'PersistentVolumeClaim', name: 'src' });
    const fromNew = created(pvcStrategies.main, pvc({ dataSourceRef: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' } }));
    expect(spec(fromNew).dataSource).toEqual({ apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' });
  });

  it('ignores a dataSource of another kind that an old client sent alone', () => {
    const obj = created(pvcStrategies.main, pvc({ dataSource: { apiGroup: 'example.com', kind: 'Populator', name: 'p' } }));
    expect(spec(obj).dataSource).toBeUndefined();
    expect(spec(obj).dataSourceRef).toBeUndefined();
  });

  it('drops dataSourceRef.namespace while CrossNamespaceVolumeDataSource is off', () => {
    const obj = created(pvcStrategies.main, pvc({ dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'src', namespace: 'other' } }));
    expect(spec(obj).dataSourceRef).toEqual({ kind: 'PersistentVolumeClaim', name: 'src' });
  });

  it('drops the RecoverVolumeExpansionFailure status fields while the gate is off', () => {
    const old = stored(pvcStrategies.main, pvc());
    const write = { ...structuredClone(old), status: { phase: 'Bound', allocatedResources: { storage: '1Gi' }, allocatedResourceStatuses: { storage: 'NodeResizePending' } } };
    pvcStrategies.subresources.status!.prepareForUpdate(write, old);
    expect(write.status).toEqual({ phase: 'Bound' });
  });
});

describe('PersistentVolumeClaim warnings', () => {
  it('warns about fractional byte quantities and the beta class annotation', () => {
    const obj = created(pvcStrategies.main, { ...pvc({ resources: { requests: { storage: '1.5' }, limits: { storage: '2500m' } } }), metadata: { name: 'c', namespace: 'default', annotations: { 'volume.beta.kubernetes.io/storage-class': 'slow' } } });
    expect(pvcStrategies.main.warningsOnCreate(obj)).toEqual([
      'metadata.annotations[volume.beta.kubernetes.io/storage-class]: deprecated since v1.8; use "storageClassName" attribute instead',
      'spec.resources.requests[storage]: fractional byte value "1500m" is invalid, must be an integer',
      'spec.resources.limits[storage]: fractional byte value "2500m" is invalid, must be an integer',
    ]);
    expect(pvcStrategies.main.warningsOnCreate(created(pvcStrategies.main, pvc()))).toEqual([]);
  });
});

describe('PersistentVolumeClaim validation', () => {
  const validate = (obj: Obj): Cause[] => pvcStrategies.main.validate(created(pvcStrategies.main, obj)) as Cause[];

  it.each<[string, Obj]>([
    ['a minimal claim', pvc()],
    ['a claim with a selector, class and limits', pvc({ selector: { matchLabels: { tier: 'db' } }, storageClassName: 'fast', resources: { requests: { storage: '1Gi' }, limits: { storage: '2Gi' } } })],
    ['requests equal to limits written differently', pvc({ resources: { requests: { storage: '1Gi' }, limits: { storage: '1024Mi' } } })],
    ['a claim data source', pvc({ dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } })],
    ['matching dataSource and dataSourceRef', pvc({ dataSource: { apiGroup: 'example.com', kind: 'Pop', name: 'p' }, dataSourceRef: { apiGroup: 'example.com', kind: 'Pop', name: 'p' } })],
    ['Block mode', pvc({ volumeMode: 'Block' })],
    ['a storage request written as a JSON number', pvc({ resources: { requests: { storage: 1073741824 }, limits: { storage: 1073741824 } } })],
  ])('accepts %s', (_name, obj) => {
    expect(validate(obj)).toEqual([]);
  });

  it.each<[string, Obj, Cause[]]>([
    ['no access modes', pvc({ accessModes: [] }), [{ reason: 'FieldValueRequired', field: 'spec.accessModes', message: 'Required value: at least 1 access mode is required' }]],
    ['an unknown access mode', pvc({ accessModes: ['ReadWriteOnce', 'Sometimes'] }), [{ reason: 'FieldValueNotSupported', field: 'spec.accessModes', message: 'Unsupported value: "Sometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"' }]],
    ['ReadWriteOncePod with another mode', pvc({ accessModes: ['ReadWriteOncePod', 'ReadWriteOnce'] }), [{ reason: 'FieldValueForbidden', field: 'spec.accessModes', message: 'Forbidden: may not use ReadWriteOncePod with other access modes' }]],
    ['no storage request', pvc({ resources: { requests: { cpu: '1' } } }), [{ reason: 'FieldValueRequired', field: 'spec.resources[storage]', message: 'Required value' }]],
    ['no resources', pvc({ resources: undefined }), [{ reason: 'FieldValueRequired', field: 'spec.resources[storage]', message: 'Required value' }]],
    ['a storage request that is no quantity', pvc({ resources: { requests: { storage: '1 GB' } } }), [{ reason: 'FieldValueInvalid', field: 'spec.resources.requests[storage]', message: `Invalid value: "1 GB": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'` }]],
    ['a storage request above a numeric limit', pvc({ resources: { requests: { storage: '2k' }, limits: { storage: 1500 } } }), [{ reason: 'FieldValueInvalid', field: 'spec.resources.requests[storage]', message: 'Invalid value: "2k": must be less than or equal to storage limit of 1500' }]],
    ['a zero storage request', pvc({ resources: { requests: { storage: '0' } } }), [{ reason: 'FieldValueInvalid', field: 'spec.resources[storage]', message: 'Invalid value: "0": must be greater than zero' }]],
    ['a request above its limit (the specification\'s rule)', pvc({ resources: { requests: { storage: '2Gi' }, limits: { storage: '1Gi' } } }), [{ reason: 'FieldValueInvalid', field: 'spec.resources.requests[storage]', message: 'Invalid value: "2Gi": must be less than or equal to storage limit of 1Gi' }]],
    ['an unknown volume mode', pvc({ volumeMode: 'Raw' }), [{ reason: 'FieldValueNotSupported', field: 'spec.volumeMode', message: 'Unsupported value: "Raw": supported values: "Block", "Filesystem"' }]],
    ['a bad storage class name', pvc({ storageClassName: 'Fast' }), [{ reason: 'FieldValueInvalid', field: 'spec.storageClassName', message: `Invalid value: "Fast": ${SUBDOMAIN_MSG}` }]],
    ['a data source without name', pvc({ dataSource: { kind: 'PersistentVolumeClaim' } }), [
      { reason: 'FieldValueRequired', field: 'spec.dataSource.name', message: 'Required value' },
      { reason: 'FieldValueRequired', field: 'spec.dataSourceRef.name', message: 'Required value' },
    ]],
    ['a core data source of another kind', pvc({ dataSourceRef: { kind: 'ConfigMap', name: 'c' } }), [
      { reason: 'FieldValueInvalid', field: 'spec.dataSource', message: `Invalid value: "ConfigMap": must be 'PersistentVolumeClaim' when referencing the default apiGroup` },
      { reason: 'FieldValueInvalid', field: 'spec.dataSourceRef', message: `Invalid value: "ConfigMap": must be 'PersistentVolumeClaim' when referencing the default apiGroup` },
    ]],
    ['a bad data source group', pvc({ dataSourceRef: { apiGroup: 'Example', kind: 'Pop', name: 'p' } }), [
      { reason: 'FieldValueInvalid', field: 'spec.dataSource.apiGroup', message: `Invalid value: "Example": ${SUBDOMAIN_MSG}` },
      { reason: 'FieldValueInvalid', field: 'spec.dataSourceRef.apiGroup', message: `Invalid value: "Example": ${SUBDOMAIN_MSG}` },
    ]],
    ['dataSource unlike dataSourceRef', pvc({ dataSource: { kind: 'PersistentVolumeClaim', name: 'a' }, dataSourceRef: { kind: 'PersistentVolumeClaim', name: 'b' } }), [{ reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "spec.dataSource": must match dataSourceRef' }]],
  ])('rejects %s', (_name, obj, causes) => {
    expect(validate(JSON.parse(JSON.stringify(obj)))).toEqual(causes);
  });
});

describe('PersistentVolumeClaim updates', () => {
  const bound = (): Obj => ({ ...stored(pvcStrategies.main, pvc()), status: { phase: 'Bound', capacity: { storage: '1Gi' } } });

  it('lets the binder set volumeName once, and a bound claim grow', () => {
    const old = bound();
    const next = structuredClone(old);
    spec(next).volumeName = 'pv-1';
    (spec(next).resources as Obj).requests = { storage: '2Gi' };
    expect(updated(pvcStrategies.main, next, old)).toEqual([]);
  });

  it('lists the causes of the new claim twice, as kube-apiserver validates it twice on update', () => {
    const old = { ...bound(), spec: { ...spec(bound()), resources: { requests: { storage: '1Gi' }, limits: { storage: '2Gi' } } } };
    const next = structuredClone(old);
    (spec(next).resources as Obj).requests = { storage: '3Gi' };
    const cause = { reason: 'FieldValueInvalid', field: 'spec.resources.requests[storage]', message: 'Invalid value: "3Gi": must be less than or equal to storage limit of 2Gi' };
    expect(updated(pvcStrategies.main, next, old)).toEqual([cause, cause]);
  });

  it('forbids shrinking the request', () => {
    const old = { ...bound(), spec: { ...spec(bound()), resources: { requests: { storage: '2Gi' } } } };
    const next = structuredClone(old);
    (spec(next).resources as Obj).requests = { storage: '1Gi' };
    expect(updated(pvcStrategies.main, next, old)).toEqual([{ reason: 'FieldValueForbidden', field: 'spec.resources.requests.storage', message: 'Forbidden: field can not be less than previous value' }]);
  });

  it('allows shrinking above status.capacity while RecoverVolumeExpansionFailure is on', () => {
    const recover = strategiesOf('PersistentVolumeClaim', { RecoverVolumeExpansionFailure: true }).main;
    const old = { ...bound(), spec: { ...spec(bound()), resources: { requests: { storage: '3Gi' } } } };
    const ok = structuredClone(old);
    (spec(ok).resources as Obj).requests = { storage: '2Gi' };
    expect(updated(recover, ok, old)).toEqual([]);
    const tooSmall = structuredClone(old);
    (spec(tooSmall).resources as Obj).requests = { storage: '1Gi' };
    expect(updated(recover, tooSmall, old)).toEqual([{ reason: 'FieldValueForbidden', field: 'spec.resources.requests.storage', message: 'Forbidden: field can not be less than status.capacity' }]);
  });

  it('forbids any other spec change', () => {
    const old = bound();
    const next = structuredClone(old);
    spec(next).accessModes = ['ReadOnlyMany'];
    const causes = updated(pvcStrategies.main, next, old);
    expect(causes).toHaveLength(1);
    expect(causes[0]).toMatchObject({ reason: 'FieldValueForbidden', field: 'spec' });
    expect(causes[0]!.message).toMatch(/^Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n/);
  });

  it('forbids a storage request change of an unbound claim', () => {
    const old = stored(pvcStrategies.main, pvc());
    const next = structuredClone(old);
    (spec(next).resources as Obj).requests = { storage: '2Gi' };
    expect(updated(pvcStrategies.main, next, old)[0]).toMatchObject({ reason: 'FieldValueForbidden', field: 'spec' });
  });

  it('lets a claim without class take one once', () => {
    const old = stored(pvcStrategies.main, pvc());
    const next = structuredClone(old);
    spec(next).storageClassName = 'fast';
    expect(updated(pvcStrategies.main, next, old)).toEqual([]);
  });

  it('reports a volumeMode change also at volumeMode', () => {
    const old = bound();
    const next = structuredClone(old);
    spec(next).volumeMode = 'Block';
    expect(updated(pvcStrategies.main, next, old).map((c) => c.field)).toEqual(['spec', 'volumeMode']);
  });

  it('lets volumeAttributesClassName change but not back to nil or empty (gate on)', () => {
    const on = strategiesOf('PersistentVolumeClaim', { VolumeAttributesClass: true }).main;
    const old = { ...stored(on, pvc({ volumeAttributesClassName: 'gold' })), status: { phase: 'Bound' } };
    const change = structuredClone(old);
    spec(change).volumeAttributesClassName = 'silver';
    expect(updated(on, change, old)).toEqual([]);
    const unset = structuredClone(old);
    delete spec(unset).volumeAttributesClassName;
    expect(updated(on, unset, old)).toEqual([{ reason: 'FieldValueForbidden', field: 'spec.volumeAttributesClassName', message: 'Forbidden: update from non-nil value to nil is forbidden' }]);
    const empty = structuredClone(old);
    spec(empty).volumeAttributesClassName = '';
    expect(updated(on, empty, old)).toEqual([{ reason: 'FieldValueForbidden', field: 'spec.volumeAttributesClassName', message: 'Forbidden: update from non-nil value to an empty string is forbidden' }]);
  });
});

describe('PersistentVolumeClaim status updates', () => {
  // Both gates on, so that allocatedResources and modifyVolumeStatus are kept and checked.
  const recover = strategiesOf('PersistentVolumeClaim', { RecoverVolumeExpansionFailure: true, VolumeAttributesClass: true });
  const old = stored(recover.main, pvc());
  const statusWrite = (status: Obj): Cause[] => {
    const write = { ...structuredClone(old), status };
    recover.subresources.status!.prepareForUpdate(write, old);
    return recover.subresources.status!.validateUpdate(write, old) as Cause[];
  };

  it('accepts the resize states and allocated resources', () => {
    expect(statusWrite({ phase: 'Bound', capacity: { storage: '1Gi' }, allocatedResources: { storage: '2Gi' }, allocatedResourceStatuses: { storage: 'ControllerResizeInProgress' } })).toEqual([]);
  });

  it.each<[string, Obj, Cause[]]>([
    ['an unknown resize state (kube-apiserver echoes the key)', { allocatedResourceStatuses: { storage: 'Shrinking' } }, [{ reason: 'FieldValueNotSupported', field: 'status.allocatedResourceStatus', message: 'Unsupported value: "storage": supported values: "ControllerResizeFailed", "ControllerResizeInProgress", "NodeResizeFailed", "NodeResizeInProgress", "NodeResizePending"' }]],
    ['a native resource other than storage', { allocatedResources: { cpu: '1' } }, [{ reason: 'FieldValueNotSupported', field: 'status.allocatedResources', message: 'Unsupported value: "cpu": supported values: "storage"' }]],
    ['a negative allocation', { allocatedResources: { storage: '-1' } }, [{ reason: 'FieldValueInvalid', field: 'status.allocatedResources[storage]', message: 'Invalid value: -1: must be a valid resource quantity' }]],
    ['a negative fraction allocated (integer value 0)', { allocatedResources: { storage: '-500m' } }, [{ reason: 'FieldValueInvalid', field: 'status.allocatedResources[storage]', message: 'Invalid value: "-500m": must be greater than or equal to 0' }]],
    ['a negative capacity', { capacity: { storage: '-1' } }, [{ reason: 'FieldValueInvalid', field: 'status.capacity[storage]', message: 'Invalid value: -1: must be a valid resource quantity' }]],
    ['a condition with an unknown status', { conditions: [{ type: 'Resizing', status: 'Maybe' }] }, [{ reason: 'FieldValueNotSupported', field: 'status.conditions[0].status', message: 'Unsupported value: "Maybe": supported values: "False", "True", "Unknown"' }]],
    ['an unknown modify status', { modifyVolumeStatus: { status: 'Done' } }, [{ reason: 'FieldValueNotSupported', field: 'status.modifyVolumeStatus.status', message: 'Unsupported value: "Done": supported values: "InProgress", "Infeasible", "Pending"' }]],
  ])('rejects %s', (_name, status, causes) => {
    expect(statusWrite(status)).toEqual(causes);
  });
});
