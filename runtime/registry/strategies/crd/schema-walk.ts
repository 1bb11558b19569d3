// Walking the schemas of a CRD as apiextensions' validation helpers do (SchemaHas): every
// subschema a JSONSchemaProps holds, through items, allOf, anyOf, oneOf, not, properties,
// additionalProperties, patternProperties, additionalItems, definitions and dependencies.

import { asList, isPlainObject } from '../../../machinery/object.js';
import type { JsonObject } from '../../../machinery/json-values.js';

/** The openAPIV3Schema of a version's (or the lifted) `schema`, when one is set. */
export function schemaOf(validation: unknown): JsonObject | undefined {
  const schema = isPlainObject(validation) ? validation.openAPIV3Schema : undefined;
  return isPlainObject(schema) ? schema : undefined;
}

function children(s: JsonObject): JsonObject[] {
  const out: JsonObject[] = [];
  const one = (v: unknown): void => {
    if (isPlainObject(v)) out.push(v);
  };
  const many = (v: unknown): void => asList(v).forEach(one);
  const values = (v: unknown): void => {
    if (isPlainObject(v)) Object.values(v).forEach(one);
  };
  if (Array.isArray(s.items)) many(s.items);
  else one(s.items);
  many(s.allOf);
  many(s.anyOf);
  many(s.oneOf);
  one(s.not);
  values(s.properties);
  one(s.additionalProperties);
  values(s.patternProperties);
  one(s.additionalItems);
  values(s.definitions);
  values(s.dependencies);
  return out;
}

/** Whether the schema or any schema below it meets `pred`. */
export function schemaHas(schema: JsonObject, pred: (s: JsonObject) => boolean): boolean {
  const pending = [schema];
  while (pending.length > 0) {
    const s = pending.pop() as JsonObject;
    if (pred(s)) return true;
    pending.push(...children(s));
  }
  return false;
}
