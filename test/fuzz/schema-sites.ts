// Every place of a kind's schema a value can stand, read from the generated OpenAPI components, so
// that "a wrong type at every field" walks the real schema rather than a hand-kept list.
import { generatedSchemaIndex, type JsonSchema } from '../../runtime/machinery/openapi-schema.js';

export type SiteType = 'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'map' | 'quantity' | 'int-or-string' | 'byte' | 'time' | 'any';

export interface Site {
  /** Object keys and array indices from the root of the object. */
  path: Array<string | number>;
  type: SiteType;
}

/** A key that map-typed fields get in generated paths; valid as a label, data key and the like. */
export const MAP_KEY = 'fuzz.example.com/k';

const MAX_DEPTH = 9;

function refName(schema: JsonSchema): string | undefined {
  const ref = schema.$ref ?? (schema.allOf?.length === 1 ? schema.allOf[0]!.$ref : undefined);
  return ref?.slice(ref.lastIndexOf('/') + 1);
}

function siteType(schema: JsonSchema, resolved: JsonSchema, ref: string | undefined): SiteType {
  const format = (resolved as { format?: string }).format;
  if (ref?.endsWith('resource.Quantity')) return 'quantity';
  if (format === 'int-or-string') return 'int-or-string';
  if (format === 'byte') return 'byte';
  if (format === 'date-time' || ref?.endsWith('meta.v1.Time') || ref?.endsWith('meta.v1.MicroTime')) return 'time';
  if (resolved.type === 'object' && !resolved.properties && resolved.additionalProperties) return 'map';
  if (resolved.type === 'array') return 'array';
  if (resolved.properties) return 'object';
  switch (resolved.type) {
    case 'string':
    case 'integer':
    case 'number':
    case 'boolean':
      return resolved.type;
    default:
      return schema.type === 'object' ? 'object' : 'any';
  }
}

/** The sites of the component `openAPIName`, depth-first, each nesting level of lists entered at index 0. */
export function schemaSites(openAPIName: string): Site[] {
  const index = generatedSchemaIndex();
  const root = index.component(openAPIName);
  if (!root) throw new Error(`no schema component ${openAPIName}`);
  const sites: Site[] = [];
  const visit = (schema: JsonSchema, path: Array<string | number>, seen: ReadonlySet<string>): void => {
    const ref = refName(schema);
    if (ref && seen.has(ref)) return;
    const resolved = index.resolve(schema);
    const type = siteType(schema, resolved, ref);
    if (path.length) sites.push({ path, type });
    if (path.length >= MAX_DEPTH) return;
    const inner = ref ? new Set([...seen, ref]) : seen;
    if (resolved.properties) {
      for (const [name, child] of Object.entries(resolved.properties)) visit(child, [...path, name], inner);
    } else if (resolved.items) {
      visit(resolved.items, [...path, 0], inner);
    } else if (typeof resolved.additionalProperties === 'object') {
      visit(resolved.additionalProperties, [...path, MAP_KEY], inner);
    }
  };
  visit(root, [], new Set());
  return sites;
}
