// PersistentVolume: the rules of the kind that the PersistentVolumeSpec type (also a
// VolumeAttachment's inline spec, with other rules) cannot carry, after kube-apiserver's
// ValidatePersistentVolumeSpec (non-inline), ValidatePersistentVolumeUpdate, SetDefaults_PersistentVolume
// and the persistentvolume strategy: capacity holds exactly storage, positive; access modes known
// (ReadWriteOncePod alone); exactly one volume source, checked in kube-apiserver's order; a local
// volume needs nodeAffinity; the source, volumeMode and a set nodeAffinity cannot change.

import type { StatusCause } from '../../errors/status-error.js';
import * as fe from '../../validation/field-errors.js';
import { isDNS1123Subdomain } from '../../machinery/formats.js';
import { validateNodeSelector } from '../../validation/node-selector.js';
import { formatQuantity, quantityOf, quantitySign, quantityValue } from '../../machinery/quantity.js';
import type { ResourceDefinition } from '../definition.js';
import { asObject, asString, deepClone, deepEqual, isPlainObject, isSet, type KubeObject } from '../../machinery/object.js';
import { defaultStrategies, type ResourceStrategies, type Strategy } from '../strategy.js';
import { fieldDiff } from './field-diff.js';
import { mountOptionCauses, persistentVolumeWarnings } from './volume-warnings.js';

type Obj = Record<string, unknown>;
type GateCheck = (gate: string) => boolean;

export const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
const VOLUME_MODES = ['Block', 'Filesystem'];

/** The volume sources in the order kube-apiserver checks them; the first one set wins. */
export const VOLUME_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'glusterfs',
  'flocker',
  'nfs',
  'rbd',
  'quobyte',
  'cephfs',
  'iscsi',
  'cinder',
  'fc',
  'flexVolume',
  'azureFile',
  'vsphereVolume',
  'photonPersistentDisk',
  'portworxVolume',
  'azureDisk',
  'scaleIO',
  'local',
  'storageos',
  'csi',
];

