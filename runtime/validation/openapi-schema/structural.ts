// One openAPIV3Schema (plain JSON, as the CRD holds it) read once into a tree of typed nodes, so
// validation, defaulting and pruning of each request walk plain fields instead of re-reading JSON.
// Property names live in Maps: a property called `__proto__` or `constructor` is just a name.

import { compileGoRegexp, type GoRegexp } from './go-regexp.js';

/**
 * How deep schemas may nest (each of properties, items, additionalProperties, allOf, ... is one
 * level). kube-apiserver's JSON decoder stops at 10000 levels of JSON, about 5000 levels of schema;
 * real CRDs stay under 30. Below this bound every walk here is plain recursion that cannot exhaust
 * the stack.
 */
export const MAX_SCHEMA_DEPTH = 500;

export interface SchemaNode {
  /** '' when the schema names no type. */
  readonly type: string;
  readonly nullable: boolean;
  readonly format: string;
  readonly intOrString: boolean;
  readonly preserveUnknownFields: boolean;
  readonly embeddedResource: boolean;
  readonly listType?: string;
  readonly listMapKeys?: readonly string[];
  readonly mapType?: string;
  /** Present when the schema has a (non-null) default. */
  readonly default?: { readonly value: unknown };
  readonly enum?: readonly unknown[];
  readonly maximum?: number;
  readonly exclusiveMaximum: boolean;
  readonly minimum?: number;
  readonly exclusiveMinimum: boolean;
  readonly multipleOf?: number;
  readonly maxLength?: number;
  readonly minLength?: number;
  readonly pattern?: string;
  /** The pattern compiled for Go's RE2 semantics; undefined when there is none or it does not compile. */
  readonly regexp?: GoRegexp;
  readonly maxItems?: number;
  readonly minItems?: number;
  readonly maxProperties?: number;
  readonly minProperties?: number;
  readonly required?: readonly string[];
  readonly properties?: ReadonlyMap<string, SchemaNode>;
  /** A schema, or true/false as written. */
  readonly additionalProperties?: SchemaNode | boolean;
  readonly items?: SchemaNode;
  readonly allOf?: readonly SchemaNode[];
  readonly anyOf?: readonly SchemaNode[];
  readonly oneOf?: readonly SchemaNode[];
  readonly not?: SchemaNode;
  /** The types the value may have, as kube-openapi checks them (int-or-string gives integer and string). */
  readonly types: readonly string[];
  /** True when the value check has anything to do beyond type, so the hot walk can skip the rest. */
  readonly hasValueChecks: boolean;
}

export type JSONValue = unknown;
type Raw = Record<string, unknown>;

const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

export class SchemaTooDeepError extends Error {
  constructor(readonly path: string) {
    super(`schema nested deeper than ${MAX_SCHEMA_DEPTH} levels`);
  }
}

/** Reads a schema into nodes. Throws SchemaTooDeepError past MAX_SCHEMA_DEPTH. */
export function toNode(raw: unknown, depth = 0, path = ''): SchemaNode {
  if (depth > MAX_SCHEMA_DEPTH) throw new SchemaTooDeepError(path);
  const s = isObject(raw) ? raw : {};
  const next = depth + 1;
  const type = str(s.type);
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  let properties: Map<string, SchemaNode> | undefined;
  if (isObject(s.properties)) {
    properties = new Map();
    for (const key of Object.keys(s.properties)) properties.set(key, toNode(s.properties[key], next, `${path}.properties[${key}]`));
  }
  let additionalProperties: SchemaNode | boolean | undefined;
  if (typeof s.additionalProperties === 'boolean') additionalProperties = s.additionalProperties;
  else if (isObject(s.additionalProperties)) additionalProperties = toNode(s.additionalProperties, next, `${path}.additionalProperties`);
  const list = (key: string): SchemaNode[] | undefined => {
    const v = s[key];
    return Array.isArray(v) && v.length > 0 ? v.map((x, i) => toNode(x, next, `${path}.${key}[${i}]`)) : undefined;
  };
  const pattern = typeof s.pattern === 'string' && s.pattern !== '' ? s.pattern : undefined;
  const node: SchemaNode = {
    type,
    nullable: s.nullable === true,
    format: str(s.format),
    intOrString,
    preserveUnknownFields: s['x-kubernetes-preserve-unknown-fields'] === true,
    embeddedResource: s['x-kubernetes-embedded-resource'] === true,
    listType: typeof s['x-kubernetes-list-type'] === 'string' ? s['x-kubernetes-list-type'] : undefined,
    listMapKeys: Array.isArray(s['x-kubernetes-list-map-keys']) ? s['x-kubernetes-list-map-keys'].filter((k): k is string => typeof k === 'string') : undefined,
    mapType: typeof s['x-kubernetes-map-type'] === 'string' ? s['x-kubernetes-map-type'] : undefined,
    // A null default is no default: the CRD's JSON field decodes null as unset.
    default: s.default !== undefined && s.default !== null ? { value: s.default } : undefined,
    enum: Array.isArray(s.enum) && s.enum.length > 0 ? s.enum : undefined,
    maximum: num(s.maximum),
    exclusiveMaximum: s.exclusiveMaximum === true,
    minimum: num(s.minimum),
    exclusiveMinimum: s.exclusiveMinimum === true,
    multipleOf: num(s.multipleOf),
    maxLength: num(s.maxLength),
    minLength: num(s.minLength),
    pattern,
    regexp: pattern === undefined ? undefined : compileOrUndefined(pattern),
    maxItems: num(s.maxItems),
    minItems: num(s.minItems),
    maxProperties: num(s.maxProperties),
    minProperties: num(s.minProperties),
    required: Array.isArray(s.required) && s.required.length > 0 ? s.required.filter((k): k is string => typeof k === 'string') : undefined,
    properties,
    additionalProperties,
    items: isObject(s.items) ? toNode(s.items, next, `${path}.items`) : undefined,
    allOf: list('allOf'),
    anyOf: list('anyOf'),
    oneOf: list('oneOf'),
    not: isObject(s.not) ? toNode(s.not, next, `${path}.not`) : undefined,
    types: intOrString ? ['integer', 'string'] : type ? [type] : [],
    hasValueChecks: false,
  };
  (node as { hasValueChecks: boolean }).hasValueChecks =
    node.enum !== undefined ||
    node.format !== '' ||
    node.pattern !== undefined ||
    node.maxLength !== undefined ||
    node.minLength !== undefined ||
    node.maximum !== undefined ||
    node.minimum !== undefined ||
    node.multipleOf !== undefined ||
    node.allOf !== undefined ||
    node.anyOf !== undefined ||
    node.oneOf !== undefined ||
    node.not !== undefined;
  return node;
}

function compileOrUndefined(pattern: string): GoRegexp | undefined {
  try {
    return compileGoRegexp(pattern);
  } catch {
    return undefined;
  }
}

/** The schema a property's value is checked against: its own, else additionalProperties' schema. */
export function propertySchema(node: SchemaNode, key: string): SchemaNode | undefined {
  const own = node.properties?.get(key);
  if (own) return own;
  return typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
}
