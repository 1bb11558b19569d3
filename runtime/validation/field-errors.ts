// Constructors for field-level causes with kube-apiserver's reasons and message bodies
// (k8s.io/apimachinery/pkg/util/validation/field: the message is ErrorBody(), without the path).

import type { StatusCause } from '../errors/status-error.js';
import { goQuote, goValue } from '../machinery/go-format.js';

function withDetail(body: string, detail: string): string {
  return detail ? `${body}: ${detail}` : body;
}

export function required(field: string, detail = ''): StatusCause {
  return { reason: 'FieldValueRequired', message: withDetail('Required value', detail), field };
}

export function invalid(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: withDetail(`Invalid value: ${goValue(value)}`, detail), field };
}

export function typeInvalid(field: string, value: unknown, detail: string): StatusCause {
  return { reason: 'FieldValueTypeInvalid', message: withDetail(`Invalid value: ${goValue(value)}`, detail), field };
}

export function forbidden(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueForbidden', message: withDetail('Forbidden', detail), field };
}

export function duplicate(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${goValue(value)}`, field };
}

export function notFound(field: string, value: unknown): StatusCause {
  return { reason: 'FieldValueNotFound', message: `Not found: ${goValue(value)}`, field };
}

export function notSupported(field: string, value: unknown, supported: readonly unknown[]): StatusCause {
  const detail = supported.length ? `supported values: ${supported.map((v) => goQuote(String(v))).join(', ')}` : '';
  return { reason: 'FieldValueNotSupported', message: withDetail(`Unsupported value: ${goValue(value)}`, detail), field };
}

/** field.TooLong: the value is never echoed; the limit is in bytes. */
export function tooLong(field: string, maxLength: number): StatusCause {
  const detail = maxLength >= 0 ? `may not be more than ${maxLength} ${maxLength === 1 ? 'byte' : 'bytes'}` : 'value is too long';
  return { reason: 'FieldValueTooLong', message: `Too long: ${detail}`, field };
}

export function tooShort(field: string, minLength: number): StatusCause {
  const detail = `must be at least ${minLength} ${minLength === 1 ? 'character' : 'characters'}`;
  return { reason: 'FieldValueTooShort', message: `Too short: ${detail}`, field };
}

export function tooMany(field: string, actual: number, max: number): StatusCause {
  return { reason: 'FieldValueTooMany', message: `Too many: ${actual}: must have at most ${max} ${max === 1 ? 'item' : 'items'}`, field };
}

export function tooFew(field: string, actual: number, min: number): StatusCause {
  return { reason: 'FieldValueTooFew', message: `Too few: ${actual}: must have at least ${min} ${min === 1 ? 'item' : 'items'}`, field };
}

export function internal(field: string, detail: string): StatusCause {
  return { reason: 'InternalError', message: `Internal error: ${detail}`, field };
}
