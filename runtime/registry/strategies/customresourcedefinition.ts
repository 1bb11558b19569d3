// CustomResourceDefinition (apiextensions.k8s.io/v1), as apiextensions-apiserver's
// customresourcedefinition strategy and REST store handle it:
// - decoding defaults (SetDefaults_*): singular and listKind from the kind, storedVersions from
//   the storage version; the spec states the plain ones (conversion None, service port 443);
// - create starts with an empty status (storedVersions the storage version) at generation 1;
//   an update keeps the stored status, adds a new storage version to storedVersions and bumps
//   generation on a spec change; the status endpoint keeps the stored spec;
// - the first delete marks the definition (deletionTimestamp, the cleanup finalizer, condition
//   Terminating) instead of removing it: the custom resources go first;
// - ValidateCustomResourceDefinition and its update and status variants (crd/validation.ts),
//   with the schema's own rules from openapi-schema and its CEL rules from kube-cel.
// Neither endpoint takes a write without metadata.resourceVersion (AllowUnconditionalUpdate false).

import type { ResourceDefinition } from '../definition.js';
import { asObject, asObjectList, asString, deepClone, deepEqual, metaOf, nowRFC3339, type KubeObject } from '../../machinery/object.js';
import { defaultStrategy, statusStrategy, type ResourceStrategies, type Strategy } from '../strategy.js';
import { crdCauses, crdStatusUpdateCauses, crdUpdateCauses, withNameCauses, type SchemaChecks } from './crd/validation.js';
import { schemaCauses, type DefaultRules } from '../../validation/openapi-schema/index.js';
import { compileRules } from '../../validation/kube-cel/index.js';
import { setCondition } from './crd/conditions.js';

/** The finalizer the definition's cleanup runs under: its custom resources are deleted first. */
export const CUSTOM_RESOURCE_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

/** The name of the version marked `storage`, if any. */
function storageVersionOf(obj: KubeObject): string | undefined {
  const version = asObjectList(asObject(obj.spec).versions).find((v) => v.storage === true);
  return version ? asString(version.name) : undefined;
}

/** SetDefaults_CustomResourceDefinitionSpec's computed names. */
function defaultNames(obj: KubeObject): void {
  const names = asObject(asObject(obj.spec).names);
  if (!asObject(obj.spec).names) return;
  const kind = asString(names.kind);
  if (!asString(names.singular)) names.singular = kind.toLowerCase();
  if (!asString(names.listKind) && kind) names.listKind = `${kind}List`;
}

/** Adds the storage version to status.storedVersions unless it is listed. */
function recordStorageVersion(obj: KubeObject): void {
  const storage = storageVersionOf(obj);
  if (storage === undefined) return;
  const status = asObject(obj.status);
  const stored = Array.isArray(status.storedVersions) ? (status.storedVersions as unknown[]) : [];
  if (!stored.includes(storage)) status.storedVersions = [...stored, storage];
  obj.status = status;
}

/**
 * A default must also meet the x-kubernetes-validations of its schema (kube's ValidateDefaults
 * runs the CEL validator over it): the node's rules, reported below the default's path. Their
 * compile errors are the node's own, reported once by the schema's compileRules.
 */
const defaultRules: DefaultRules = (schema, value, fldPath) => {
  const { rules } = compileRules(schema, fldPath);
  if (rules.empty) return [];
  return rules.validate(value as Record<string, unknown>).map((c) => {
    const rel = c.field === undefined || c.field === '' || c.field === '<nil>' ? '' : c.field;
    return { ...c, field: rel === '' ? fldPath : rel.startsWith('[') ? `${fldPath}${rel}` : `${fldPath}.${rel}` };
  });
};

/**
 * A version's openAPIV3Schema: the structural and OpenAPI rules (crd-schema), then, on a schema
 * they pass, its x-kubernetes-validations compiled and costed (crd-cel), as kube builds the CEL
 * context only for a valid structural schema.
 */
const schemaChecks: SchemaChecks = (schema, fldPath, { statusEnabled, suppressPerExpressionCost }) => {
  const causes = schemaCauses(schema, fldPath, { statusEnabled, requireStructural: true, defaultRules });
  return causes.length > 0 ? causes : compileRules(schema, fldPath, { suppressPerExpressionCost }).causes;
};

export function customResourceDefinitionStrategies(def: ResourceDefinition): ResourceStrategies {
  const base = defaultStrategy(def);
  const applyDefaults = (obj: KubeObject): void => {
    def.validator.applyDefaults(obj);
    defaultNames(obj);
    // SetDefaults_CustomResourceDefinition fills storedVersions only when it is empty.
    const status = asObject(obj.status);
    if (!Array.isArray(status.storedVersions) || status.storedVersions.length === 0) {
      const storage = storageVersionOf(obj);
      if (storage !== undefined) obj.status = { ...status, storedVersions: [storage] };
    }
  };
  const main: Strategy = {
    ...base,
    applyDefaults,
    prepareForCreate(obj) {
      applyDefaults(obj);
      obj.status = {};
      recordStorageVersion(obj);
      def.validator.applyDefaults(obj);
      metaOf(obj).generation = 1;
    },
    validate: (obj) => withNameCauses(def.validator.validate(obj), obj, () => crdCauses(obj, schemaChecks)),
    prepareForUpdate(obj, old) {
      applyDefaults(obj);
      obj.status = deepClone(old.status ?? {});
      if (!deepEqual(obj.spec, old.spec)) metaOf(obj).generation = (metaOf(old).generation ?? 0) + 1;
      recordStorageVersion(obj);
    },
    validateUpdate: (obj, old) => withNameCauses(def.validator.validateUpdate(obj, old), obj, () => crdUpdateCauses(obj, old, schemaChecks)),
    allowUnconditionalUpdate: () => false,
  };
  const status = statusStrategy(def, main);
  return {
    main,
    subresources: {
      status: {
        ...status,
        prepareForUpdate(obj, old) {
          applyDefaults(obj);
          // kube resets the status write's metadata from itself, so metadata changes are kept.
          obj.spec = deepClone(old.spec);
        },
        validateUpdate: (obj, old) => [...def.validator.validateUpdate(obj, old), ...crdStatusUpdateCauses(obj)],
      },
    },
    deletesWithoutGracePeriod: true,
    beforeDelete(existing) {
      if (metaOf(existing).deletionTimestamp) return { action: 'delete' };
      const marked = deepClone(existing);
      const meta = metaOf(marked);
      meta.deletionTimestamp = nowRFC3339();
      const finalizers = meta.finalizers ?? [];
      if (!finalizers.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) meta.finalizers = [...finalizers, CUSTOM_RESOURCE_CLEANUP_FINALIZER];
      setCondition(marked, {
        type: 'Terminating',
        status: 'True',
        reason: 'InstanceDeletionPending',
        message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
      });
      // kube's REST Delete marks it with an update of its own, whatever the propagation policy.
      return { action: 'update', obj: marked, ownFinalizers: true };
    },
  };
}
