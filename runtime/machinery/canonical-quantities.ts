// kube-apiserver decodes every resource.Quantity and writes it back in canonical form
// (Quantity.String(): "0.5" -> "500m", "1024Mi" -> "1Gi", a JSON number -> its string), so what a
// client reads back is never the text it sent. Walks an object by its OpenAPI schema and rewrites
// each quantity in place; a value that does not parse is left for validation to report.

import { canonicalQuantity } from './quantity.js';
import { isPlainObject } from './object.js';
import { getMember } from './own-member.js';
import type { JsonSchema, SchemaIndex } from './openapi-schema.js';

export const QUANTITY_REF = 'io.k8s.apimachinery.pkg.api.resource.Quantity';

const QUANTITY_REF_SUFFIX = `/${QUANTITY_REF}`;
/** Answers per schema object, which never changes: the walk asks for every member it meets. */
const quantitySchemas = new WeakMap<JsonSchema, boolean>();

function isQuantitySchema(schema: JsonSchema): boolean {
  let known = quantitySchemas.get(schema);
  if (known === undefined) {
    const ref = schema.$ref ?? (schema.allOf?.length === 1 ? schema.allOf[0]?.$ref : undefined);
    known = ref !== undefined && ref.endsWith(QUANTITY_REF_SUFFIX);
    quantitySchemas.set(schema, known);
  }
  return known;
}

function canonical(value: unknown): unknown {
  if (typeof value === 'number' && Number.isFinite(value)) return canonicalQuantity(String(value));
  return typeof value === 'string' ? canonicalQuantity(value) : value;
}

/** Rewrites, in place, every quantity below `obj` to kube-apiserver's canonical form. */
export function canonicalizeQuantities(obj: Record<string, unknown>, schema: JsonSchema, index: SchemaIndex): void {
  walk(obj, schema, index, 0);
}

/** Per resolved schema: whether a quantity can be found below it (most kinds, ConfigMap among them, have none). */
const reachesQuantity = new WeakMap<JsonSchema, boolean>();

function holdsQuantities(schema: JsonSchema, index: SchemaIndex): boolean {
  let known = reachesQuantity.get(schema);
  if (known === undefined) {
    known = searchQuantities(schema, index, new Set());
    reachesQuantity.set(schema, known);
  }
  return known;
}

/** Depth-first over the schemas below `schema` (each once: schemas may refer back to themselves). */
function searchQuantities(schema: JsonSchema, index: SchemaIndex, seen: Set<JsonSchema>): boolean {
  if (seen.has(schema)) return false;
  seen.add(schema);
  const below = [...Object.values(schema.properties ?? {}), ...(schema.items ? [schema.items] : []), ...(isPlainObject(schema.additionalProperties) ? [schema.additionalProperties] : [])];
  return below.some((child) => isQuantitySchema(child) || searchQuantities(index.resolve(child), index, seen));
}

function walk(value: unknown, raw: JsonSchema, index: SchemaIndex, depth: number): void {
  if (depth > 64) return;
  // Quantities are rewritten by their holder: only lists and objects are walked into.
  if (typeof value !== 'object' || value === null) return;
  const schema = index.resolve(raw);
  if (schema['x-kubernetes-preserve-unknown-fields'] || !holdsQuantities(schema, index)) return;
  if (Array.isArray(value)) {
    if (!schema.items) return;
    if (isQuantitySchema(schema.items)) value.forEach((v, i) => (value[i] = canonical(v)));
    else for (const item of value) walk(item, schema.items, index, depth + 1);
    return;
  }
  if (!isPlainObject(value)) return;
  if (schema.properties) {
    for (const [key, child] of Object.entries(value)) {
      const prop = getMember(schema.properties, key) as JsonSchema | undefined;
      if (!prop) continue;
      if (isQuantitySchema(prop)) value[key] = canonical(child);
      else walk(child, prop, index, depth + 1);
    }
  } else if (isPlainObject(schema.additionalProperties)) {
    const of = schema.additionalProperties;
    for (const [key, child] of Object.entries(value)) {
      if (isQuantitySchema(of)) value[key] = canonical(child);
      else walk(child, of, index, depth + 1);
    }
  }
}