/** The access-mode rules shared with claims. */
function accessModeCauses(modes: unknown, path: string, requiredDetail: string): StatusCause[] {
  const list = Array.isArray(modes) ? modes : [];
  if (list.length === 0) return [fe.required(path, requiredDetail)];
  const causes: StatusCause[] = [];
  let once = false;
  let other = false;
  for (const mode of list) {
    if (!ACCESS_MODES.includes(String(mode))) causes.push(fe.notSupported(path, mode, ACCESS_MODES));
    else if (mode === 'ReadWriteOncePod') once = true;
    else other = true;
  }
  if (once && other) causes.push(fe.forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
  return causes;
}

function capacityCauses(capacity: unknown): StatusCause[] {
  const cap = asObject(capacity);
  const causes: StatusCause[] = [];
  const keys = Object.keys(cap);
  if (keys.length === 0) causes.push(fe.required('spec.capacity'));
  if (!('storage' in cap) || keys.length > 1) causes.push(fe.notSupported('spec.capacity', cap, ['storage']));
  for (const key of keys.sort()) {
    const q = quantityOf(cap[key]);
    if (!q) continue;
    const path = `spec.capacity[${key}]`;
    if (quantityValue(q) < 0n) causes.push(fe.invalid(path, Number(quantityValue(q)), 'must be a valid resource quantity'));
    if (quantitySign(q) <= 0) causes.push(fe.invalid(path, formatQuantity(q), 'must be greater than zero'));
  }
  return causes;
}

/** Whether a path is '/' once cleaned (path.Clean), for the hostPath recycle rule. */
const isRootPath = (p: string): boolean => p.startsWith('/') && p.split('/').every((seg) => seg === '' || seg === '.');

/** ValidatePersistentVolumeSpec for a PersistentVolume object (the type's own rules are generated). */
export function validatePersistentVolumeSpec(obj: KubeObject, vacEnabled: boolean): StatusCause[] {
  const spec = asObject(obj.spec);
  const causes = accessModeCauses(spec.accessModes, 'spec.accessModes', '');
  causes.push(...capacityCauses(spec.capacity));
  const policy = asString(spec.persistentVolumeReclaimPolicy);
  if (policy !== '' && !RECLAIM_POLICIES.includes(policy)) causes.push(fe.notSupported('spec.persistentVolumeReclaimPolicy', policy, RECLAIM_POLICIES));
  let affinitySpecified = false;
  if (isPlainObject(spec.nodeAffinity)) {
    affinitySpecified = true;
    if (isSet(spec.nodeAffinity.required)) causes.push(...validateNodeSelector(spec.nodeAffinity.required, 'spec.nodeAffinity.required'));
    else causes.push(fe.required('spec.nodeAffinity.required', 'must specify required node constraints'));
  }
  let sources = 0;
  for (const source of VOLUME_SOURCES) {
    if (!isSet(spec[source])) continue;
    // kube-apiserver never reports flexVolume as a second source (it counts it unconditionally).
    if (sources > 0 && source !== 'flexVolume') {
      causes.push(fe.forbidden(`spec.${source}`, 'may not specify more than 1 volume type'));
      continue;
    }
    sources += 1;
    if (source === 'local' && !affinitySpecified) causes.push(fe.required('spec.nodeAffinity', 'Local volume requires node affinity'));
  }
  if (sources === 0) causes.push(fe.required('spec', 'must specify a volume type'));
  const hostPath = isPlainObject(spec.hostPath) ? spec.hostPath : undefined;
  if (hostPath && typeof hostPath.path === 'string' && isRootPath(hostPath.path) && policy === 'Recycle') {
    causes.push(fe.forbidden('spec.persistentVolumeReclaimPolicy', "may not be 'recycle' for a hostPath mount of '/'"));
  }
  if (typeof spec.storageClassName === 'string' && spec.storageClassName !== '') {
    causes.push(...isDNS1123Subdomain(spec.storageClassName).map((m) => fe.invalid('spec.storageClassName', spec.storageClassName, m)));
  }
  if (isSet(spec.volumeMode) && !VOLUME_MODES.includes(String(spec.volumeMode))) causes.push(fe.notSupported('spec.volumeMode', spec.volumeMode, VOLUME_MODES));
  if (isSet(spec.volumeAttributesClassName) && vacEnabled) {
    const vac = String(spec.volumeAttributesClassName);
    if (vac === '') causes.push(fe.required('spec.volumeAttributesClassName', 'an empty string is disallowed'));
    else causes.push(...isDNS1123Subdomain(vac).map((m) => fe.invalid('spec.volumeAttributesClassName', vac, m)));
    if (!isSet(spec.csi)) causes.push(fe.required('spec.csi', 'has to be specified when using volumeAttributesClassName'));
  }
  return causes;
}

function sourceOf(spec: Obj): Obj {
  return Object.fromEntries(VOLUME_SOURCES.filter((s) => isSet(spec[s])).map((s) => [s, spec[s]]));
}

function updateCauses(obj: KubeObject, old: KubeObject, enabled: GateCheck): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = asObject(obj.spec);
  const oldSpec = asObject(old.spec);
  const newSource = deepClone(sourceOf(spec));
  const oldSource = sourceOf(oldSpec);
  // A controller expand secret may be added to a CSI volume that had none.
  const newCsi = newSource.csi;
  const oldCsi = oldSource.csi;
  if (isPlainObject(oldCsi) && !isSet(oldCsi.controllerExpandSecretRef) && isPlainObject(newCsi)) delete newCsi.controllerExpandSecretRef;
  if (!deepEqual(newSource, oldSource)) {
    causes.push(fe.forbidden('spec.persistentvolumesource', `spec.persistentvolumesource is immutable after creation\n${fieldDiff(oldSource, newSource)}`));
  }
  if ((spec.volumeMode ?? null) !== (oldSpec.volumeMode ?? null)) {
    // kube-apiserver names this path without its spec prefix.
    causes.push(fe.invalid('volumeMode', spec.volumeMode ?? null, 'field is immutable'));
  }
  if (isSet(oldSpec.nodeAffinity) && !deepEqual(spec.nodeAffinity ?? null, oldSpec.nodeAffinity)) {
    causes.push(fe.invalid('nodeAffinity', spec.nodeAffinity ?? null, 'field is immutable'));
  }
  if ((spec.volumeAttributesClassName ?? null) !== (oldSpec.volumeAttributesClassName ?? null)) {
    if (!enabled('VolumeAttributesClass')) {
      causes.push(fe.forbidden('spec.volumeAttributesClassName', 'update is forbidden when the VolumeAttributesClass feature gate is disabled'));
    }
    if (isSet(oldSpec.volumeAttributesClassName) && !isSet(spec.volumeAttributesClassName)) {
      causes.push(fe.forbidden('spec.volumeAttributesClassName', 'update from non-nil value to nil is forbidden'));
    }
  }
  return causes;
}

