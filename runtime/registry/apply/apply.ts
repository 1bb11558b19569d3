// Server-side apply (application/apply-patch+yaml, JSON accepted): the request body is the
// applier's whole intent. The object is created when absent, else the intent is merged into the
// stored object inside the store's retry loop, with ownership checked and recorded.

import { visit } from 'yaml';
import { badRequest, invalid, isStatusError, StatusError } from '../../errors/status-error.js';
import type { ResourceDefinition } from '../definition.js';
import { NestingTooDeep, parseYamlBounded } from '../../machinery/nesting.js';
import { isPlainObject, metaOf, type KubeObject } from '../../machinery/object.js';
import { groupVersionKindString, parseGroupVersion } from '../../machinery/group-version-kind.js';
import type { Store, WriteOptions } from '../store.js';
import { fieldManagerFor } from './field-managers.js';

export interface ApplyOptions {
  /** Required: the applier's name (`fieldManager` query parameter). */
  fieldManager: string;
  /** `force=true`: take conflicting fields from their managers. */
  force: boolean;
  subresource?: string;
  /**
   * Runs once the intent has been merged, before anything is written, with the merged object: it
   * becomes the kind's Go struct there (numbers converted), and kube-apiserver's strict decoding
   * of the apply body (fieldValidation) comes after the field manager's own errors.
   */
  afterApply?: (applied: KubeObject) => void;
}

/**
 * PatchOptions checks specific to apply, as kube-apiserver validates them: 422 on
 * PatchOptions.meta.k8s.io when fieldManager is missing. (`force` on other patch types is the
 * caller's to refuse: "force: Forbidden: may not be specified for non-apply patch".)
 */
export function validateApplyOptions(fieldManager: string | undefined): void {
  if (!fieldManager) {
    throw invalid('meta.k8s.io', 'PatchOptions', '', [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }]);
  }
}

/** A YAML number as go-yaml reads one: decimal, with an optional fraction and exponent. */
const DECIMAL = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;

/**
 * A number go-yaml cannot hold as a float64 (1e400) is a string to it, as is anything its float
 * resolution refuses; .inf and .nan are floats, which the conversion to JSON then refuses.
 */
function goFloatScalar(node: { value: unknown; source?: string }): void {
  const value = node.value;
  if (typeof value !== 'number' || Number.isFinite(value)) return;
  const source = node.source ?? '';
  if (DECIMAL.test(source)) {
    node.value = source;
    return;
  }
  const shown = Number.isNaN(value) ? 'NaN' : value > 0 ? '+Inf' : '-Inf';
  throw badRequest(`error decoding YAML: error converting YAML to JSON: json: unsupported value: ${shown}`);
}

/** The apply body: YAML or JSON (JSON is YAML), which must be an object. */
export function decodeApplyPatch(patch: Uint8Array | string): KubeObject {
  const text = typeof patch === 'string' ? patch : Buffer.from(patch).toString('utf8');
  let value: unknown;
  try {
    value = parseYamlBounded(text, { uniqueKeys: false, intAsBigInt: false }, (doc) => visit(doc, { Scalar: (_, node) => goFloatScalar(node) }));
  } catch (e) {
    if (isStatusError(e)) throw e;
    // sigs.k8s.io/yaml's Unmarshal wraps go-yaml's errors, the depth limit's among them.
    if (e instanceof NestingTooDeep) throw badRequest(`error decoding YAML: error converting YAML to JSON: ${e.message}`);
    throw badRequest(`error decoding YAML: ${(e as Error).message}`);
  }
  if (value === null || value === undefined) value = {};
  if (!isPlainObject(value)) throw badRequest('error decoding YAML: the apply patch must be an object');
  return value as KubeObject;
}

function groupVersion(definition: ResourceDefinition): string {
  return definition.group ? `${definition.group}/${definition.version}` : definition.version;
}

