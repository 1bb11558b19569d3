// One openAPIV3Schema (plain JSON, as the CRD holds it) read once into a tree of typed nodes, so
// validation, defaulting and pruning of each request walk plain fields instead of re-reading JSON.
// Property names live in Maps: a property called `__proto__` or `constructor` is just a name.

import { formatCheck } from './formats.js';
import { compileGoRegexp, type GoRegexp } from '../re2/index.js';
import { scalarPassOf, type ScalarPass } from './scalar-pass.js';

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
  /** For a plain scalar schema: true when a value certainly passes every check here (see scalar-pass.ts). */
  readonly scalarPass?: ScalarPass;
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

/** Where schemas sit inside a schema: by name (properties, ...), by index (allOf, ...) or alone (not, ...). */
const SCHEMA_KEYS: Record<string, 'named' | 'listed' | 'single'> = {
  properties: 'named',
  definitions: 'named',
  dependencies: 'named',
  patternProperties: 'named',
  allOf: 'listed',
  anyOf: 'listed',
  oneOf: 'listed',
  items: 'listed',
  additionalProperties: 'single',
  additionalItems: 'single',
  not: 'single',
};

/** Calls visit for every schema held directly inside `schema`, with the path segment that leads to it. */
function forEachSubschema(schema: Raw, visit: (sub: unknown, segment: () => string) => void): void {
  for (const key in schema) {
    if (!Object.hasOwn(SCHEMA_KEYS, key)) continue;
    const kind = SCHEMA_KEYS[key];
    const held = schema[key];
    if (kind === 'named' && isObject(held)) for (const k of Object.keys(held)) visit(held[k], () => `.${key}[${k}]`);
    else if (Array.isArray(held)) for (let i = 0; i < held.length; i++) visit(held[i], () => `.${key}[${i}]`);
    else if (isObject(held)) visit(held, () => `.${key}`);
  }
}

/**
 * The path (below `path`) of the first schema nested deeper than MAX_SCHEMA_DEPTH, through any
 * key that holds schemas, or undefined. Walks with a stack, so any depth is safe to ask about;
 * paths are only spelled out for the schemas on the way to a failure.
 */
export function tooDeepAt(raw: unknown, path: string): string | undefined {
  interface Frame {
    schema: unknown;
    depth: number;
    parent?: Frame;
    segment?: () => string;
  }
  const stack: Frame[] = [{ schema: raw, depth: 0 }];
  while (stack.length > 0) {
    const frame = stack.pop()!;
    if (!isObject(frame.schema)) continue;
    if (frame.depth > MAX_SCHEMA_DEPTH) {
      const segments: string[] = [];
      for (let f: Frame | undefined = frame; f?.segment; f = f.parent) segments.push(f.segment());
      return path + segments.reverse().join('');
    }
    forEachSubschema(frame.schema, (sub, segment) => stack.push({ schema: sub, depth: frame.depth + 1, parent: frame, segment }));
  }
  return undefined;
}

function nodeList(v: unknown, depth: number): SchemaNode[] | undefined {
  if (!Array.isArray(v) || v.length === 0) return undefined;
  const out: SchemaNode[] = [];
  for (const x of v) out.push(toNode(x, depth));
  return out;
}

/** Reads a schema into nodes. Throws SchemaTooDeepError past MAX_SCHEMA_DEPTH. */
export function toNode(raw: unknown, depth = 0, path = ''): SchemaNode {
  if (depth === 0) {
    const deep = tooDeepAt(raw, path);
    if (deep !== undefined) throw new SchemaTooDeepError(deep);
  }
  const s = isObject(raw) ? raw : {};
  const next = depth + 1;
  const type = str(s.type);
  const intOrString = s['x-kubernetes-int-or-string'] === true;
  let properties: Map<string, SchemaNode> | undefined;
  if (isObject(s.properties)) {
    properties = new Map();
    for (const key of Object.keys(s.properties)) properties.set(key, toNode(s.properties[key], next));
  }
  let additionalProperties: SchemaNode | boolean | undefined;
  if (typeof s.additionalProperties === 'boolean') additionalProperties = s.additionalProperties;
  else if (isObject(s.additionalProperties)) additionalProperties = toNode(s.additionalProperties, next);
  const pattern = typeof s.pattern === 'string' && s.pattern !== '' ? s.pattern : undefined;
  // kube strips the formats it does not validate before building its validator.
  const rawFormat = str(s.format);
  const format = formatCheck(rawFormat) ? rawFormat : '';
  const allOf = nodeList(s.allOf, next);
  const anyOf = nodeList(s.anyOf, next);
  const oneOf = nodeList(s.oneOf, next);
  const not = isObject(s.not) ? toNode(s.not, next) : undefined;
  const enumValues = Array.isArray(s.enum) && s.enum.length > 0 ? s.enum : undefined;
  const maxLength = num(s.maxLength);
  const minLength = num(s.minLength);
  const maximum = num(s.maximum);
  const minimum = num(s.minimum);
  const multipleOf = num(s.multipleOf);
  const node: SchemaNode = {
    type,
    nullable: s.nullable === true,
    format,
    intOrString,
    preserveUnknownFields: s['x-kubernetes-preserve-unknown-fields'] === true,
    embeddedResource: s['x-kubernetes-embedded-resource'] === true,
    listType: typeof s['x-kubernetes-list-type'] === 'string' ? s['x-kubernetes-list-type'] : undefined,
    listMapKeys: Array.isArray(s['x-kubernetes-list-map-keys']) ? s['x-kubernetes-list-map-keys'].filter((k): k is string => typeof k === 'string') : undefined,
    mapType: typeof s['x-kubernetes-map-type'] === 'string' ? s['x-kubernetes-map-type'] : undefined,
    // A null default is no default: the CRD's JSON field decodes null as unset.
    default: s.default !== undefined && s.default !== null ? { value: s.default } : undefined,
    enum: enumValues,
    maximum,
    exclusiveMaximum: s.exclusiveMaximum === true,
    minimum,
    exclusiveMinimum: s.exclusiveMinimum === true,
    multipleOf,
    maxLength,
    minLength,
    pattern,
    regexp: pattern === undefined ? undefined : compileOrUndefined(pattern),
    maxItems: num(s.maxItems),
    minItems: num(s.minItems),
    maxProperties: num(s.maxProperties),
    minProperties: num(s.minProperties),
    required: Array.isArray(s.required) && s.required.length > 0 ? s.required.filter((k): k is string => typeof k === 'string') : undefined,
    properties,
    additionalProperties,
    items: isObject(s.items) ? toNode(s.items, next) : undefined,
    allOf,
    anyOf,
    oneOf,
    not,
    types: intOrString ? INT_OR_STRING : type ? [type] : NO_TYPES,
    hasValueChecks:
      enumValues !== undefined ||
      format !== '' ||
      pattern !== undefined ||
      maxLength !== undefined ||
      minLength !== undefined ||
      maximum !== undefined ||
      minimum !== undefined ||
      multipleOf !== undefined ||
      allOf !== undefined ||
      anyOf !== undefined ||
      oneOf !== undefined ||
      not !== undefined,
  };
  const scalarPass = scalarPassOf(node);
  return scalarPass ? { ...node, scalarPass } : node;
}

const INT_OR_STRING: readonly string[] = ['integer', 'string'];
const NO_TYPES: readonly string[] = [];

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
