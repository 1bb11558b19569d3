// Field errors with the texts of kube-apiserver 1.33 (apimachinery v0.33 field.Error.ErrorBody):
// bad values printed as Go prints a decoded JSON value (maps and lists with %#v), "Too many"
// always counting "items", "Too long" always in bytes.

import type { StatusCause } from '../../errors/status-error.js';
import { goQuote } from '../../machinery/go-format.js';
import { goBadValue } from './go-print.js';

const withDetail = (body: string, detail: string): string => (detail ? `${body}: ${detail}` : body);

export function required(field: string, detail = ''): StatusCause {
  return { reason: 'FieldValueRequired', message: withDetail('Required value', detail), field };
}

export function invalid(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: withDetail(`Invalid value: ${goBadValue(value)}`, detail), field };
}

export function typeInvalid(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueTypeInvalid', message: withDetail(`Invalid value: ${goBadValue(value)}`, detail), field };
}

export function notSupported(field: string, value: unknown, supported: readonly string[]): StatusCause {
  const detail = supported.length ? `supported values: ${supported.map(goQuote).join(', ')}` : '';
  return { reason: 'FieldValueNotSupported', message: withDetail(`Unsupported value: ${goBadValue(value)}`, detail), field };
}

export function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: withDetail('Forbidden', detail), field };
}

export function tooLong(field: string, maxLength: number): StatusCause {
  const detail = maxLength >= 0 ? `may not be more than ${maxLength} bytes` : 'value is too long';
  return { reason: 'FieldValueTooLong', message: `Too long: ${detail}`, field };
}

export function tooMany(field: string, actual: number, max: number): StatusCause {
  const detail = max >= 0 ? `must have at most ${max} items` : 'has too many items';
  return { reason: 'FieldValueTooMany', message: actual >= 0 ? `Too many: ${actual}: ${detail}` : `Too many: ${detail}`, field };
}

export function duplicate(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${goBadValue(value)}`, field };
}

/** The error text of a StatusCause as kube's field.Error.Error() gives it (`field: message`), for sorting as kube sorts. */
export function errorText(cause: StatusCause): string {
  return `${cause.field ?? ''}: ${cause.message ?? ''}`;
}

/** target.push(...items) without the spread: a list of causes may be longer than a call's argument limit. */
export function appendAll<T>(target: T[], items: readonly T[]): T[] {
  for (const item of items) target.push(item);
  return target;
}
