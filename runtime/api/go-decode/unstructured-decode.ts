// The type check of runtime.DefaultUnstructuredConverter.FromUnstructured, which is how
// kube-apiserver turns a strategic-merge-patched map into the kind's Go struct. Its wording is its
// own (not encoding/json's): "cannot restore map from int64", "cannot convert float64 to int32",
// "unrecognized type: string", with no field path. It stops at the first problem, visiting a
// struct's fields in declaration order. Types with their own JSON decoding are handed their value
// re-encoded as JSON, so their errors are those of UnmarshalJSON without a field context.

import type { JsonSchema } from '../../registry/openapi-schema.js';
import { base64ErrorOffset } from '../go-base64.js';
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

function check(value: unknown, schema: JsonSchema, types: GoTypes): void {
  if (value === null || value === undefined) return;
  const type = types.of(schema);
  const src = unstructuredType(value);
  switch (type.kind) {
    case 'any':
      return;
    case 'quantity': {
      const text = typeof value === 'string' ? value : typeof value === 'number' ? numberLiteral(value) : JSON.stringify(value);
      const err = quantityParseError(text.trim());
      if (err) throw new Failure(err);
      return;
    }
    case 'time':
    case 'microtime': {
      if (typeof value !== 'string') throw new Failure(`json: cannot unmarshal ${jsonKind(value)} into Go value of type string`);
      const err = timeParseError(value, type.kind === 'time' ? RFC3339 : RFC3339_MICRO);
      if (err) throw new Failure(err);
      return;
    }
    case 'intorstring':
      if (typeof value === 'string') return;
      if (typeof value === 'number') {
        if (!fitsInt(value, 'int32')) throw new Failure(`json: cannot unmarshal number ${numberLiteral(value)} into Go value of type int32`);
        return;
      }
      throw new Failure(`json: cannot unmarshal ${jsonKind(value)} into Go value of type int32`);
    case 'bytes':
      // A string is base64 (read back through encoding/json); an empty one is no bytes.
      if (typeof value === 'string') {
        const at = base64ErrorOffset(value);
        if (value !== '' && at !== undefined) throw new Failure(`error decoding from json: illegal base64 data at input byte ${at}`);
        return;
      }
      if (!Array.isArray(value)) throw new Failure(`cannot restore slice from ${unstructuredKind(value)}`);
      for (const item of value) integer(item, 'uint8');
      return;
    case 'struct':
      if (!isObject(value)) throw new Failure(`cannot restore struct from: ${unstructuredKind(value)}`);
      for (const [name, field] of Object.entries(type.fields!)) if (name in value) check(value[name], field, types);
      return;
    case 'map':
      if (!isObject(value)) throw new Failure(`cannot restore map from ${unstructuredKind(value)}`);
      for (const child of Object.values(value)) check(child, type.elem!, types);
      return;
    case 'slice':
      if (!Array.isArray(value)) throw new Failure(`cannot restore slice from ${unstructuredKind(value)}`);
      for (const item of value) check(item, type.elem!, types);
      return;
    case 'string':
      if (src === 'string') return;
      // Go can convert an integer to a string (as a rune) but the converter refuses to.
      throw new Failure(src === 'int64' ? 'cannot convert int64 to string' : 'unrecognized type: string');
    case 'bool':
      if (src !== 'bool') throw new Failure('unrecognized type: bool');
      return;
    case 'float64':
      if (src !== 'int64' && src !== 'float64') throw new Failure('unrecognized type: float64');
      return;
    case 'int32':
    case 'int64':
      integer(value, type.kind);
      return;
  }
}

/** An integer destination: int64 converts (wrapping, as Go's conversion does), integral floats too. */
function integer(value: unknown, name: string): void {
  if (value === null || value === undefined) return;
  const src = unstructuredType(value);
  if (src === 'int64') return;
  if (src === 'float64') {
    if (Number.isInteger(value)) return;
    throw new Failure(`cannot convert float64 to ${name}`);
  }
  throw new Failure(`unrecognized type: ${name}`);
}

/** The converter's error for turning `value` into the Go type of `schema`, or undefined. */
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