/**
 * The checks kube-apiserver's field manager makes on the intent before merging it. The outermost
 * (versionCheckManager) wants the group, version and kind of the URL, and names what it got; an
 * apiVersion that parses to the same group version ("/v1") passes and is written in its usual form.
 */
function checkConfig(config: KubeObject, definition: ResourceDefinition): void {
  const apiVersion = typeof config.apiVersion === 'string' ? config.apiVersion : '';
  const kind = typeof config.kind === 'string' ? config.kind : '';
  const { group, version } = parseGroupVersion(apiVersion);
  if (group !== definition.group || version !== definition.version || kind !== definition.kind) {
    throw badRequest(`invalid object type: ${groupVersionKindString(apiVersion, kind)}`);
  }
  config.apiVersion = groupVersion(definition);
  if (isPlainObject(config.metadata) && config.metadata.managedFields !== undefined && config.metadata.managedFields !== null) {
    throw badRequest('metadata.managedFields must be nil');
  }
}

function describe(definition: ResourceDefinition, namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}; ${definition.group}/${definition.version}, Kind=${definition.kind}`;
}

/**
 * The PatchEngine form: applies the intent to the stored object (a copy) and returns the object to
 * write, with managedFields. `existing` undefined means the object is being created.
 */
export function applyEngine(options: ApplyOptions) {
  return (existing: KubeObject | undefined, patch: Uint8Array | KubeObject, definition: ResourceDefinition): KubeObject => {
    const config = patch instanceof Uint8Array ? decodeApplyPatch(patch) : patch;
    checkConfig(config, definition);
    const meta = existing ? metaOf(existing) : isPlainObject(config.metadata) ? (config.metadata as { name?: string; namespace?: string }) : {};
    const where = describe(definition, meta.namespace, meta.name ?? '');
    const applied = fieldManagerFor(definition, options.subresource).apply(existing, config, options.fieldManager, options.force, where);
    options.afterApply?.(applied);
    return applied;
  };
}

export interface ApplyResult {
  object: KubeObject;
  /** True when the apply created the object (the response is then 201). */
  created: boolean;
}

/**
 * The whole apply request against a store: patch when the object exists, create it from the
 * intent when it does not (a subresource apply never creates). The intent (YAML or JSON text,
 * or an object decoded from CBOR) is decoded once.
 */
export async function applyToStore(
  store: Store,
  namespace: string | undefined,
  name: string,
  patch: Uint8Array | string | KubeObject,
  options: ApplyOptions & WriteOptions,
): Promise<ApplyResult> {
  validateApplyOptions(options.fieldManager);
  // A configuration already decoded (application/apply-patch+cbor) is taken as it is.
  const config = typeof patch === 'string' || patch instanceof Uint8Array ? decodeApplyPatch(patch) : patch;
  checkConfig(config, store.definition);
  const engine = applyEngine(options);
  const writeOptions: WriteOptions & { subresource?: string } = {
    dryRun: options.dryRun,
    fieldManager: options.fieldManager,
    subresource: options.subresource,
    managedFieldsRecorded: true,
    user: options.user,
  };
  for (let attempt = 0; ; attempt++) {
    try {
      const object = await store.guaranteedUpdate(namespace, name, (existing) => engine(existing, config, store.definition), writeOptions);
      return { object, created: false };
    } catch (e) {
      if (!(isStatusError(e) && e.reason === 'NotFound' && e.details?.name === name) || options.subresource) throw e;
    }
    const created = engine(undefined, config, store.definition);
    const createdName = metaOf(created).name ?? '';
    if (createdName !== name) throw badRequest(`the name of the object (${createdName}) does not match the name on the URL (${name})`);
    try {
      return { object: await store.create(namespace, created, writeOptions), created: true };
    } catch (e) {
      // Someone created it between our read and our create: apply onto theirs.
      if (!(e instanceof StatusError && e.reason === 'AlreadyExists') || attempt > 2) throw e;
    }
  }
}
