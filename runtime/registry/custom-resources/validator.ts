// The ObjectValidator of one served version of a CustomResourceDefinition, in the order of kube's
// customResourceStrategy.Validate: the object's apiVersion and kind (nothing else when they are
// wrong), ObjectMeta as ValidateObjectMetaAccessor checks it (names are DNS subdomains), the
// version's openAPIV3Schema, then its x-kubernetes-validations rules unless the schema found
// the object of the wrong shape (hasBlockingErr). The schema and the rules are compiled once per
// CRD change by the caller (definition.ts), never per request.

import type { StatusCause } from '../../errors/status-error.js';
import * as fe from '../../validation/field-errors.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../validation/object-meta.js';
import { withoutNulls } from '../../validation/object-validator.js';
import { rulesBlockedBy } from '../../validation/kube-cel/index.js';
import type { ObjectValidator } from '../definition.js';

type Obj = Record<string, unknown>;

/** crd-schema's CompiledSchema, as serving uses it. */
export interface SchemaChecks {
  validate(obj: Obj): StatusCause[];
  applyDefaults(obj: Obj): void;
  prune(obj: Obj): string[];
}

/** crd-cel's CompiledRules, as serving uses it. */
export interface RuleChecks {
  validate(obj: Obj, old?: Obj): StatusCause[];
  readonly empty: boolean;
}

export interface CustomResourceValidatorOptions {
  group: string;
  version: string;
  kind: string;
  namespaced: boolean;
  schema?: SchemaChecks;
  rules?: RuleChecks;
}

export interface CustomResourceValidator extends ObjectValidator {
  /** Drops fields the schema does not know, in place; their paths (`.spec.foo`). */
  prune(obj: Obj): string[];
}

/** Whether a decoded JSON value holds a null anywhere, walked with an explicit stack (JSON may nest 10,000 levels). */
function containsNull(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (v === null) return true;
    if (typeof v !== 'object') continue;
    if (Array.isArray(v)) {
      for (const item of v) pending.push(item);
      continue;
    }
    for (const key in v) pending.push((v as Obj)[key]);
  }
  return false;
}

/**
 * The object as the checks read it, nulls dropped (kube decodes them as absent). The checks only
 * read it, and pruning and defaulting have already removed most nulls, so the copy is only made
 * when one is left.
 */
const readable = (obj: Obj): Obj => (containsNull(obj) ? (withoutNulls(obj) as Obj) : obj);

export function customResourceValidator(options: CustomResourceValidatorOptions): CustomResourceValidator {
  const apiVersion = `${options.group}/${options.version}`;
  const metaRules = { namespaced: options.namespaced, nameFormat: 'dns1123Subdomain', kubeFinalizerNames: false };
  const typeMeta = (obj: Obj): StatusCause[] => {
    const causes: StatusCause[] = [];
    if (obj.kind !== options.kind) causes.push(fe.invalid('kind', obj.kind ?? '', `must be ${options.kind}`));
    if (obj.apiVersion !== apiVersion) causes.push(fe.invalid('apiVersion', obj.apiVersion ?? '', `must be ${apiVersion}`));
    return causes;
  };
  const fieldCauses = (obj: Obj): StatusCause[] => options.schema?.validate(obj) ?? [];
  const ruleCauses = (causes: StatusCause[], obj: Obj, old?: Obj): StatusCause[] => {
    const rules = options.rules;
    if (!rules || rules.empty) return causes;
    // Only a wrong type, a missing required field, an unsupported enum value or a length or count
    // beyond its maximum keeps the rules from running; other schema errors are reported beside theirs.
    const blocked = rulesBlockedBy(causes);
    return blocked ? [...causes, blocked] : [...causes, ...rules.validate(obj, old)];
  };
  const validate = (raw: Obj): StatusCause[] => {
    const obj = readable(raw);
    const wrongType = typeMeta(obj);
    if (wrongType.length) return wrongType;
    return ruleCauses([...validateObjectMeta(obj, metaRules), ...fieldCauses(obj)], obj);
  };
  return {
    applyDefaults(obj) {
      options.schema?.applyDefaults(obj);
    },
    // kube names a pruned field without the schema walk's leading dot: `unknown field "spec.foo"`.
    prune: (obj) => (options.schema?.prune(obj) ?? []).map((path) => (path.startsWith('.') ? path.slice(1) : path)),
    validate,
    validateFields: (obj) => fieldCauses(readable(obj)),
    arrangeElementCauses: (_obj, causes) => causes,
    elementOrder: () => undefined,
    validateUpdate(rawObj, rawOld) {
      const obj = readable(rawObj);
      const old = readable(rawOld);
      const wrongType = typeMeta(obj);
      if (wrongType.length) return wrongType;
      return ruleCauses([...validateObjectMetaUpdate(obj, old, 'metadata', false), ...fieldCauses(obj)], obj, old);
    },
  };
}
