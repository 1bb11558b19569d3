// kube-apiserver turns every object into Go structs and back, and Go's JSON encoding drops the
// empty maps and lists of optional (omitempty) fields. A patch that removes the last annotation
// therefore leaves no `annotations: {}` behind upstream; kubectl diff and clients comparing objects
// rely on it. Structs are kept even when empty, as Go keeps them.

import type { JsonSchema, SchemaIndex } from '../machinery/openapi-schema.js';
import { forEachStructMember } from './struct-members.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Removes, in place, empty maps and lists held by optional fields, at every depth; `kept` names
 * the members (by holder) Go writes without omitempty although OpenAPI does not require them.
 */
export function omitEmptyCollections(obj: Record<string, unknown>, schema: JsonSchema, index: SchemaIndex, kept?: WeakMap<object, Set<string>>): void {
  forEachStructMember(obj, schema, index, (m) => {
    if (!m.required && isEmptyCollection(m.value, m.schema) && !kept?.get(m.holder)?.has(m.key)) delete m.holder[m.key];
  });
}

/** An empty list, or an empty map (a schema with additionalProperties and no properties of its own). */
function isEmptyCollection(value: unknown, schema: JsonSchema): boolean {
  if (Array.isArray(value)) return value.length === 0;
  return isObject(value) && Object.keys(value).length === 0 && !schema.properties && isObject(schema.additionalProperties);
}
