// Generic ObjectMeta rules (kube-apiserver's ValidateObjectMeta / ValidateObjectMetaUpdate, plus the
// core group's extra finalizer-name check), driven only by the kind's name format and scope.
// Paths and messages follow k8s.io/apimachinery/pkg/api/validation/objectmeta.go, including its
// quirks: label and annotation errors are reported at `metadata.labels` / `metadata.annotations`,
// owner reference errors at `metadata.ownerReferences.<field>` without an index.

import type { StatusCause } from '../errors/status-error.js';
import * as fe from './field-errors.js';
import { byteLength, isDNS1123Label, isKubeFinalizerName, isLabelValue, isQualifiedName, nameChecks, nameMaxBytes, STANDARD_FINALIZERS } from '../machinery/formats.js';
import { goQuote } from '../machinery/go-format.js';
import { deepEqual } from '../machinery/deep-equal.js';
import { asList, asObject, asString } from '../machinery/json-values.js';

type Obj = Record<string, unknown>;

export interface MetadataRules {
  namespaced: boolean;
  nameFormat: string;
  /**
   * false: only apimachinery's generic finalizer rule (a qualified name), as kube's
   * apiextensions-apiserver validates CRDs and custom resources; absent: also core's rule that an
   * unprefixed finalizer be a standard one.
   */
  kubeFinalizerNames?: boolean;
}

const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;
const FIELD_MANAGER_MAX_LENGTH = 128;
const MAX_SUBRESOURCE_NAME_LENGTH = 256;

const asStrMap = (v: unknown): Record<string, string> => asObject(v) as Record<string, string>;
const sortedKeys = (o: Obj): string[] => Object.keys(o).sort();

export function validateLabels(labels: Record<string, string>, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  addLabelCauses(causes, labels, path);
  return causes;
}

function addLabelCauses(causes: StatusCause[], labels: Record<string, string>, path: string): void {
  for (const key of sortedKeys(labels)) {
    for (const msg of isQualifiedName(key)) causes.push(fe.invalid(path, key, msg));
    for (const msg of isLabelValue(asString(labels[key]))) causes.push(fe.invalid(path, labels[key], msg));
  }
}

export function validateAnnotations(annotations: Record<string, string>, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  addAnnotationCauses(causes, annotations, path);
  return causes;
}

function addAnnotationCauses(causes: StatusCause[], annotations: Record<string, string>, path: string): void {
  let size = 0;
  for (const key of sortedKeys(annotations)) {
    // Annotation keys are qualified names in any letter case.
    for (const msg of isQualifiedName(key.toLowerCase())) causes.push(fe.invalid(path, key, msg));
    size += byteLength(key) + byteLength(asString(annotations[key]));
  }
  if (size > TOTAL_ANNOTATION_SIZE_LIMIT) causes.push(fe.tooLong(path, TOTAL_ANNOTATION_SIZE_LIMIT));
}

