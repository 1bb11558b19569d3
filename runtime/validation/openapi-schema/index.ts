// The openAPIV3Schema of a CustomResourceDefinition version: the checks a CRD write runs on it
// (schemaCauses) and the compiled schema every custom resource request runs (compileSchema):
// validation with kube-apiserver's causes, structural defaulting and pruning. Compiled once per
// CRD change; the per-request walks allocate little beyond the causes they report.

import type { StatusCause } from '../../errors/status-error.js';
import { applyDefaultValues, pruneNonNullableNulls } from './defaults.js';
import { validateEmbeddedResources } from './embedded.js';
import { listTypesOf, validateListSetsAndMaps, type ListTypeFact } from './list-types.js';
import { pruneObject } from './prune.js';
import { validateSchema, type DefaultRules } from './schema-causes.js';
import { SchemaTooDeepError, toNode, type SchemaNode } from './structural.js';
import { SchemaValidator } from './validate.js';

export type { ListTypeFact } from './list-types.js';
export type { DefaultRules } from './schema-causes.js';
export { MAX_SCHEMA_DEPTH } from './structural.js';

/** One version's openAPIV3Schema as the CRD holds it (plain JSON). */
export type JSONSchemaProps = Record<string, unknown>;

/**
 * CRD-write checks of a schema, kube's messages, paths below `fldPath` (e.g. `spec.versions[0].schema.openAPIV3Schema`).
 * `defaultRules`, when given, runs the x-kubernetes-validations of a schema node over its default (kube checks
 * defaults against CEL rules too, once they pass the schema); the causes it returns are reported as they are.
 */
export function schemaCauses(
  schema: JSONSchemaProps,
  fldPath: string,
  opts?: { statusEnabled?: boolean; requireStructural?: boolean; defaultRules?: DefaultRules },
): StatusCause[] {
  return validateSchema(schema, fldPath, {
    statusEnabled: opts?.statusEnabled ?? false,
    requireStructural: opts?.requireStructural ?? true,
    defaultRules: opts?.defaultRules,
  });
}

export interface CompiledSchema {
  /** Every schema rule over a whole custom resource (not metadata.name rules: the caller does ObjectMeta), kube's messages and paths from the root (`spec.replicas`). */
  validate(obj: Record<string, unknown>): StatusCause[];
  /**
   * validate() on update: errors of values left as they were stored are dropped (kube's validation
   * ratcheting, CRDValidationRatcheting, on by default in 1.33), so an object stored under an older,
   * looser schema can still be changed elsewhere. Duplicates of list sets and maps and embedded
   * resources are checked in full, as kube checks them on update.
   */
  validateUpdate(obj: Record<string, unknown>, old: Record<string, unknown>): StatusCause[];
  /** Structural defaulting in place (kube defaults on create, update and read from storage). */
  applyDefaults(obj: Record<string, unknown>): void;
  /**
   * Drops fields the schema does not know (unless x-kubernetes-preserve-unknown-fields), in place; returns their paths
   * (`.spec.foo`, sorted as kube sorts them) for fieldValidation warnings/errors. kube's own texts name them without the leading dot
   * (`unknown field "spec.foo"`): unknownFieldPath() gives that form.
   */
  prune(obj: Record<string, unknown>): string[];
  /** Per path (`.spec.ports`, items `[]`, map values `{}`): list type, map keys and map type, for server-side apply. */
  readonly listTypes: ReadonlyMap<string, ListTypeFact>;
}

/** The list types of a schema without compiling the rest (see CompiledSchema.listTypes). */
export function schemaListTypes(schema: JSONSchemaProps): ReadonlyMap<string, ListTypeFact> {
  return listTypesOf(toNode(schema));
}

/** Whether any node of the schema (through properties, items and additionalProperties, where values are walked) has `test`. */
function someNode(root: SchemaNode, test: (n: SchemaNode) => boolean): boolean {
  const stack: SchemaNode[] = [root];
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (test(n)) return true;
    if (n.properties) for (const child of n.properties.values()) stack.push(child);
    if (n.items) stack.push(n.items);
    if (typeof n.additionalProperties === 'object') stack.push(n.additionalProperties);
  }
  return false;
}

/** `.spec.foo` → `spec.foo`, as kube's unknown-field warnings and strict errors print a pruned path. */
export function unknownFieldPath(prunedPath: string): string {
  return prunedPath.startsWith('.') ? prunedPath.slice(1) : prunedPath;
}

/** Compiled once per CRD change, never per request. A schema too deep to compile (schemaCauses refuses it) throws. */
export function compileSchema(schema: JSONSchemaProps): CompiledSchema {
  let root: SchemaNode;
  try {
    root = toNode(schema);
  } catch (err) {
    if (err instanceof SchemaTooDeepError) throw new Error(`openAPIV3Schema cannot be compiled: ${err.message}`);
    throw err;
  }
  const validator = new SchemaValidator('');
  let listTypes: Map<string, ListTypeFact> | undefined;
  // The two extra walks of validate only run for schemas that have something for them to find.
  const hasEmbedded = someNode(root, (n) => n.embeddedResource);
  const hasSetsOrMaps = someNode(root, (n) => n.listType === 'set' || n.listType === 'map');
  const extraChecks = (obj: Record<string, unknown>, out: StatusCause[]): void => {
    if (hasEmbedded) validateEmbeddedResources('', obj, root, out);
    if (hasSetsOrMaps) validateListSetsAndMaps('', root, obj, out);
  };
  return {
    validate(obj) {
      const out: StatusCause[] = [];
      validator.validate(root, obj, '', out);
      extraChecks(obj, out);
      return out;
    },
    validateUpdate(obj, old) {
      const out: StatusCause[] = [];
      validator.validate(root, obj, '', out, { value: old });
      extraChecks(obj, out);
      return out;
    },
    applyDefaults(obj) {
      pruneNonNullableNulls(obj, root);
      applyDefaultValues(obj, root);
    },
    prune(obj) {
      // Sorted, as kube's pruning returns them (and so its warnings list them).
      const pruned = pruneObject(obj, root).sort();
      pruneNonNullableNulls(obj, root);
      return pruned.map((p) => `.${p}`);
    },
    get listTypes() {
      listTypes ??= listTypesOf(root);
      return listTypes;
    },
  };
}
