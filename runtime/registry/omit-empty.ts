// kube-apiserver turns every object into Go structs and back, and Go's JSON encoding drops the
// empty maps and lists of optional (omitempty) fields. A patch that removes the last annotation
// therefore leaves no `annotations: {}` behind upstream; kubectl diff and clients comparing objects
// rely on it. Structs are kept even when empty, as Go keeps them.

import type { JsonSchema, SchemaIndex } from './openapi-schema.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Removes, in place, empty maps and lists held by optional fields, at every depth. */
export function omitEmptyCollections(obj: Record<string, unknown>, schema: JsonSchema, index: SchemaIndex): void {
  walk(obj, schema, index);
}

function walk(value: unknown, raw: JsonSchema, index: SchemaIndex): void {
  const schema = index.resolve(raw);
  if (schema['x-kubernetes-preserve-unknown-fields']) return;
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) walk(item, schema.items, index);
    return;
  }
  if (!isObject(value)) return;
  if (schema.properties) {
    const required = new Set(schema.required ?? []);
    for (const [key, child] of Object.entries(value)) {
      const prop = schema.properties[key];
      if (!prop) continue;
      walk(child, prop, index);
      if (!required.has(key) && isEmptyCollection(child, index.resolve(prop))) delete value[key];
    }
  } else if (isObject(schema.additionalProperties)) {
    for (const child of Object.values(value)) walk(child, schema.additionalProperties, index);
  }
}

/** An empty list, or an empty map (a schema with additionalProperties and no properties of its own). */
function isEmptyCollection(value: unknown, schema: JsonSchema): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0 && !schema.properties && isObject(schema.additionalProperties);
}
