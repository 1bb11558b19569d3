// One walk over an object and the OpenAPI schema it was decoded by, visiting every struct member
// at every depth (inside lists and map values too), the way Go's JSON codec meets them. The
// decode-side null handling is a visit over this walk; the encode-side omitempty rule
// (omit-empty.ts) walks the same members but looks only at those holding lists and objects.

import type { JsonSchema, SchemaIndex } from '../machinery/openapi-schema.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface StructMember {
  /** The struct holding the member; the visitor may delete or replace `holder[key]`. */
  holder: Record<string, unknown>;
  key: string;
  value: unknown;
  /** The member's schema, references resolved. */
  schema: JsonSchema;
  /** Required members are the ones Go encodes without omitempty. */
  required: boolean;
}

/** Each struct schema's required members, as a set made once (schemas are never changed). */
const requiredSets = new WeakMap<JsonSchema, Set<string>>();

export function requiredOf(schema: JsonSchema): Set<string> {
  let set = requiredSets.get(schema);
  if (!set) requiredSets.set(schema, (set = new Set(schema.required ?? [])));
  return set;
}

/**
 * Calls `visit` for each member the schema declares, children first (so a visitor sees a member
 * after its own members were visited). Unknown members and preserve-unknown-fields subtrees are
 * left alone.
 */
export function forEachStructMember(value: unknown, schema: JsonSchema, index: SchemaIndex, visit: (m: StructMember) => void): void {
  // Only lists and objects hold members.
  if (typeof value !== 'object' || value === null) return;
  const resolved = index.resolve(schema);
  if (resolved['x-kubernetes-preserve-unknown-fields']) return;
  if (Array.isArray(value)) {
    if (resolved.items) for (const item of value) forEachStructMember(item, resolved.items, index, visit);
    return;
  }
  if (!isObject(value)) return;
  if (resolved.properties) {
    const required = requiredOf(resolved);
    for (const [key, child] of Object.entries(value)) {
      const prop = resolved.properties[key];
      if (!prop) continue;
      forEachStructMember(child, prop, index, visit);
      visit({ holder: value, key, value: child, schema: index.resolve(prop), required: required.has(key) });
    }
  } else if (isObject(resolved.additionalProperties)) {
    for (const child of Object.values(value)) forEachStructMember(child, resolved.additionalProperties, index, visit);
  }
}
