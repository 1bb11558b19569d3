// The type check kube-apiserver's JSON decoder (sigs.k8s.io/json, a fork of Go's encoding/json)
// makes while it fills the kind's Go struct from a request body, replayed over the already parsed
// body with the generated schema standing in for the Go types.
//
// How Go words and orders its complaints:
// - A value of the wrong JSON kind is an UnmarshalTypeError: "json: cannot unmarshal <kind> into
//   Go struct field <Struct>.<path> of type <type>". <Struct> is the innermost struct whose field
//   is being filled; <path> is every JSON field name from the top, dotted (no list indexes, no map
//   keys); numbers that do not fit an integer name their literal ("number 1.5").
// - Such errors do not stop decoding: the first one is kept and reported at the end.
// - A type with its own UnmarshalJSON (Quantity, Time, IntOrString) stops decoding at once with
//   its own error, which wins over a kept one; when that error is itself a type error (Time's
//   inner decode into a string) it is given the field's context on the way out.
// - Bad base64 of a []byte is kept like a type error but has no context.
// - null leaves anything at its zero value.
//
// Filling the struct (decodeIntoStruct) does in the same walk what else takes three: members the
// struct has no field for are dropped and their paths reported (fieldValidation decides what the
// client hears of them), and nulls are left as Go leaves them (see registry/null-members.ts).

import type { JsonSchema } from '../openapi-schema.js';
import { base64ErrorOffset } from '../go-base64.js';
import { quantityParseError } from './go-quantity.js';
import { RFC3339, RFC3339_MICRO, timeParseError } from './go-time.js';
import { fitsInt, GoTypes, jsonKind, numberLiteral, type GoType } from './go-types.js';
import { memberCount } from './member-count.js';
import { zeroOf } from './zero-values.js';
import { literalOf, spells } from './number-literals.js';

/** Raised when an UnmarshalJSON method fails: decoding ends there. */
class Abort {
  constructor(readonly message: string) {}
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What filling a struct records besides its first complaint. */
export interface StructFill {
  /** Paths of the members no field took (`spec.x`, `items[0].y`), dropped, in document order. */
  unknown: string[];
  /** Members of every object of the value as it was before anything was dropped. */
  members: number;
}

class Decoder {
  /**
   * Every step down from the top to the value being decoded (field and map key names, list
   * indexes, the last two only while filling) and, for a struct field, the struct's name: Go's
   * errors name the innermost struct and the fields from the top, unknown members' paths every step.
   */
  private readonly steps: (string | number)[] = [];
  private readonly owners: (string | undefined)[] = [];
  private saved: string | undefined;

  constructor(
    private readonly types: GoTypes,
    private readonly fill?: StructFill,
  ) {}

  run(value: unknown, schema: JsonSchema): string | undefined {
    try {
      this.value(value, schema);
    } catch (e) {
      if (e instanceof Abort) return e.message;
      throw e;
    }
    return this.saved;
  }

  /** An UnmarshalTypeError's text with the context of where decoding is. */
  private typeError(what: string, type: string): string {
    let struct = '';
    const fields: string[] = [];
    for (let i = 0; i < this.steps.length; i++) {
      const owner = this.owners[i];
      if (owner === undefined) continue;
      struct = owner;
      fields.push(this.steps[i] as string);
    }
    if (fields.length > 0) return `json: cannot unmarshal ${what} into Go struct field ${struct}.${fields.join('.')} of type ${type}`;
    return `json: cannot unmarshal ${what} into Go value of type ${type}`;
  }

  private save(message: string): void {
    this.saved ??= message;
  }

  /** The kind word of a mismatch: numbers name their literal only where an integer was expected. */
  private mismatch(value: unknown, type: GoType): void {
    this.save(this.typeError(jsonKind(value), type.name));
  }

