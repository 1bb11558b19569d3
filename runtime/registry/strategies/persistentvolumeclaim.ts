// PersistentVolumeClaim: what the spec cannot state (kube-apiserver's persistentvolumeclaim
// strategy and ValidatePersistentVolumeClaimUpdate / StatusUpdate):
// - on create the status is reset to phase Pending; dataSource and dataSourceRef are normalized
//   (an old client's dataSource of an unknown kind is ignored; either one fills the other);
// - the storage request rules compare quantities (claim-resources.ts);
// - after creation the spec is immutable except resources.requests (growing only; a bound
//   claim) and volumeAttributesClassName; volumeName may be set once; storageClassName may be set
//   once from nil (or to the beta annotation's value);
// - the status subresource checks the resize status values and allocated resources when the
//   RecoverVolumeExpansionFailure gate is on (or the claim already uses them).

import type { StatusCause } from '../../errors/status-error.js';
import { storageRequestOf, validateClaimSpecResources } from '../../validation/claim-resources.js';
import * as fe from '../../validation/field-errors.js';
import { canonicalQuantity, compareQuantities, formatQuantity, quantityOf, quantityValue, type Quantity } from '../../machinery/quantity.js';
import { validatePersistentVolumeClaimResourceKey } from '../../validation/resource-names.js';
import type { ResourceDefinition } from '../definition.js';
import { annotationsOf, asObject, asString, deepClone, deepEqual, isPlainObject, isSet, type KubeObject } from '../../machinery/object.js';
import { defaultStrategies, type ResourceStrategies, type Strategy } from '../strategy.js';
import { fieldDiff } from './field-diff.js';
import { persistentVolumeClaimWarnings } from './volume-warnings.js';

type Obj = Record<string, unknown>;
type GateCheck = (gate: string) => boolean;

const BETA_STORAGE_CLASS_ANNOTATION = 'volume.beta.kubernetes.io/storage-class';
const RESIZE_STATUSES = ['ControllerResizeFailed', 'ControllerResizeInProgress', 'NodeResizeFailed', 'NodeResizeInProgress', 'NodeResizePending'];

/** A VolumeSnapshot or a claim: the only data sources an old client's dataSource may name. */
function isLegacyDataSource(ds: Obj): boolean {
  const group = asString(ds.apiGroup);
  return (ds.kind === 'PersistentVolumeClaim' && group === '') || (ds.kind === 'VolumeSnapshot' && group === 'snapshot.storage.k8s.io');
}

/** EnforceDataSourceBackwardsCompatibility then NormalizeDataSources, on the new spec in place. */
export function normalizeDataSources(spec: Obj, oldSpec: Obj | undefined, enabled: GateCheck): void {
  const oldInUse = oldSpec !== undefined && (isSet(oldSpec.dataSource) || isSet(oldSpec.dataSourceRef));
  if (!oldInUse && !isSet(spec.dataSourceRef) && isPlainObject(spec.dataSource) && !isLegacyDataSource(spec.dataSource)) {
    delete spec.dataSource;
  }
  if (!enabled('AnyVolumeDataSource')) return;
  const copy = (from: Obj): Obj => {
    const out: Obj = { kind: from.kind, name: from.name };
    if (isSet(from.apiGroup)) out.apiGroup = from.apiGroup;
    return out;
  };
  if (isPlainObject(spec.dataSource) && !isSet(spec.dataSourceRef)) {
    spec.dataSourceRef = copy(spec.dataSource);
  } else if (isPlainObject(spec.dataSourceRef) && !isSet(spec.dataSource)) {
    const ns = spec.dataSourceRef.namespace;
    if (typeof ns !== 'string' || ns === '') spec.dataSource = copy(spec.dataSourceRef);
  }
}

/** The spec with its quantities in canonical form, for kube-apiserver's semantic comparison. */
function comparableSpec(spec: Obj): Obj {
  const out = deepClone(spec);
  const resources = out.resources;
  if (isPlainObject(resources)) {
    for (const list of ['requests', 'limits']) {
      const m = resources[list];
      if (isPlainObject(m)) for (const [k, v] of Object.entries(m)) if (typeof v === 'string' || typeof v === 'number') m[k] = canonicalQuantity(String(v));
    }
  }
  return out;
}

/** The claim may move from the beta annotation to storageClassName with the same value. */
function upgradeFromAnnotation(obj: KubeObject, old: KubeObject): boolean {
  const oldAnn = annotationsOf(old);
  const newAnn = annotationsOf(obj);
  const newName = asObject(obj.spec).storageClassName;
  return (
    BETA_STORAGE_CLASS_ANNOTATION in oldAnn &&
    !isSet(asObject(old.spec).storageClassName) &&
    typeof newName === 'string' &&
    newName === oldAnn[BETA_STORAGE_CLASS_ANNOTATION] &&
    (!(BETA_STORAGE_CLASS_ANNOTATION in newAnn) || newAnn[BETA_STORAGE_CLASS_ANNOTATION] === oldAnn[BETA_STORAGE_CLASS_ANNOTATION])
  );
}

