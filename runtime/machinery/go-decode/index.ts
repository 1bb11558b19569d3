// Decode-time type checks of request bodies against the kind's Go types, as kube-apiserver makes
// them before any defaulting or validation (see json-decode.ts and unstructured-decode.ts).

import { generatedSchemaIndex, type JsonSchema } from '../openapi-schema.js';
import { goJsonDecodeError } from './json-decode.js';
import { GoTypes } from './go-types.js';
import { unstructuredDecodeError } from './unstructured-decode.js';

export { goPrint } from './unstructured-decode.js';

let types: GoTypes | undefined;
const goTypes = () => (types ??= new GoTypes(generatedSchemaIndex()));

// A kind is entered through a reference to its component, so its Go type gets the component's name.
const roots = new Map<string, JsonSchema>();
function rootOf(openAPIName: string): JsonSchema | undefined {
  if (!generatedSchemaIndex().component(openAPIName)) return undefined;
  let root = roots.get(openAPIName);
  if (!root) roots.set(openAPIName, (root = { $ref: `#/components/schemas/${openAPIName}` }));
  return root;
}

/** What decoding a JSON (or YAML, as JSON) body into the component's Go struct complains of first. */
export function jsonDecodeError(openAPIName: string, obj: unknown): string | undefined {
  const schema = rootOf(openAPIName);
  return schema ? goJsonDecodeError(obj, schema, goTypes()) : undefined;
}

/** What converting a strategic-merge-patched map into the component's Go struct complains of. */
export function unstructuredConvertError(openAPIName: string, obj: unknown): string | undefined {
  const schema = rootOf(openAPIName);
  return schema ? unstructuredDecodeError(obj, schema, goTypes()) : undefined;
}

/**
 * The "couldn't get version/kind" step every JSON and YAML body goes through first: apiVersion
 * and kind are read into an anonymous struct of two strings.
 */
export function typeMetaDecodeError(obj: Record<string, unknown>): string | undefined {
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
