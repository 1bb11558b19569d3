// Decoded request bodies are plain JSON values whose shape is not yet trusted: rules written by
// hand read them through these accessors, which turn a missing or wrongly typed value into the
// empty value of the expected type, as Go's decoder leaves a zero value. They live in the
// validation layer, the lowest that reads objects, so validation, registry and api can share them.

export type JsonObject = Record<string, unknown>;

export function isPlainObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value when it is a plain object, else an empty object. */
export function asObject(v: unknown): JsonObject {
  return isPlainObject(v) ? v : {};
}

/** The value when it is an array, else an empty array. */
export function asList(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/**
 * An array's items, each through asObject. Every item keeps its index (a null or scalar item
 * becomes {} rather than being dropped), so field paths built from the index, like
 * spec.volumes[3], name the item the client sent.
 */
export function asObjectList(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.map(asObject) : [];
}

/** The value when it is a string, else the empty string. */
export function asString(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** Whether a field is set: neither absent nor null, as a Go pointer or slice that decoding left non-nil. */
export function isSet(v: unknown): boolean {
  return v !== undefined && v !== null;
}