function addOwnerReferenceCauses(causes: StatusCause[], refs: unknown[], path: string): void {
  let firstController = '';
  for (const raw of refs) {
    const ref = asObject(raw);
    const apiVersion = asString(ref.apiVersion);
    const kind = asString(ref.kind);
    const version = apiVersion.includes('/') ? apiVersion.slice(apiVersion.indexOf('/') + 1) : apiVersion;
    if (!version) causes.push(fe.invalid(`${path}.apiVersion`, apiVersion, 'version must not be empty'));
    if (!kind) causes.push(fe.invalid(`${path}.kind`, kind, 'kind must not be empty'));
    if (!asString(ref.name)) causes.push(fe.invalid(`${path}.name`, asString(ref.name), 'name must not be empty'));
    if (!asString(ref.uid)) causes.push(fe.invalid(`${path}.uid`, asString(ref.uid), 'uid must not be empty'));
    if (apiVersion === 'v1' && kind === 'Event') causes.push(fe.invalid(path, ref, '/v1, Kind=Event is disallowed from being an owner'));
    if (ref.controller === true) {
      const current = `${kind}/${asString(ref.name)}`;
      if (firstController) {
        causes.push(
          fe.invalid(path, refs, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${current}`),
        );
      } else {
        firstController = current;
      }
    }
  }
}

function addFinalizerCauses(causes: StatusCause[], finalizers: string[], path: string): void {
  for (const f of finalizers) for (const msg of isQualifiedName(f)) causes.push(fe.invalid(path, f, msg));
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    causes.push(fe.invalid(path, finalizers, 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
}

/** The core group's extra rule: a finalizer without a '/' must be a standard one (reported per index). */
function addKubeFinalizerNameCauses(causes: StatusCause[], finalizers: string[], path: string): void {
  for (let i = 0; i < finalizers.length; i++) {
    const f = finalizers[i]!;
    if (!f.includes('/') && !STANDARD_FINALIZERS.has(f)) {
      causes.push(fe.invalid(`${path}[${i}]`, f, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  }
}

/** Control, format, private-use, unassigned and line/paragraph separator characters: not in a field manager's name. */
const DISALLOWED_MANAGER_CHARACTER = /[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u;

function addFieldManagerCauses(causes: StatusCause[], manager: string, path: string): void {
  if (byteLength(manager) > FIELD_MANAGER_MAX_LENGTH) causes.push(fe.tooLong(path, FIELD_MANAGER_MAX_LENGTH));
  // Nearly every manager name is plain text: one search of the whole name before the per-character walk.
  if (!DISALLOWED_MANAGER_CHARACTER.test(manager)) return;
  let offset = 0;
  for (const ch of manager) {
    if (DISALLOWED_MANAGER_CHARACTER.test(ch)) {
      const cp = ch.codePointAt(0) ?? 0;
      const hexCode = cp.toString(16).toUpperCase().padStart(4, '0');
      causes.push(fe.invalid(path, manager, `invalid character U+${hexCode} (at position ${offset})`));
    }
    offset += byteLength(ch);
  }
}

/** Every write validates its managedFields: each entry's paths are only spelled out for an entry found wrong. */
function addManagedFieldsCauses(causes: StatusCause[], entries: unknown[], path: string): void {
  for (let i = 0; i < entries.length; i++) {
    const entry = asObject(entries[i]);
    const operation = asString(entry.operation);
    if (operation !== 'Apply' && operation !== 'Update') causes.push(fe.invalid(`${path}[${i}].operation`, operation, 'must be `Apply` or `Update`'));
    const fieldsType = asString(entry.fieldsType);
    if (fieldsType && fieldsType !== 'FieldsV1') causes.push(fe.invalid(`${path}[${i}].fieldsType`, fieldsType, 'must be `FieldsV1`'));
    const manager = asString(entry.manager);
    if (byteLength(manager) > FIELD_MANAGER_MAX_LENGTH || DISALLOWED_MANAGER_CHARACTER.test(manager)) {
      addFieldManagerCauses(causes, manager, `${path}[${i}].manager`);
    }
    if (byteLength(asString(entry.subresource)) > MAX_SUBRESOURCE_NAME_LENGTH) causes.push(fe.tooLong(`${path}[${i}].subresource`, MAX_SUBRESOURCE_NAME_LENGTH));
  }
}

/**
 * The finalizers as strings, or undefined when there are none (a create nearly always has none,
 * and then none of their rules can complain).
 */
function finalizersOf(meta: Obj): string[] | undefined {
  const list = meta.finalizers;
  return Array.isArray(list) && list.length > 0 ? list.map(asString) : undefined;
}

/** nameChecks' function for each name format, made once rather than for every object validated. */
const nameCheckOfFormat = new Map<string, ReturnType<typeof nameChecks>>();

function nameCheckOf(format: string): ReturnType<typeof nameChecks> {
  let check = nameCheckOfFormat.get(format);
  if (!check) nameCheckOfFormat.set(format, (check = nameChecks(format)));
  return check;
}

/**
 * ValidateObjectMeta for a new object. Expects generateName to have been turned into a name
 * already. Every rule adds to one list, and rules over members the object does not hold (most
 * creates hold no labels, annotations, owners or finalizers) are not run: they could find nothing.
 */
export function validateObjectMeta(obj: Obj, rules: MetadataRules, path = 'metadata'): StatusCause[] {
  const meta = asObject(obj.metadata);
  const causes: StatusCause[] = [];
  const nameFn = nameCheckOf(rules.nameFormat);
  const generateName = asString(meta.generateName);
  if (generateName) for (const msg of nameFn(generateName, true)) causes.push(fe.invalid(`${path}.generateName`, generateName, msg));
  const name = asString(meta.name);
  const maxName = nameMaxBytes(rules.nameFormat);
  if (!name) causes.push(fe.required(`${path}.name`, 'name or generateName is required'));
  else if (maxName !== undefined && byteLength(name) > maxName) causes.push(fe.tooLong(`${path}.name`, maxName));
  if (name) for (const msg of nameFn(name, false)) causes.push(fe.invalid(`${path}.name`, name, msg));
  const namespace = asString(meta.namespace);
  if (rules.namespaced) {
    if (!namespace) causes.push(fe.required(`${path}.namespace`));
    else for (const msg of isDNS1123Label(namespace)) causes.push(fe.invalid(`${path}.namespace`, namespace, msg));
  } else if (namespace) {
    causes.push(fe.forbidden(`${path}.namespace`, 'not allowed on this type'));
  }
  const generation = meta.generation;
  if (typeof generation === 'number' && generation < 0) causes.push(fe.invalid(`${path}.generation`, generation, 'must be greater than or equal to 0'));
  if (meta.labels) addLabelCauses(causes, asStrMap(meta.labels), `${path}.labels`);
  if (meta.annotations) addAnnotationCauses(causes, asStrMap(meta.annotations), `${path}.annotations`);
  if (Array.isArray(meta.ownerReferences)) addOwnerReferenceCauses(causes, meta.ownerReferences, `${path}.ownerReferences`);
  const finalizers = finalizersOf(meta);
  if (finalizers) addFinalizerCauses(causes, finalizers, `${path}.finalizers`);
  if (Array.isArray(meta.managedFields)) addManagedFieldsCauses(causes, meta.managedFields, `${path}.managedFields`);
  if (finalizers && rules.kubeFinalizerNames !== false) addKubeFinalizerNameCauses(causes, finalizers, `${path}.finalizers`);
  return causes;
}

function immutable(causes: StatusCause[], path: string, now: unknown, before: unknown): void {
  if (!deepEqual(now ?? null, before ?? null)) causes.push(fe.invalid(path, now ?? null, 'field is immutable'));
}

/** ValidateObjectMetaUpdate: what may not change, plus the label/annotation/owner/managedFields rules again. */
export function validateObjectMetaUpdate(obj: Obj, old: Obj, path = 'metadata', kubeFinalizerNames = true): StatusCause[] {
  const meta = asObject(obj.metadata);
  const oldMeta = asObject(old.metadata);
  const causes: StatusCause[] = [];
  const finalizers = asList(meta.finalizers).map(asString);
  if (oldMeta.deletionTimestamp) {
    const before = new Set(asList(oldMeta.finalizers).map(asString));
    const added = [...new Set(finalizers.filter((f) => !before.has(f)))].sort();
    if (added.length) {
      const shown = `[]string{${added.map(goQuote).join(', ')}}`;
      causes.push(fe.forbidden(`${path}.finalizers`, `no new finalizers can be added if the object is being deleted, found new finalizers ${shown}`));
    }
  }
  const resourceVersion = asString(meta.resourceVersion);
  if (!resourceVersion) causes.push(fe.invalid(`${path}.resourceVersion`, resourceVersion, 'must be specified for an update'));
  const generation = typeof meta.generation === 'number' ? meta.generation : 0;
  const oldGeneration = typeof oldMeta.generation === 'number' ? oldMeta.generation : 0;
  if (generation < oldGeneration) causes.push(fe.invalid(`${path}.generation`, generation, 'must not be decremented'));
  immutable(causes, `${path}.name`, asString(meta.name), asString(oldMeta.name));
  immutable(causes, `${path}.namespace`, asString(meta.namespace), asString(oldMeta.namespace));
  immutable(causes, `${path}.uid`, asString(meta.uid), asString(oldMeta.uid));
  immutable(causes, `${path}.creationTimestamp`, meta.creationTimestamp, oldMeta.creationTimestamp);
  immutable(causes, `${path}.deletionTimestamp`, meta.deletionTimestamp, oldMeta.deletionTimestamp);
  immutable(causes, `${path}.deletionGracePeriodSeconds`, meta.deletionGracePeriodSeconds, oldMeta.deletionGracePeriodSeconds);
  addLabelCauses(causes, asStrMap(meta.labels), `${path}.labels`);
  addAnnotationCauses(causes, asStrMap(meta.annotations), `${path}.annotations`);
  addOwnerReferenceCauses(causes, asList(meta.ownerReferences), `${path}.ownerReferences`);
  addManagedFieldsCauses(causes, asList(meta.managedFields), `${path}.managedFields`);
  if (kubeFinalizerNames) addKubeFinalizerNameCauses(causes, finalizers, `${path}.finalizers`);
  return causes;
}

export { isKubeFinalizerName };
