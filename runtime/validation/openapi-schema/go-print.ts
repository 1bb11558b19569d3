// How kube-apiserver's Go code prints the values of a custom resource inside its messages. A
// decoded JSON number is an int64 when it is integral (else a float64), and the two print
// differently; maps and lists print with %#v in a field error's bad value.

import { goQuote } from '../../machinery/go-format.js';

const INT64_LIMIT = 2 ** 63;

/** Whether Go's JSON decoding of this number gives an int64 (integral and in range). */
export function isGoInt(n: number): boolean {
  return Number.isInteger(n) && n >= -INT64_LIMIT && n < INT64_LIMIT;
}

/** fmt's %v of a float64: strconv 'g' with the shortest digits (exponent form from 1e+06 up and below 1e-04). */
export function goFloat(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : '-Inf';
  if (n === 0) return Object.is(n, -0) ? '-0' : '0';
  const [mantissa, expText] = n.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) {
    const sign = exp < 0 ? '-' : '+';
    const digits = String(Math.abs(exp)).padStart(2, '0');
    return `${mantissa}e${sign}${digits}`;
  }
  return String(n);
}

/** fmt's %v of a number as decoded from JSON: int64 digits, or a float64. */
export function goNumber(n: number): string {
  return isGoInt(n) ? BigInt(n).toString() : goFloat(n);
}

/** fmt's %#v of a decoded JSON value inside an interface{} (maps sorted by key). */
export function goSharpV(value: unknown, depth = 0): string {
  if (value === null || value === undefined) return 'interface {}(nil)';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return String(value);
  // Deeper than any schema lets a value go; keeps the printer itself from recursing without end.
  if (depth > 64) return '...';
  if (Array.isArray(value)) return `[]interface {}{${value.map((v) => goSharpV(v, depth + 1)).join(', ')}}`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  return `map[string]interface {}{${keys.map((k) => `${goQuote(k)}:${goSharpV(obj[k], depth + 1)}`).join(', ')}}`;
}

/** A field error's bad value as ErrorBody prints it: strings quoted, numbers and booleans bare, nil as "null", else %#v. */
export function goBadValue(value: unknown): string {
  if (value === null || value === undefined) return '"null"';
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return goNumber(value);
  if (typeof value === 'boolean') return String(value);
  return goSharpV(value);
}
