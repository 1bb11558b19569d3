// The oracle of fill-struct.test.ts: the sequence of walks readObject made over a decoded body
// before they became one (session 12), kept here only to compare the one walk with. The Go type
// check is the decoder as it was then; the pruner, the null pass and the member count are the
// runtime's own, which still serve patches and custom resources.

import type { JsonSchema } from '../../runtime/machinery/openapi-schema.js';
import { generatedSchemaIndex } from '../../runtime/machinery/openapi-schema.js';
import { base64ErrorOffset } from '../../runtime/machinery/go-base64.js';
import { quantityParseError } from '../../runtime/machinery/go-decode/go-quantity.js';
import { RFC3339, RFC3339_MICRO, timeParseError } from '../../runtime/machinery/go-decode/go-time.js';
import { fitsInt, GoTypes, jsonKind, numberLiteral, type GoType } from '../../runtime/machinery/go-decode/go-types.js';
import { literalOf, spells } from '../../runtime/machinery/go-decode/number-literals.js';
import { memberCount } from '../../runtime/machinery/go-decode/member-count.js';
import { pruneUnknownFields } from '../../runtime/registry/unknown-fields.js';
import { dropNullMembers } from '../../runtime/registry/null-members.js';

/** Raised when an UnmarshalJSON method fails: decoding ends there. */
class Abort {
  constructor(readonly message: string) {}
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

class Decoder {
  private readonly stack: string[] = [];
  private struct = '';
  private saved: string | undefined;

  constructor(private readonly types: GoTypes) {}

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
    if (this.struct !== '' || this.stack.length > 0) return `json: cannot unmarshal ${what} into Go struct field ${this.struct}.${this.stack.join('.')} of type ${type}`;
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
        for (const [key, child] of Object.entries(value)) {
          const field = type.fields![key];
          // Fields the struct does not have are skipped here; fieldValidation deals with them.
          if (!field) continue;
          const outerStruct = this.struct;
          this.stack.push(key);
          this.struct = type.structName!;
          this.member(value, key, field);
          this.stack.pop();
          this.struct = outerStruct;
        }
        return;
      case 'map':
        if (!isObject(value)) return this.mismatch(value, type);
        for (const key of Object.keys(value)) this.member(value, key, type.elem!);
        return;
      case 'slice':
        if (!Array.isArray(value)) return this.mismatch(value, type);
        value.forEach((_, i) => this.member(value, i, type.elem!));
        return;
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

  /**
   * One member of a container. A quantity written as a number is parsed by Go from its literal:
   * 1e3 keeps its exponent form, 1e-400 rounds up to a nano, 1e400 (Infinity to JSON.parse) is a
   * quantity too. Such a number is given back its literal, as text.
   */
  private member(container: Record<string, unknown> | unknown[], key: string | number, schema: JsonSchema): void {
    const child = (container as Record<string, unknown>)[key];
    const recorded = literalOf(container, key);
    const lit = recorded !== undefined && spells(recorded, child) ? recorded : undefined;
    this.value(child, schema, lit);
    if (typeof child === 'number' && lit !== undefined && this.types.of(schema).kind === 'quantity') {
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
export function oldGoJsonDecodeError(value: unknown, schema: JsonSchema, types: GoTypes): string | undefined {
  return new Decoder(types).run(value, schema);
}

/** What the old sequence made of a body (its apiVersion and kind filled in): a complaint, or what it dropped and counted. */
export interface OldDecoding {
  error?: string;
  unknown?: string[];
  members: number;
}

/**
 * The old readObject's steps after the type fields were filled: the member count of the body as
 * parsed (`held`, taken before filling), the type check, then the pruner and the null pass when
 * it found nothing.
 */
let types: GoTypes | undefined;

export function oldDecode(openAPIName: string, obj: Record<string, unknown>, held: number): OldDecoding {
  const index = generatedSchemaIndex();
  const schema = index.component(openAPIName)!;
  const error = oldGoJsonDecodeError(obj, { $ref: `#/components/schemas/${openAPIName}` }, (types ??= new GoTypes(index)));
  if (error) return { error, members: held };
  const unknown = pruneUnknownFields(obj, schema, index);
  dropNullMembers(obj, schema, index);
  return { unknown, members: held };
}

export { memberCount };