  /** `lit` is the number's literal text when the body's JSON had one its value does not print as. */
  private value(value: unknown, schema: JsonSchema, lit?: string): void {
    if (value === null || value === undefined) return;
    const type = this.types.of(schema);
    switch (type.kind) {
      case 'any':
        if (this.fill) this.fill.members += memberCount(value);
        return;
      case 'quantity': {
        // UnmarshalJSON takes the raw text less its quotes, trimmed.
        const text = typeof value === 'string' ? value : typeof value === 'number' ? (lit ?? numberLiteral(value)) : JSON.stringify(value);
        const err = quantityParseError(text.trim());
        if (err) throw new Abort(err);
        return;
      }
      case 'time':
      case 'microtime': {
        // UnmarshalJSON decodes a string first (a type error, given this field's context), then parses it.
        if (typeof value !== 'string') throw new Abort(this.typeError(jsonKind(value), 'string'));
        const err = timeParseError(value, type.kind === 'time' ? RFC3339 : RFC3339_MICRO);
        if (err) throw new Abort(err);
        return;
      }
      case 'intorstring':
        // A quoted value is the string; anything else is decoded into the int32.
        if (typeof value === 'string') return;
        if (typeof value === 'number') {
          if (!fitsInt(lit ?? value, 'int32')) throw new Abort(this.typeError(`number ${lit ?? numberLiteral(value)}`, 'int32'));
          return;
        }
        throw new Abort(this.typeError(jsonKind(value), 'int32'));
      case 'bytes':
        if (typeof value === 'string') {
          const at = base64ErrorOffset(value);
          if (at !== undefined) this.save(`illegal base64 data at input byte ${at}`);
        } else if (Array.isArray(value)) {
          // Go fills a []byte from a JSON array of small numbers as from any other slice.
          value.forEach((item, i) => this.integer(item, 'uint8', literalOf(value, i)));
        } else this.mismatch(value, type);
        return;
      case 'struct':
        if (!isObject(value)) return this.mismatch(value, type);
        return this.structFields(value, type);
      case 'map':
        if (!isObject(value)) return this.mismatch(value, type);
        return this.elements(value, Object.keys(value), type.elem!, false);
      case 'slice':
        if (!Array.isArray(value)) return this.mismatch(value, type);
        return this.elements(value, value, type.elem!, true);
      case 'string':
        if (typeof value !== 'string') this.mismatch(value, type);
        return;
      case 'bool':
        if (typeof value !== 'boolean') this.mismatch(value, type);
        return;
      case 'float64':
        if (typeof value !== 'number') this.mismatch(value, type);
        // Beyond a float64 (1e400): JSON.parse made it Infinity, ParseFloat refuses it.
        else if (!Number.isFinite(value)) this.save(this.typeError(`number ${lit ?? numberLiteral(value)}`, type.name));
        return;
      case 'int32':
      case 'int64':
        this.integer(value, type.kind, lit);
        return;
    }
  }

  /** A struct's members, each into its field; while filling, those without one dropped and nulls zeroed. */
  private structFields(value: Record<string, unknown>, type: GoType): void {
    const fill = this.fill;
    // for-in visits the members as Object.keys lists them (a plain object inherits no enumerable
    // member), skips none for the current one being deleted, and is the quickest walk of them.
    for (const key in value) {
      if (fill) fill.members++;
      // A member named like one of Object.prototype's (__proto__, constructor) is a field only if the struct names it.
      const field = type.fieldMap!.get(key);
      const child = value[key];
      if (!field) {
        // Skipped by Go's decoder; fieldValidation deals with what filling dropped.
        if (fill) {
          fill.unknown.push(this.pathTo(key));
          fill.members += memberCount(child);
          delete value[key];
        }
        continue;
      }
      // null leaves a field at its zero value: optional members are omitted then, required ones keep it.
      if (child === null) {
        if (fill) {
          const zero = type.required!.has(key) ? zeroOf(this.types.of(field).zero) : undefined;
          if (zero !== undefined) value[key] = zero;
          else if (!type.required!.has(key)) delete value[key];
        }
        continue;
      }
      this.steps.push(key);
      this.owners.push(type.structName!);
      this.member(value, key, field, child);
      this.steps.pop();
      this.owners.pop();
    }
  }

