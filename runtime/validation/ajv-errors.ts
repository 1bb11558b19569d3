// Translates the errors of generated ajv validators into StatusCauses with kube-apiserver's
// field paths, reasons and message bodies.

import type { StatusCause } from '../errors/status-error.js';
import * as fe from './field-errors.js';
import { formatCauses } from './format-causes.js';
import { childPath, fieldAt, keyPath, kubePath, valueAt, type TypeTable } from './type-table.js';

/** The part of ajv's ErrorObject we read (kept local so generated code needs no ajv types). */
export interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  propertyName?: string;
  message?: string;
}

/** How generated validators add a failed check to their error list (generator/emit/validators.ts). */
export function appendAjvError(errors: AjvError[] | null, error: AjvError): AjvError[] {
  if (errors === null) return [error];
  errors.push(error);
  return errors;
}

const JSON_TYPE = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v);

/** Errors below a list whose TooMany ends its validation (stopsAtMaxItems) are not kube-apiserver's. */
function withoutErrorsPastMaxItems(errors: readonly AjvError[], table: TypeTable, rootType: string): AjvError[] {
  const ended = errors.filter((e) => e.keyword === 'maxItems' && fieldAt(table, rootType, e.instancePath)?.stopsAtMaxItems !== undefined).map((e) => `${e.instancePath}/`);
  if (ended.length === 0) return [...errors];
  return errors.filter((e) => !ended.some((prefix) => e.instancePath.startsWith(prefix)));
}

export function translateAjvErrors(allErrors: readonly AjvError[], obj: unknown, table: TypeTable, rootType: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const err of withoutErrorsPastMaxItems(allErrors, table, rootType)) {
    // The propertyNames wrapper repeats what its inner error already says, and so does the `if`
    // of a union's branch (apiextensions' schema unions) what the branch's own errors say.
    if (err.keyword === 'propertyNames' || err.keyword === 'if') continue;
    const base = kubePath(table, rootType, err.instancePath);
    const value = valueAt(obj, err.instancePath);
    const limit = Number(err.params.limit);
    switch (err.keyword) {
      case 'required':
        causes.push(fe.required(childPath(base, String(err.params.missingProperty))));
        break;
      case 'type':
        causes.push(fe.typeInvalid(base, JSON_TYPE(value), `must be of type ${String(err.params.type)}`));
        break;
      case 'enum':
      case 'const':
        causes.push(fe.notSupported(base, value, (err.params.allowedValues as unknown[] | undefined) ?? [err.params.allowedValue]));
        break;
      case 'maxLength':
        causes.push(fe.tooLong(base, limit));
        break;
      case 'minLength':
        // An empty value where one is needed is what kube-apiserver reports as Required.
        causes.push(value === '' ? fe.required(base) : fe.tooShort(base, limit));
        break;
      case 'maxItems':
      case 'maxProperties':
        causes.push(fe.tooMany(base, Array.isArray(value) ? value.length : Object.keys(value ?? {}).length, limit));
        break;
      case 'minItems':
      case 'minProperties': {
        const n = Array.isArray(value) ? value.length : Object.keys(value ?? {}).length;
        causes.push(n === 0 ? fe.required(base) : fe.tooFew(base, n, limit));
        break;
      }
      case 'minimum':
        causes.push(fe.invalid(base, value, `must be greater than or equal to ${limit}`));
        break;
      case 'maximum':
        causes.push(fe.invalid(base, value, `must be less than or equal to ${limit}`));
        break;
      case 'exclusiveMinimum':
        causes.push(fe.invalid(base, value, `must be greater than ${limit}`));
        break;
      case 'exclusiveMaximum':
        causes.push(fe.invalid(base, value, `must be less than ${limit}`));
        break;
      case 'pattern':
        causes.push(fe.invalid(base, value, `should match '${String(err.params.pattern)}'`));
        break;
      case 'uniqueItems':
        causes.push(fe.duplicate(keyPath(base, Number(err.params.i)), Array.isArray(value) ? value[Number(err.params.i)] : value));
        break;
      case 'format': {
        const name = String(err.params.format);
        const isKey = err.propertyName !== undefined;
        const subject = isKey ? err.propertyName : value;
        // A key's path is the map's plus [key], unless the map reports at the field (matchLabels).
        const path = isKey ? kubePath(table, rootType, `${err.instancePath}/${(err.propertyName as string).replace(/~/g, '~0').replace(/\//g, '~1')}`) : base;
        const found = typeof subject === 'string' ? formatCauses(name, path, subject) : [];
        causes.push(...(found.length ? found : [fe.invalid(path, subject, `must be a valid ${name}`)]));
        break;
      }
      default:
        causes.push(fe.invalid(base, value, err.message ?? err.keyword));
    }
  }
  return causes;
}