/** SetDefaults_PersistentVolume's spec part: Retain and Filesystem. */
function applyKindDefaults(obj: KubeObject): void {
  if (!isPlainObject(obj.spec)) obj.spec = {};
  const spec = obj.spec as Obj;
  if (!spec.persistentVolumeReclaimPolicy) spec.persistentVolumeReclaimPolicy = 'Retain';
  if (!isSet(spec.volumeMode)) spec.volumeMode = 'Filesystem';
}

/**
 * kube-apiserver reports a PersistentVolume's GCE disk errors under spec.persistentDisk (not the
 * JSON name, as a Pod's volume does); the type's rules report at the JSON name, so rename here.
 */
function withGcePath(causes: StatusCause[]): StatusCause[] {
  const from = 'spec.gcePersistentDisk.';
  return causes.map((c) => (c.field?.startsWith(from) ? { ...c, field: `spec.persistentDisk.${c.field.slice(from.length)}` } : c));
}

const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');

export function persistentVolumeStrategies(def: ResourceDefinition, enabled: GateCheck): ResourceStrategies {
  const base = defaultStrategies(def);
  const vacEnabled = (old?: KubeObject): boolean => enabled('VolumeAttributesClass') || (old !== undefined && isSet(asObject(old.spec).volumeAttributesClassName));
  const main: Strategy = {
    ...base.main,
    prepareForCreate(obj) {
      applyKindDefaults(obj);
      base.main.prepareForCreate(obj);
      obj.status = { phase: 'Pending', lastPhaseTransitionTime: now() };
    },
    validate: (obj) => withGcePath([...base.main.validate(obj), ...validatePersistentVolumeSpec(obj, vacEnabled()), ...mountOptionCauses(obj)]),
    warningsOnCreate: (obj) => persistentVolumeWarnings(obj),
    prepareForUpdate(obj, old) {
      applyKindDefaults(obj);
      base.main.prepareForUpdate(obj, old);
    },
    // kube-apiserver's strategy validates the new volume, then ValidatePersistentVolumeUpdate
    // validates it again: every cause of the spec is listed twice (the message names it once).
    // Metadata causes keep the count the generic update validation gives every kind.
    validateUpdate: (obj, old) =>
      withGcePath([
        ...base.main.validate(obj).filter((c) => !c.field?.startsWith('metadata')),
        ...validatePersistentVolumeSpec(obj, vacEnabled(old)),
        ...mountOptionCauses(obj),
        ...base.main.validateUpdate(obj, old),
        ...validatePersistentVolumeSpec(obj, vacEnabled(old)),
        ...updateCauses(obj, old, enabled),
      ]),
    warningsOnUpdate: (obj) => persistentVolumeWarnings(obj),
  };
  const baseStatus = base.subresources.status as Strategy;
  const status: Strategy = {
    ...baseStatus,
    prepareForUpdate(obj, old) {
      baseStatus.prepareForUpdate(obj, old);
      const newStatus = isPlainObject(obj.status) ? obj.status : undefined;
      const oldPhase = isPlainObject(old.status) ? old.status.phase : undefined;
      // The phase's transition time is the server's to keep.
      if (newStatus && newStatus.phase !== oldPhase) newStatus.lastPhaseTransitionTime = now();
    },
    // ValidatePersistentVolumeStatusUpdate checks metadata only; the spec is the stored one.
    validateUpdate: (obj, old) => def.validator.validateUpdate(obj, old),
  };
  return { ...base, main, subresources: { status } };
}