  /** A map's values (keys given) or a slice's items (the slice itself given as its keys). */
  private elements(container: Record<string, unknown> | unknown[], keys: readonly unknown[], elem: JsonSchema, list: boolean): void {
    const fill = this.fill;
    if (fill && !list) fill.members += keys.length;
    for (let i = 0; i < keys.length; i++) {
      const key = list ? i : (keys[i] as string);
      const child = (container as Record<string, unknown>)[key];
      if (!fill) {
        this.member(container, key, elem, child);
        continue;
      }
      // A null element takes its type's zero value, unless that is null again.
      if (child === null) {
        const zero = zeroOf(this.types.of(elem).zero);
        if (zero !== undefined) (container as Record<string, unknown>)[key] = zero;
        continue;
      }
      this.steps.push(key);
      this.owners.push(undefined);
      this.member(container, key, elem, child);
      this.steps.pop();
      this.owners.pop();
    }
  }

  /** The path of an unknown member `key` of the struct being filled, as the schema pruner spells it. */
  private pathTo(key: string): string {
    let path = '';
    for (let i = 0; i < this.steps.length; i++) {
      const step = this.steps[i];
      if (typeof step === 'number') path += `[${step}]`;
      else if (this.owners[i] !== undefined) path = path ? `${path}.${step}` : step;
      else path = `${path}.${step}`;
    }
    return path ? `${path}.${key}` : key;
  }

  /**
   * One member of a container. A quantity written as a number is parsed by Go from its literal:
   * 1e3 keeps its exponent form, 1e-400 rounds up to a nano, 1e400 (Infinity to JSON.parse) is a
   * quantity too. Such a number is given back its literal, as text.
   */
  private member(container: Record<string, unknown> | unknown[], key: string | number, schema: JsonSchema, child: unknown): void {
    // Only a number can have a literal that spells it.
    if (typeof child !== 'number') return this.value(child, schema);
    const recorded = literalOf(container, key);
    const lit = recorded !== undefined && spells(recorded, child) ? recorded : undefined;
    this.value(child, schema, lit);
    if (lit !== undefined && this.types.of(schema).kind === 'quantity') {
      Object.defineProperty(container, key, { value: lit, writable: true, enumerable: true, configurable: true });
    }
  }

  private integer(value: unknown, kind: 'int32' | 'int64' | 'uint8', lit?: string): void {
    if (value === null || value === undefined) return;
    if (typeof value === 'number' || typeof value === 'bigint') {
      if (!fitsInt(lit ?? value, kind)) this.save(this.typeError(`number ${lit ?? numberLiteral(value)}`, kind));
      return;
    }
    this.save(this.typeError(jsonKind(value), kind));
  }
}

/**
 * The error decoding `value` into the Go type of `schema` gives (without kube-apiserver's
 * "cannot be handled" wrapping), or undefined when it decodes. Quantities JSON.parse made
 * Infinity get their literal back in `value`.
 */
export function goJsonDecodeError(value: unknown, schema: JsonSchema, types: GoTypes): string | undefined {
  return new Decoder(types).run(value, schema);
}

/**
 * Fills the Go struct of `schema` from `value` as kube's decoder does: the same first complaint
 * as goJsonDecodeError, and, in the same walk, members without a field dropped (their paths in
 * `fill.unknown`) and nulls left as Go leaves them. Once there is a complaint, the value is no
 * longer what Go would hold and is to be thrown away.
 */
export function fillStruct(value: Record<string, unknown>, schema: JsonSchema, types: GoTypes, fill: StructFill): string | undefined {
  return new Decoder(types, fill).run(value, schema);
}
