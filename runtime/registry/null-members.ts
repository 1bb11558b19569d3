// kube-apiserver decodes request bodies (and the documents patches produce) into Go structs, and
// a JSON null leaves a struct member at its zero value: a nil pointer, map, slice or interface,
// an empty string, 0, false, an empty struct. Encoding then omits the optional (omitempty)
// members, so `{"data": null}` is stored and returned as if `data` had never been sent, and the
// writer's managedFields do not list it. Members the schema marks required are the ones without
// omitempty (omit-empty.ts reads the schema the same way): those keep a zero value instead, which
// for maps and lists is null itself. A null map value or list item is decoded the same way: it
// becomes its element type's zero value (a label set to null is stored as ""), except where that
// type is itself a map, list or pointer-like type, whose nil encodes as null again.

import type { JsonSchema, SchemaIndex } from '../machinery/openapi-schema.js';
import { forEachStructMember } from './struct-members.js';
import { zeroKindOf, zeroOf } from '../machinery/go-decode/zero-values.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Removes (or zeroes, when required) null-valued struct members of `obj` in place, at every depth. */
export function dropNullMembers(obj: Record<string, unknown>, schema: JsonSchema, index: SchemaIndex): void {
  // Nearly every body has no null at all: a plain scan spares the two schema walks.
  if (!holdsNull(obj)) return;
  zeroNullElements(obj, schema, index);
  forEachStructMember(obj, schema, index, (m) => {
    if (m.value !== null) return;
    if (!m.required) delete m.holder[m.key];
    else {
      const zero = zeroValue(m.schema, index);
      if (zero !== undefined) m.holder[m.key] = zero;
    }
  });
}

const zeroValue = (schema: JsonSchema, index: SchemaIndex): unknown => zeroOf(zeroKindOf(schema, index));

/** Whether a null is anywhere in the value, walked with an explicit stack (JSON may nest 10,000 levels). */
function holdsNull(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (v === null) return true;
    if (Array.isArray(v)) for (const item of v) pending.push(item);
    else if (isObject(v)) for (const key in v) pending.push(v[key]);
  }
  return false;
}

/** Null map values and list items take their element type's zero value, in place, at every depth. */
function zeroNullElements(value: unknown, schema: JsonSchema, index: SchemaIndex): void {
  const resolved = index.resolve(schema);
  if (resolved['x-kubernetes-preserve-unknown-fields']) return;
  const element = Array.isArray(value) ? resolved.items : isObject(value) && !resolved.properties && isObject(resolved.additionalProperties) ? resolved.additionalProperties : undefined;
  if (Array.isArray(value) || (isObject(value) && element)) {
    if (!element) return;
    const holder = value as Record<string, unknown>;
    for (const key of Object.keys(holder)) {
      if (holder[key] === null) {
        const zero = zeroValue(index.resolve(element), index);
        if (zero !== undefined) holder[key] = zero;
      } else zeroNullElements(holder[key], element, index);
    }
    return;
  }
  if (isObject(value) && resolved.properties) {
    for (const [key, child] of Object.entries(value)) {
      const prop = resolved.properties[key];
      if (prop && child !== null) zeroNullElements(child, prop, index);
    }
  }
}
