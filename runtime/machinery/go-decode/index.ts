// Decode-time type checks of request bodies against the kind's Go types, as kube-apiserver makes
// them before any defaulting or validation (see json-decode.ts and unstructured-decode.ts).

import { generatedSchemaIndex, type JsonSchema } from '../openapi-schema.js';
import { fillStruct, goJsonDecodeError, type StructFill } from './json-decode.js';
import { GoTypes } from './go-types.js';
import { unstructuredDecodeError } from './unstructured-decode.js';

export { goPrint } from './unstructured-decode.js';
export { memberCount } from './member-count.js';

let types: GoTypes | undefined;
const goTypes = () => (types ??= new GoTypes(generatedSchemaIndex()));

// A kind is entered through a reference to its component, so its Go type gets the component's name.
const roots = new Map<string, JsonSchema>();
function rootOf(openAPIName: string): JsonSchema | undefined {
  let root = roots.get(openAPIName);
  if (root || !generatedSchemaIndex().component(openAPIName)) return root;
  roots.set(openAPIName, (root = { $ref: `#/components/schemas/${openAPIName}` }));
  return root;
}

/** Whether the kind's Go struct is known from the generated schema (not so for custom resources). */
export function hasComponent(openAPIName: string): boolean {
  return rootOf(openAPIName) !== undefined;
}

/** What decoding a JSON (or YAML, as JSON) body into the component's Go struct complains of first. */
export function jsonDecodeError(openAPIName: string, obj: unknown): string | undefined {
  const schema = rootOf(openAPIName);
  return schema ? goJsonDecodeError(obj, schema, goTypes()) : undefined;
}

/** A body filled into its kind's struct: the first complaint, or what was dropped and counted on the way. */
export interface StructDecoding extends StructFill {
  error?: string;
}

/**
 * Fills the component's Go struct from a JSON (or YAML, as JSON) body in one walk: what
 * jsonDecodeError would complain of first, and, when nothing, the body pruned of unknown members
 * and its nulls left as Go leaves them. Undefined for a kind without a component (a custom
 * resource, whose schema prunes it).
 */
export function decodeIntoStruct(openAPIName: string, obj: Record<string, unknown>): StructDecoding | undefined {
  const schema = rootOf(openAPIName);
  if (!schema) return undefined;
  const decoding: StructDecoding = { unknown: [], members: 0 };
  decoding.error = fillStruct(obj, schema, goTypes(), decoding);
  return decoding;
}

/** What converting a strategic-merge-patched map into the component's Go struct complains of. */
export function unstructuredConvertError(openAPIName: string, obj: unknown): string | undefined {
  const schema = rootOf(openAPIName);
  return schema ? unstructuredDecodeError(obj, schema, goTypes()) : undefined;
}

/** A type field's value that decodes into its string (null leaves it empty). */
const isTypeMetaText = (value: unknown) => typeof value === 'string' || value === undefined || value === null;

/**
 * The "couldn't get version/kind" step every JSON and YAML body goes through first: apiVersion
 * and kind are read into an anonymous struct of two strings.
 */
export function typeMetaDecodeError(obj: Record<string, unknown>): string | undefined {
  if (isTypeMetaText(obj.apiVersion) && isTypeMetaText(obj.kind)) return undefined;
  // Go keeps the first complaint in document order.
  for (const field of Object.keys(obj)) {
    if (field !== 'apiVersion' && field !== 'kind') continue;
    const value = obj[field];
    if (value === null || value === undefined || typeof value === 'string') continue;
    const kind = Array.isArray(value) ? 'array' : typeof value === 'number' ? 'number' : typeof value === 'boolean' ? 'bool' : 'object';
    return `json: cannot unmarshal ${kind} into Go struct field .${field} of type string`;
  }
  return undefined;
}
