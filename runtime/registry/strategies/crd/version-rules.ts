// The rules of one CRD version's own members (validateCustomResourceDefinitionVersion and the
// helpers it shares with the spec's lifted members): the deprecation warning, the scale
// subresource's paths, printer columns and selectable fields. Paths are the caller's, which
// may be a version's (`spec.versions[1].subresources`) or the spec's (`spec.subresources`).

import type { StatusCause } from '../../../errors/status-error.js';
import { asList, asObject, asString, isPlainObject } from '../../../machinery/object.js';
import type { JsonObject } from '../../../machinery/json-values.js';
import { duplicate, invalid, required, tooMany } from '../../../validation/field-errors.js';

const PRINTER_COLUMN_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_COLUMN_FORMATS = ['byte', 'date', 'date-time', 'double', 'float', 'int32', 'int64', 'password'];
export const MAX_SELECTABLE_FIELDS = 8;

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const CONTROL = /^\p{Cc}$/u;

/** validateDeprecationWarning: the messages, each an Invalid of the warning. */
export function deprecationWarningCauses(version: JsonObject, at: string): StatusCause[] {
  const warning = version.deprecationWarning;
  const set = typeof warning === 'string';
  if (version.deprecated !== true && set) return [invalid(at, warning, 'can only be set for deprecated versions')];
  if (!set) return [];
  const messages: string[] = [];
  if (Buffer.byteLength(warning, 'utf8') > 256) messages.push('must be <= 256 characters long');
  if (warning.length === 0) messages.push('must not be an empty string');
  let index = 0;
  for (const ch of warning) {
    if (!PRINTABLE.test(ch)) {
      messages.push(`must only contain printable UTF-8 characters; non-printable character found at index ${index}`);
      break;
    }
    if (CONTROL.test(ch)) {
      messages.push(`must only contain printable UTF-8 characters; control character found at index ${index}`);
      break;
    }
    index += Buffer.byteLength(ch, 'utf8');
  }
  return messages.map((m) => invalid(at, warning, m));
}

/** validateSimpleJSONPath: a path in dot notation that starts with `.`. */
export function simpleJSONPathCauses(path: string, at: string): StatusCause[] {
  if (path.length === 0) return [invalid(at, path, 'must not be empty')];
  if (path[0] !== '.') return [invalid(at, path, 'must be a simple json path starting with .')];
  return [];
}

/** ValidateCustomResourceDefinitionSubresources: the scale subresource's paths. */
export function subresourcesCauses(subresources: unknown, at: string): StatusCause[] {
  if (!isPlainObject(subresources) || !isPlainObject(subresources.scale)) return [];
  const scale = subresources.scale;
  const causes: StatusCause[] = [];
  const underPrefix = (field: string, prefixes: string[], why: string): void => {
    const path = asString(scale[field]);
    const fieldPath = `${at}.scale.${field}`;
    const errs = simpleJSONPathCauses(path, fieldPath);
    if (errs.length) causes.push(...errs);
    else if (!prefixes.some((p) => path.startsWith(p))) causes.push(invalid(fieldPath, path, why));
  };
  if (!asString(scale.specReplicasPath)) causes.push(required(`${at}.scale.specReplicasPath`));
  else underPrefix('specReplicasPath', ['.spec.'], 'should be a json path under .spec');
  if (!asString(scale.statusReplicasPath)) causes.push(required(`${at}.scale.statusReplicasPath`));
  else underPrefix('statusReplicasPath', ['.status.'], 'should be a json path under .status');
  if (asString(scale.labelSelectorPath)) underPrefix('labelSelectorPath', ['.spec.', '.status.'], 'should be a json path under either .spec or .status');
  return causes;
}

/**
 * ValidateCustomResourceColumnDefinition. kube 1.33 checks only that jsonPath is a simple path
 * (it reports it as `JSONPath`, the internal Go field's name); an expression that does not parse
 * fails when a table is printed, not here.
 */
export function columnCauses(column: unknown, at: string): StatusCause[] {
  const col = asObject(column);
  const causes: StatusCause[] = [];
  const type = asString(col.type);
  const format = asString(col.format);
  const jsonPath = asString(col.jsonPath);
  if (!asString(col.name)) causes.push(required(`${at}.name`));
  if (!type) causes.push(required(`${at}.type`, `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`));
  else if (!PRINTER_COLUMN_TYPES.includes(type)) causes.push(invalid(`${at}.type`, type, `must be one of ${PRINTER_COLUMN_TYPES.join(',')}`));
  if (format && !PRINTER_COLUMN_FORMATS.includes(format)) causes.push(invalid(`${at}.format`, format, `must be one of ${PRINTER_COLUMN_FORMATS.join(',')}`));
  if (!jsonPath) causes.push(required(`${at}.JSONPath`));
  else causes.push(...simpleJSONPathCauses(jsonPath, `${at}.JSONPath`));
  return causes;
}

/** The schema a selectable field's path names, as cel.ValidFieldPath walks a structural schema without array notation. */
function resolveFieldPath(jsonPath: string, root: JsonObject): { path: string[]; schema: JsonObject | undefined } | string {
  const tokens = jsonPath.match(/[.[\]]|[^.[\]]+/g) ?? [];
  const path: string[] = [];
  let schema: JsonObject | undefined = root;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i];
    if (tok === '[') return 'array notation is not allowed';
    if (tok !== '.') return `expected [ or . but got: ${tok}`;
    const name = tokens[++i];
    if (name === undefined) return 'unexpected end of JSON path';
    if (!schema) return 'does not refer to a valid field';
    if (isPlainObject(schema.properties)) {
      const next: unknown = schema.properties[name];
      if (!isPlainObject(next)) return 'does not refer to a valid field';
      schema = next;
    } else if (schema.additionalProperties !== undefined && schema.additionalProperties !== null) {
      schema = isPlainObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
    } else {
      return 'does not refer to a valid field';
    }
    path.push(name);
  }
  return { path, schema };
}

/** ValidateCustomResourceSelectableFields over the version's schema. */
export function selectableFieldsCauses(fields: unknown, schema: JsonObject, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const unique = new Set<string>();
  asList(fields).forEach((f, i) => {
    const jsonPath = asString(asObject(f).jsonPath);
    const fieldPath = `${at}[${i}].jsonPath`;
    if (!jsonPath) {
      causes.push(required(fieldPath));
      return;
    }
    const found = resolveFieldPath(jsonPath, schema);
    if (typeof found === 'string') {
      causes.push(invalid(fieldPath, jsonPath, `is an invalid path: ${found}`));
      return;
    }
    if (found.path[0] === 'metadata') causes.push(invalid(fieldPath, jsonPath, 'must not point to fields in metadata'));
    const type = found.schema ? asString(found.schema.type) : '';
    if (!['string', 'boolean', 'integer'].includes(type)) {
      causes.push(invalid(fieldPath, jsonPath, 'must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'));
    }
    const key = found.path.join('.');
    if (unique.has(key)) causes.push(duplicate(fieldPath, jsonPath));
    else unique.add(key);
  });
  if (unique.size > MAX_SELECTABLE_FIELDS) causes.push(tooMany(at, unique.size, MAX_SELECTABLE_FIELDS));
  return causes;
}
