// The Go type behind each node of the generated OpenAPI schema, as kube-apiserver's decoders see
// it: structs (named by their component: io.k8s.api.core.v1.PodSpec is v1.PodSpec), maps and
// slices spelled as reflect prints them (map[string]string, []v1.Container, []uint8 for []byte),
// scalars by type and format, and the few types with their own JSON decoding (Quantity, Time,
// MicroTime, IntOrString) or none at all (FieldsV1, RawExtension, preserved unknown fields).

import type { JsonSchema, SchemaIndex } from '../openapi-schema.js';
import { zeroKindOf, type ZeroKind } from './zero-values.js';

export type GoKind =
  | 'struct'
  | 'map'
  | 'slice'
  | 'bytes'
  | 'string'
  | 'bool'
  | 'int32'
  | 'int64'
  | 'float64'
  | 'quantity'
  | 'time'
  | 'microtime'
  | 'intorstring'
  | 'any';

export interface GoType {
  kind: GoKind;
  /** reflect.Type.String(): `v1.PodSpec`, `map[string][]uint8`, `int32`. */
  name: string;
  /** A struct's own name (reflect.Type.Name()), which Go's errors put before the field path. */
  structName?: string;
  /** A struct's fields by JSON name. */
  fields?: Record<string, JsonSchema>;
  /** The same as a Map: a lookup that finds no member of Object.prototype, and a quick one. */
  fieldMap?: ReadonlyMap<string, JsonSchema>;
  /** A map's value or a slice's element. */
  elem?: JsonSchema;
  /** A struct's fields without omitempty (the schema's required ones): a null leaves them at their zero value. */
  required?: ReadonlySet<string>;
  /** What a null decoded into this type encodes to, when not null again (see zero-values.ts). */
  zero?: ZeroKind;
}

const COMPONENT_KINDS: Record<string, GoKind> = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': 'quantity',
  'io.k8s.apimachinery.pkg.apis.meta.v1.Time': 'time',
  'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime': 'microtime',
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': 'intorstring',
  'io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1': 'any',
  'io.k8s.apimachinery.pkg.runtime.RawExtension': 'any',
};

/** `io.k8s.api.core.v1.PodSpec` -> `v1.PodSpec`: the package's last element and the type. */
function goNameOf(component: string): string {
  const parts = component.split('.');
  return parts.slice(-2).join('.');
}

export class GoTypes {
  private readonly cache = new WeakMap<JsonSchema, GoType>();

  constructor(private readonly index: SchemaIndex) {}

  of(schema: JsonSchema): GoType {
    let type = this.cache.get(schema);
    if (!type) {
      type = this.compute(schema);
      type.zero = zeroKindOf(this.index.resolve(schema), this.index);
      this.cache.set(schema, type);
    }
    return type;
  }

  private compute(raw: JsonSchema): GoType {
    // Follow references (and kube-openapi's allOf wrapping of one), remembering the last name.
    let schema = raw;
    let component: string | undefined;
    for (let depth = 0; depth < 32; depth++) {
      if (schema.$ref) {
        component = schema.$ref.slice(schema.$ref.lastIndexOf('/') + 1);
        schema = this.index.component(component) ?? {};
      } else if (!schema.properties && !schema.items && !schema.additionalProperties && schema.allOf?.length === 1) {
        schema = schema.allOf[0];
      } else break;
    }
    const special = component ? COMPONENT_KINDS[component] : undefined;
    if (special) return { kind: special, name: goNameOf(component!) };
    if (schema['x-kubernetes-preserve-unknown-fields']) return { kind: 'any', name: 'interface {}' };
    const format = (schema as { format?: string }).format;
    if (format === 'int-or-string') return { kind: 'intorstring', name: 'intstr.IntOrString' };
    if (format === 'date-time') return { kind: 'time', name: 'v1.Time' };
    if (schema.properties) {
      const name = component ? goNameOf(component) : 'struct';
      return { kind: 'struct', name, structName: name.slice(name.indexOf('.') + 1), fields: schema.properties, fieldMap: new Map(Object.entries(schema.properties)), required: new Set(schema.required ?? []) };
    }
    if (schema.type === 'array' && schema.items) return { kind: 'slice', name: `[]${this.of(schema.items).name}`, elem: schema.items };
    if (schema.type === 'object' && typeof schema.additionalProperties === 'object') {
      return { kind: 'map', name: `map[string]${this.of(schema.additionalProperties).name}`, elem: schema.additionalProperties };
    }
    switch (schema.type) {
      case 'string':
        return format === 'byte' ? { kind: 'bytes', name: '[]uint8' } : { kind: 'string', name: 'string' };
      case 'boolean':
        return { kind: 'bool', name: 'bool' };
      case 'integer':
        return format === 'int32' ? { kind: 'int32', name: 'int32' } : { kind: 'int64', name: 'int64' };
      case 'number':
        return { kind: 'float64', name: 'float64' };
      default:
        // An object with no declared shape (or no type at all) takes anything, as interface{} does.
        return { kind: 'any', name: 'interface {}' };
    }
  }
}

/** The JSON kind of a decoded value, in Go's words ("number", "bool", ...); null is "null". */
export function jsonKind(value: unknown): 'string' | 'number' | 'bool' | 'object' | 'array' | 'null' {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
    case 'bigint':
      return 'number';
    case 'boolean':
      return 'bool';
    default:
      return 'object';
  }
}

/** The text a JSON number literal most likely had (the parsed value is all that is left of it). */
export function numberLiteral(value: number | bigint): string {
  if (typeof value === 'bigint') return value.toString();
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return BigInt(value).toString();
  return String(value);
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * Whether strconv.ParseInt (ParseUint for uint8) accepts the number for an int of the kind:
 * integral and in range. A literal must be plain decimal digits ("1.0" and "1e3" are refused).
 */
export function fitsInt(value: number | bigint | string, kind: 'int32' | 'int64' | 'uint8'): boolean {
  if (typeof value === 'string' && !/^-?[0-9]+$/.test(value)) return false;
  if (typeof value === 'number' && !Number.isInteger(value)) return false;
  const n = BigInt(value);
  if (kind === 'uint8') return n >= 0n && n <= 255n;
  if (kind === 'int32') return n >= BigInt(INT32_MIN) && n <= BigInt(INT32_MAX);
  return n >= INT64_MIN && n <= INT64_MAX;
}
