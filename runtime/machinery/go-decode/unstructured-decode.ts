// The type check of runtime.DefaultUnstructuredConverter.FromUnstructured, which is how
// kube-apiserver turns a strategic-merge-patched map into the kind's Go struct. Its wording is its
// own (not encoding/json's): "cannot restore map from int64", "cannot convert float64 to int32",
// "unrecognized type: string", with no field path. It stops at the first problem, visiting a
// struct's fields in declaration order. Types with their own JSON decoding are handed their value
// re-encoded as JSON, so their errors are those of UnmarshalJSON without a field context.
//
// The conversion also changes values: a number reaches an integer field through Go's reflect
// conversion, which keeps the low bits of an int64 (3000000000 becomes -1294967296 in an int32),
// and turns an integral float64 beyond int64 (99999999999999999999999 read as 1e23) into
// math.MinInt64 first, as amd64 does, so an int32 gets 0. The map is rewritten the same way, so
// what is stored is the value Go holds, never a number its types cannot read.

import type { JsonSchema } from '../openapi-schema.js';
import { base64ErrorOffset } from '../go-base64.js';
import { setMember } from '../own-member.js';
import { quantityParseError } from './go-quantity.js';
import { RFC3339, RFC3339_MICRO, timeParseError } from './go-time.js';
import { fitsInt, GoTypes, jsonKind, numberLiteral } from './go-types.js';

class Failure {
  constructor(readonly message: string) {}
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The Go type of a value of an unstructured map (numbers kept as int64 where integral). */
function unstructuredType(value: unknown): string {
  if (Array.isArray(value)) return '[]interface {}';
  if (isObject(value)) return 'map[string]interface {}';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int64' : 'float64';
  if (typeof value === 'boolean') return 'bool';
  return 'string';
}

/** reflect.Kind's name of the same: what "cannot restore ... from" prints. */
function unstructuredKind(value: unknown): string {
  if (Array.isArray(value)) return 'slice';
  if (isObject(value)) return 'map';
  return unstructuredType(value);
}

/** Puts a converted member back. */
function replace(obj: Record<string, unknown>, key: string, converted: unknown): void {
  if (obj[key] !== converted) setMember(obj, key, converted);
}

/** Checks `value` against the Go type of `schema`; returns it as the typed value holds it. */
function check(value: unknown, schema: JsonSchema, types: GoTypes): unknown {
  if (value === null || value === undefined) return value;
  const type = types.of(schema);
  const src = unstructuredType(value);
  switch (type.kind) {
    case 'any':
      return value;
    case 'quantity': {
      const text = typeof value === 'string' ? value : typeof value === 'number' ? numberLiteral(value) : JSON.stringify(value);
      const err = quantityParseError(text.trim());
      if (err) throw new Failure(err);
      return value;
    }
    case 'time':
    case 'microtime': {
      if (typeof value !== 'string') throw new Failure(`json: cannot unmarshal ${jsonKind(value)} into Go value of type string`);
      const err = timeParseError(value, type.kind === 'time' ? RFC3339 : RFC3339_MICRO);
      if (err) throw new Failure(err);
      return value;
    }
    case 'intorstring':
      if (typeof value === 'string') return value;
      if (typeof value === 'number') {
        if (!fitsInt(value, 'int32')) throw new Failure(`json: cannot unmarshal number ${numberLiteral(value)} into Go value of type int32`);
        return value;
      }
      throw new Failure(`json: cannot unmarshal ${jsonKind(value)} into Go value of type int32`);
    case 'bytes':
      // A string is base64 (read back through encoding/json); an empty one is no bytes.
      if (typeof value === 'string') {
        const at = base64ErrorOffset(value);
        if (value !== '' && at !== undefined) throw new Failure(`error decoding from json: illegal base64 data at input byte ${at}`);
        return value;
      }
      if (!Array.isArray(value)) throw new Failure(`cannot restore slice from ${unstructuredKind(value)}`);
      value.forEach((item, i) => (value[i] = integer(item, 'uint8')));
      return value;
    case 'struct':
      if (!isObject(value)) throw new Failure(`cannot restore struct from: ${unstructuredKind(value)}`);
      for (const [name, field] of Object.entries(type.fields!)) if (name in value) replace(value, name, check(value[name], field, types));
      return value;
    case 'map':
      if (!isObject(value)) throw new Failure(`cannot restore map from ${unstructuredKind(value)}`);
      for (const [key, child] of Object.entries(value)) replace(value, key, check(child, type.elem!, types));
      return value;
    case 'slice':
      if (!Array.isArray(value)) throw new Failure(`cannot restore slice from ${unstructuredKind(value)}`);
      value.forEach((item, i) => (value[i] = check(item, type.elem!, types)));
      return value;
    case 'string':
      if (src === 'string') return value;
      // Go can convert an integer to a string (as a rune) but the converter refuses to.
      throw new Failure(src === 'int64' ? 'cannot convert int64 to string' : 'unrecognized type: string');
    case 'bool':
      if (src !== 'bool') throw new Failure('unrecognized type: bool');
      return value;
    case 'float64':
      if (src !== 'int64' && src !== 'float64') throw new Failure('unrecognized type: float64');
      return value;
    case 'int32':
    case 'int64':
      return integer(value, type.kind);
  }
}

const BITS = { int32: 32, int64: 64, uint8: 8 } as const;
const INT64_LIMIT = 2 ** 63;

/**
 * An integer destination: int64 converts (keeping the low bits, as Go's conversion does), integral
 * floats too, through int64 (out of its range that is math.MinInt64 on amd64).
 */
function integer(value: unknown, name: keyof typeof BITS): unknown {
  if (value === null || value === undefined) return value;
  const src = unstructuredType(value);
  if (src !== 'int64' && src !== 'float64') throw new Failure(`unrecognized type: ${name}`);
  const n = value as number;
  if (!Number.isInteger(n)) throw new Failure(`cannot convert float64 to ${name}`);
  const asInt64 = n >= -INT64_LIMIT && n < INT64_LIMIT ? BigInt(n) : -(2n ** 63n);
  const bits = BITS[name];
  const held = name === 'uint8' ? BigInt.asUintN(bits, asInt64) : BigInt.asIntN(bits, asInt64);
  return held === asInt64 && Number.isSafeInteger(n) ? value : Number(held);
}

/**
 * The converter's error for turning `value` into the Go type of `schema`, or undefined; numbers
 * of integer fields are rewritten in place to what the typed value holds.
 */
export function unstructuredDecodeError(value: unknown, schema: JsonSchema, types: GoTypes): string | undefined {
  try {
    check(value, schema, types);
  } catch (e) {
    if (e instanceof Failure) return e.message;
    throw e;
  }
  return undefined;
}

/** fmt's %v of an unstructured value: map[k:v ...] sorted by key, [a b], <nil>. */
export function goPrint(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (Array.isArray(value)) return `[${value.map(goPrint).join(' ')}]`;
  if (isObject(value)) {
    return `map[${Object.keys(value)
      .sort()
      .map((k) => `${k}:${goPrint(value[k])}`)
      .join(' ')}]`;
  }
  if (typeof value === 'number') return Number.isInteger(value) ? numberLiteral(value) : goFloat(value);
  return String(value);
}

/** %v of a float64 (strconv's shortest %g): exponent form below 1e-4 and from 1e6 on. */
function goFloat(f: number): string {
  const exp = Math.floor(Math.log10(Math.abs(f)));
  if (exp < -4 || exp >= 6) {
    const [mant, e] = f.toExponential().split('e');
    const n = Number(e);
    return `${mant}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
  }
  return String(f);
}
