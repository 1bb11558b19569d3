// kube-apiserver turns every object into Go structs and back, and Go's JSON encoding drops the
// empty maps and lists of optional (omitempty) fields. A patch that removes the last annotation
// therefore leaves no `annotations: {}` behind upstream; kubectl diff and clients comparing objects
// rely on it. Structs are kept even when empty, as Go keeps them.

import type { JsonSchema, SchemaIndex } from '../machinery/openapi-schema.js';
import { requiredOf } from './struct-members.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Removes, in place, empty maps and lists held by optional fields, at every depth; `kept` names
 * the members (by holder) Go writes without omitempty although OpenAPI does not require them.
 */
export function omitEmptyCollections(obj: Record<string, unknown>, schema: JsonSchema, index: SchemaIndex, kept?: WeakMap<object, Set<string>>): void {
  omitBelow(obj, index.resolve(schema), index, kept);
}

/**
 * The struct members below `value`, children first, as struct-members.ts visits them; only
 * members holding a list or an object can be empty collections or hold any, so every write's
 * scalars (most of its members) are passed over without resolving their schemas.
 */
function omitBelow(value: object, schema: JsonSchema, index: SchemaIndex, kept: WeakMap<object, Set<string>> | undefined): void {
  if (schema['x-kubernetes-preserve-unknown-fields']) return;
  if (Array.isArray(value)) {
    if (!schema.items) return;
    const items = index.resolve(schema.items);
    for (const item of value) if (typeof item === 'object' && item !== null) omitBelow(item, items, index, kept);
    return;
  }
  const holder = value as Record<string, unknown>;
  if (schema.properties) {
    const required = requiredOf(schema);
    for (const key of Object.keys(holder)) {
      const child = holder[key];
      if (typeof child !== 'object' || child === null) continue;
      const prop = schema.properties[key];
      if (!prop) continue;
      const childSchema = index.resolve(prop);
      omitBelow(child, childSchema, index, kept);
      if (!required.has(key) && isEmptyCollection(child, childSchema) && !kept?.get(holder)?.has(key)) delete holder[key];
    }
  } else if (isObject(schema.additionalProperties)) {
    const values = index.resolve(schema.additionalProperties);
    for (const key of Object.keys(holder)) {
      const child = holder[key];
      if (typeof child === 'object' && child !== null) omitBelow(child, values, index, kept);
    }
  }
}

/** An empty list, or an empty map (a schema with additionalProperties and no properties of its own). */
function isEmptyCollection(value: object, schema: JsonSchema): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return Object.keys(value).length === 0 && !schema.properties && isObject(schema.additionalProperties);
}