/** A claim without a class may be given one (matching the beta annotation, if any). */
function upgradeFromNil(obj: KubeObject, old: KubeObject): boolean {
  const oldAnn = annotationsOf(old);
  const newName = asObject(obj.spec).storageClassName;
  return isSet(asObject(obj.spec).storageClassName) && !isSet(asObject(old.spec).storageClassName) && (!(BETA_STORAGE_CLASS_ANNOTATION in oldAnn) || newName === oldAnn[BETA_STORAGE_CLASS_ANNOTATION]);
}

function recoveryEnabled(old: KubeObject, enabled: GateCheck): boolean {
  const status = asObject(old.status);
  return enabled('RecoverVolumeExpansionFailure') || isSet(status.allocatedResources) || isSet(status.allocatedResourceStatuses);
}

function immutabilityCauses(obj: KubeObject, old: KubeObject, enabled: GateCheck): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = asObject(obj.spec);
  const oldSpec = asObject(old.spec);
  const newClone = comparableSpec(spec);
  const oldClone = comparableSpec(oldSpec);
  // The binder sets volumeName once.
  if (!oldSpec.volumeName) {
    if (isSet(newClone.volumeName)) oldClone.volumeName = newClone.volumeName;
    else delete oldClone.volumeName;
  }
  if (upgradeFromAnnotation(obj, old)) {
    delete newClone.storageClassName;
  } else {
    const newAnn = annotationsOf(obj)[BETA_STORAGE_CLASS_ANNOTATION];
    const oldAnn = annotationsOf(old)[BETA_STORAGE_CLASS_ANNOTATION];
    if ((newAnn ?? '') !== (oldAnn ?? '')) {
      causes.push(fe.invalid(`metadata.annotations[${BETA_STORAGE_CLASS_ANNOTATION}]`, newAnn ?? '', 'field is immutable'));
    }
    if (upgradeFromNil(obj, old)) {
      if (isSet(oldClone.storageClassName)) newClone.storageClassName = oldClone.storageClassName;
      else delete newClone.storageClassName;
    }
  }
  // A bound claim may change its storage request (checked below: it may only grow).
  if (asObject(obj.status).phase === 'Bound' && isPlainObject(newClone.resources) && isPlainObject(newClone.resources.requests)) {
    const oldRequests = asObject(asObject(oldClone.resources).requests);
    if ('storage' in oldRequests) newClone.resources.requests.storage = oldRequests.storage;
    else delete newClone.resources.requests.storage;
  }
  for (const clone of [newClone, oldClone]) delete clone.volumeAttributesClassName;
  if (isSet(oldSpec.volumeAttributesClassName)) newClone.volumeAttributesClassName = oldClone.volumeAttributesClassName = oldSpec.volumeAttributesClassName;
  if (!deepEqual(newClone, oldClone)) {
    causes.push(fe.forbidden('spec', `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${fieldDiff(oldClone, newClone)}`));
  }

  const zero: Quantity = { num: 0n, den: 1n, format: 'DecimalSI' };
  const oldSize = storageRequestOf(oldSpec) ?? zero;
  const newSize = storageRequestOf(spec) ?? zero;
  if (compareQuantities(newSize, oldSize) < 0) {
    if (!recoveryEnabled(old, enabled)) {
      causes.push(fe.forbidden('spec.resources.requests.storage', 'field can not be less than previous value'));
    } else {
      const capacity = asObject(asObject(old.status).capacity);
      const statusSize = quantityOf(capacity.storage) ?? zero;
      if (compareQuantities(newSize, statusSize) <= 0) causes.push(fe.forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
    }
  }
  if ((spec.volumeMode ?? null) !== (oldSpec.volumeMode ?? null)) {
    // kube-apiserver names this path without its spec prefix.
    causes.push(fe.invalid('volumeMode', spec.volumeMode ?? null, 'field is immutable'));
  }
  if ((spec.volumeAttributesClassName ?? null) !== (oldSpec.volumeAttributesClassName ?? null)) {
    if (!enabled('VolumeAttributesClass')) {
      causes.push(fe.forbidden('spec.volumeAttributesClassName', 'update is forbidden when the VolumeAttributesClass feature gate is disabled'));
    }
    if (isSet(oldSpec.volumeAttributesClassName)) {
      if (!isSet(spec.volumeAttributesClassName)) causes.push(fe.forbidden('spec.volumeAttributesClassName', 'update from non-nil value to nil is forbidden'));
      else if (spec.volumeAttributesClassName === '') causes.push(fe.forbidden('spec.volumeAttributesClassName', 'update from non-nil value to an empty string is forbidden'));
    }
  }
  return causes;
}

