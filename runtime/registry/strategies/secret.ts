// Secret: `stringData` is a write-only convenience. kube-apiserver folds it into `data` while
// converting the request (so validation, storage and responses never see it), overriding keys
// that `data` already has. The total size of `data` is capped at MaxSecretSize and `type` never
// changes after creation. The keys each well-known type needs (secret-types.ts) and the rules of
// bootstrap-token Secrets (bootstrap-token.ts) are checked on create and on every update.

import { badRequest, type StatusCause } from '../../errors/status-error.js';
import type { ResourceDefinition } from '../definition.js';
import { asObject, asString, isPlainObject, type KubeObject } from '../../machinery/object.js';
import { defaultStrategies, type ResourceStrategies, type Strategy } from '../strategy.js';
import { bootstrapTokenCauses } from './bootstrap-token.js';
import { secretTypeCauses } from './secret-types.js';
import { coveredByDeclarative } from '../declarative.js';
import { setMember } from '../../machinery/own-member.js';

/** api.MaxSecretSize: 1 MiB of decoded data across all keys. */
export const MAX_SECRET_SIZE = 1024 * 1024;

/** Moves stringData into data as base64 of the UTF-8 bytes; stringData is never kept. */
export function mergeStringData(obj: KubeObject): void {
  const stringData = obj.stringData;
  delete obj.stringData;
  if (stringData === undefined || stringData === null) return;
  if (!isPlainObject(stringData)) {
    throw badRequest(`Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal ${typeof stringData} into Go struct field Secret.stringData of type map[string]string`);
  }
  const data = asObject(obj.data);
  for (const [key, value] of Object.entries(stringData)) {
    if (typeof value !== 'string') {
      throw badRequest(`Secret in version "v1" cannot be handled as a Secret: json: cannot unmarshal ${typeof value} into Go struct field Secret.stringData of type string`);
    }
    setMember(data, key, Buffer.from(value, 'utf8').toString('base64'));
  }
  obj.data = data;
}

function sizeCauses(obj: KubeObject): StatusCause[] {
  if (!isPlainObject(obj.data)) return [];
  let total = 0;
  for (const value of Object.values(obj.data)) if (typeof value === 'string') total += Buffer.from(value, 'base64').length;
  if (total <= MAX_SECRET_SIZE) return [];
  return [{ reason: 'FieldValueTooLong', message: `Too long: may not be more than ${MAX_SECRET_SIZE} bytes`, field: 'data' }];
}

/** Also declared in the spec, as declarative validation (registry/declarative.ts). */
function typeCauses(obj: KubeObject, old: KubeObject): StatusCause[] {
  if (obj.type === old.type) return [];
  return [coveredByDeclarative({ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(obj.type ?? '')}: field is immutable`, field: 'type' })];
}

/** Drops causes the generated validator already reported, so a rule stated twice is reported once. */
function merged(...lists: StatusCause[][]): StatusCause[] {
  const seen = new Set<string>();
  return lists.flat().filter((c) => {
    const id = `${c.field}\u0000${c.message}`;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

export function secretStrategies(def: ResourceDefinition): ResourceStrategies {
  const base = defaultStrategies(def);
  const main: Strategy = {
    ...base.main,
    prepareForCreate(obj) {
      mergeStringData(obj);
      base.main.prepareForCreate(obj);
    },
    validate: (obj) => merged(base.main.validate(obj), sizeCauses(obj), secretTypeCauses(obj), bootstrapTokenCauses(obj)),
    prepareForUpdate(obj, old) {
      mergeStringData(obj);
      base.main.prepareForUpdate(obj, old);
    },
    validateUpdate(obj, old) {
      // ValidateSecretUpdate checks type right after the metadata update, before the rules of
      // an immutable Secret and the full check.
      const causes = base.main.validateUpdate(obj, old);
      const metaUpdate = causes.findIndex((c) => !c.field?.startsWith('metadata'));
      const at = metaUpdate < 0 ? causes.length : metaUpdate;
      return merged(causes.slice(0, at), typeCauses(obj, old), causes.slice(at), sizeCauses(obj), secretTypeCauses(obj), bootstrapTokenCauses(obj));
    },
    selectableFields: (obj) => ({ ...base.main.selectableFields(obj), type: asString(obj.type) }),
  };
  return { ...base, main };
}
