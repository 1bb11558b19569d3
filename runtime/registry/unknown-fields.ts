// kube-apiserver decodes request bodies into typed structs, so fields the schema does not know are
// dropped. With fieldValidation=Strict they fail the request, with Warn (the default) each one is
// reported in a Warning header, with Ignore they vanish silently. We get the same effect by walking
// the object against the generated OpenAPI schema.

import { badRequest, invalid } from '../errors/status-error.js';
import type { JsonSchema, SchemaIndex } from '../machinery/openapi-schema.js';
import { getMember } from '../machinery/own-member.js';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Removes fields unknown to the schema from `obj` in place and returns their paths (`spec.x`, `items[0].y`). */
export function pruneUnknownFields(obj: Record<string, unknown>, schema: JsonSchema, index: SchemaIndex): string[] {
  const unknown: string[] = [];
  walk(obj, schema, '', index, unknown);
  return unknown;
}

function walk(value: unknown, raw: JsonSchema, path: string, index: SchemaIndex, unknown: string[]): void {
  const schema = index.resolve(raw);
  if (schema['x-kubernetes-preserve-unknown-fields']) return;
  if (Array.isArray(value)) {
    if (schema.items) value.forEach((item, i) => walk(item, schema.items!, `${path}[${i}]`, index, unknown));
    return;
  }
  if (!isObject(value)) return;
  if (schema.properties) {
    for (const key of Object.keys(value)) {
      // A member named __proto__ is unknown unless the schema names it, never the schema's prototype.
      const child = getMember(schema.properties, key) as JsonSchema | undefined;
      const childPath = path ? `${path}.${key}` : key;
      if (child) walk(value[key], child, childPath, index, unknown);
      else {
        unknown.push(childPath);
        delete value[key];
      }
    }
  } else if (isObject(schema.additionalProperties)) {
    for (const key of Object.keys(value)) walk(value[key], schema.additionalProperties, `${path}.${key}`, index, unknown);
  }
}

/**
 * The fieldValidation query parameter (default Warn). A value other than the three is refused as
 * kube-apiserver refuses invalid options: 422 on the options kind (CreateOptions, UpdateOptions,
 * PatchOptions of meta.k8s.io).
 */
export function parseFieldValidation(param: string | undefined, optionsKind: string): FieldValidation {
  if (param === undefined || param === '') return 'Warn';
  if (param === 'Strict' || param === 'Warn' || param === 'Ignore') return param;
  throw invalid('meta.k8s.io', optionsKind, '', [
    {
      reason: 'FieldValueNotSupported',
      field: 'fieldValidation',
      message: `Unsupported value: "${param}": supported values: "", "Ignore", "Strict", "Warn"`,
    },
  ]);
}

/**
 * Applies the directive to the unknown fields found while decoding: throws 400 under Strict
 * (kube-apiserver's strict decoding message), returns the Warning texts under Warn.
 */
export function unknownFieldOutcome(
  unknown: string[],
  directive: FieldValidation,
  kind: string,
  version: string,
): string[] {
  if (unknown.length === 0 || directive === 'Ignore') return [];
  const messages = unknown.map((f) => `unknown field "${f}"`);
  if (directive === 'Strict') {
    throw badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: strict decoding error: ${messages.join(', ')}`);
  }
  return messages;
}