/** ValidatePersistentVolumeClaimStatusUpdate beyond what the generated validator checks. */
/** validateBasicResource: a quantity whose integer value is negative. */
function basicResourceCause(value: unknown, path: string): StatusCause | undefined {
  const q = quantityOf(value);
  return q && quantityValue(q) < 0n ? fe.invalid(path, Number(quantityValue(q)), 'must be a valid resource quantity') : undefined;
}

/** status.allocatedResources: storage keys only, then basic, then non-negative (ValidateResourceQuantityValue). */
function allocatedResourceCauses(list: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const key of Object.keys(list).sort()) {
    const keyCauses = validatePersistentVolumeClaimResourceKey(key, 'status.allocatedResources');
    if (keyCauses.length > 0) {
      causes.push(...keyCauses);
      continue;
    }
    const path = `status.allocatedResources[${key}]`;
    const basic = basicResourceCause(list[key], path);
    const q = quantityOf(list[key]);
    if (basic) causes.push(basic);
    else if (q && q.num < 0n) causes.push(fe.invalid(path, formatQuantity(q), 'must be greater than or equal to 0'));
  }
  return causes;
}

/** ValidatePersistentVolumeClaimStatusUpdate beyond what the generated validator checks. */
export function statusUpdateCauses(obj: KubeObject, old: KubeObject, enabled: GateCheck): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = asObject(obj.spec);
  // kube-apiserver spells this path with a capital S.
  if (!Array.isArray(spec.accessModes) || spec.accessModes.length === 0) causes.push(fe.required('Spec.accessModes'));
  const status = asObject(obj.status);
  const capacity = asObject(status.capacity);
  for (const key of Object.keys(capacity).sort()) {
    const cause = basicResourceCause(capacity[key], `status.capacity[${key}]`);
    if (cause) causes.push(cause);
  }
  if (!recoveryEnabled(old, enabled)) return causes;
  const statuses = asObject(status.allocatedResourceStatuses);
  for (const key of Object.keys(statuses).sort()) {
    causes.push(...validatePersistentVolumeClaimResourceKey(key, 'status.allocatedResourceStatus'));
    // kube-apiserver echoes the key, not the bad value, here.
    if (!RESIZE_STATUSES.includes(String(statuses[key]))) causes.push(fe.notSupported('status.allocatedResourceStatus', key, RESIZE_STATUSES));
  }
  if (isPlainObject(status.allocatedResources)) causes.push(...allocatedResourceCauses(status.allocatedResources));
  return causes;
}

const withoutMetadata = (causes: StatusCause[]): StatusCause[] => causes.filter((c) => !c.field?.startsWith('metadata'));

export function persistentVolumeClaimStrategies(def: ResourceDefinition, enabled: GateCheck): ResourceStrategies {
  const base = defaultStrategies(def);
  const main: Strategy = {
    ...base.main,
    prepareForCreate(obj) {
      base.main.prepareForCreate(obj);
      // What kube-apiserver returns after resetting the status and defaulting it on read.
      obj.status = { phase: 'Pending' };
      if (isPlainObject(obj.spec)) normalizeDataSources(obj.spec, undefined, enabled);
    },
    validate: (obj) => [...base.main.validate(obj), ...validateClaimSpecResources(obj.spec, 'spec')],
    warningsOnCreate: (obj) => persistentVolumeClaimWarnings(obj),
    warningsOnUpdate: (obj) => persistentVolumeClaimWarnings(obj),
    prepareForUpdate(obj, old) {
      base.main.prepareForUpdate(obj, old);
      if (isPlainObject(obj.spec)) normalizeDataSources(obj.spec, asObject(old.spec), enabled);
    },
    // kube-apiserver's strategy validates the new claim, then ValidatePersistentVolumeClaimUpdate
    // validates it again: every cause of the spec is listed twice (the message names it once).
    // Metadata causes keep the count the generic update validation gives every kind.
    validateUpdate: (obj, old) => [
      ...withoutMetadata(base.main.validate(obj)),
      ...validateClaimSpecResources(obj.spec, 'spec'),
      ...base.main.validateUpdate(obj, old),
      ...validateClaimSpecResources(obj.spec, 'spec'),
      ...immutabilityCauses(obj, old, enabled),
    ],
  };
  const status: Strategy = {
    ...(base.subresources.status as Strategy),
    validateUpdate: (obj, old) => [...def.validator.validateUpdate(obj, old), ...statusUpdateCauses(obj, old, enabled)],
  };
  return { ...base, main, subresources: { status } };
}
