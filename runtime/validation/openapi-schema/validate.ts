// Validation of a value against a compiled schema with kube-openapi's semantics (its
// pkg/validation/validate SchemaValidator, which kube-apiserver runs on every custom resource) and
// the causes kube-apiserver turns its errors into (apiextensions-apiserver
// pkg/apiserver/validation kubeOpenAPIResultToFieldErrors). Names inside messages are
// kube-openapi's (`spec.ports[1].port in body ...`); a cause's field is that name under `base`.
//
// The checks run in kube-openapi's order for one value: type, allOf/anyOf/oneOf/not, string,
// format, number, array, enum, object.

import type { StatusCause } from '../../errors/status-error.js';
import { goQuote } from '../../machinery/go-format.js';
import * as c from './causes.js';
import { formatCheck } from './formats.js';
import { goFloat, goNumber, isGoInt } from './go-print.js';
import { goMarshal, jsonEqual } from './json.js';
import type { SchemaNode } from './structural.js';

const FLOAT_INT_LIMIT = 2 ** 53;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON type kube-openapi sees for a decoded value, and the format it infers for numbers. */
function schemaType(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      return isGoInt(value) ? 'integer' : 'number';
    default:
      return Array.isArray(value) ? 'array' : 'object';
  }
}

function inferredFormat(type: string): string {
  return type === 'integer' ? 'int64' : type === 'number' ? 'float64' : '';
}

/** The enum's values as NotSupported lists them: strings as they are, anything else as Go's json.Marshal writes it. */
function enumTexts(values: readonly unknown[]): string[] {
  return values.map((v) => (typeof v === 'string' ? v : goMarshal(v)));
}

/** The stored value at the place being validated, on update. */
export interface Old {
  value: unknown;
}

/**
 * The stored item a new item of a list-type map corresponds to: the one with the same keys (only
 * map lists correlate items; an atomic or set list item has no old counterpart of its own).
 */
function oldListMapItem(oldItems: unknown[], item: unknown, keys: readonly string[]): Old | undefined {
  if (!isObject(item) || keys.length === 0) return undefined;
  for (const candidate of oldItems) {
    if (isObject(candidate) && keys.every((k) => Object.hasOwn(item, k) === Object.hasOwn(candidate, k) && jsonEqual(item[k], candidate[k]))) {
      return { value: candidate };
    }
  }
  return undefined;
}

export class SchemaValidator {
  /** @param base the field path the names are under ('' for a custom resource, whose root errors kube reports at `<nil>`). */
  constructor(private readonly base: string) {}

  /** kube's errPath: the name under base (an empty name is base itself). */
  private field(name: string): string {
    if (!this.base) return name || '<nil>';
    return name ? `${this.base}.${name}` : this.base;
  }

  /** A composite error (anyOf, oneOf, allOf, not) is no field error: kube reports it at base, with an empty value. */
  private composite(message: string): StatusCause {
    return c.invalid(this.base || '<nil>', '', message);
  }

  /**
   * Checks `value` against `node`. With `old` (on update, the value at the same place in the stored
   * object, when there is one) errors of a value equal to its old value are dropped: kube's
   * validation ratcheting, so objects stored under an older, looser schema can still be updated
   * elsewhere.
   */
  validate(node: SchemaNode, value: unknown, name: string, out: StatusCause[], old?: Old): void {
    if (old === undefined) {
      this.check(node, value, name, out, undefined);
      return;
    }
    const before = out.length;
    this.check(node, value, name, out, old);
    if (out.length > before && jsonEqual(value, old.value)) out.length = before;
  }

  private check(node: SchemaNode, value: unknown, name: string, out: StatusCause[], old: Old | undefined): void {
    if (value === null || value === undefined) {
      if (node.types.length > 0 && !node.nullable) {
        out.push(c.typeInvalid(this.field(name), 'null', `${name} in body must be of type ${node.types.join(',')}: "null"`));
      }
      if (node.enum) out.push(c.notSupported(this.field(name), null, enumTexts(node.enum)));
      return;
    }
    const type = schemaType(value);
    if (node.types.length > 0 || node.format !== '') this.checkType(node, value, type, name, out);
    if (node.hasValueChecks) {
      if (node.allOf || node.anyOf || node.oneOf || node.not) this.checkJunctors(node, value, name, out, old);
      if (type === 'string') this.checkString(node, value as string, name, out);
      else if (type === 'integer' || type === 'number') this.checkNumber(node, value as number, name, out);
    }
    if (type === 'array') this.checkArray(node, value as unknown[], name, out, old);
    if (node.enum && !node.enum.some((e) => jsonEqual(e, value))) out.push(c.notSupported(this.field(name), value, enumTexts(node.enum)));
    if (type === 'object') this.checkObject(node, value as Record<string, unknown>, name, out, old);
  }

  private checkType(node: SchemaNode, value: unknown, type: string, name: string, out: StatusCause[]): void {
    const { types, format } = node;
    const isIntFloat = type === 'integer' && types.includes('number');
    const inferred = inferredFormat(type);
    if (type !== 'string' && type !== 'array' && format !== '' && !(types.includes(type) || inferred === format || isIntFloat)) {
      out.push(c.typeInvalid(this.field(name), inferred, `${name} in body must be of type ${format}: ${goQuote(inferred)}`));
      return;
    }
    if (!types.includes('number') && !types.includes('integer') && format !== '' && (type === 'string' || type === 'array')) return;
    if (!(types.includes(type) || isIntFloat)) {
      out.push(c.typeInvalid(this.field(name), type, `${name} in body must be of type ${types.join(',')}: ${goQuote(type)}`));
    }
  }

  private checkJunctors(node: SchemaNode, value: unknown, name: string, out: StatusCause[], old: Old | undefined): void {
    const path = goQuote(name);
    if (node.anyOf) {
      let best: StatusCause[] | undefined;
      let passed = false;
      for (const branch of node.anyOf) {
        const errs: StatusCause[] = [];
        this.validate(branch, value, name, errs, old);
        if (errs.length === 0) {
          passed = true;
          break;
        }
        // kube-openapi reports the branch that came closest; fewest errors stands in for its match count.
        if (!best || errs.length < best.length) best = errs;
      }
      if (!passed) {
        out.push(this.composite(`${path} must validate at least one schema (anyOf)`));
        if (best) c.appendAll(out, best);
      }
    }
    if (node.oneOf) {
      let valid = 0;
      let best: StatusCause[] | undefined;
      for (const branch of node.oneOf) {
        const errs: StatusCause[] = [];
        this.validate(branch, value, name, errs, old);
        if (errs.length === 0) valid++;
        else if (valid === 0 && (!best || errs.length < best.length)) best = errs;
      }
      if (valid !== 1) {
        const detail = valid === 0 ? 'Found none valid' : `Found ${valid} valid alternatives`;
        out.push(this.composite(`${path} must validate one and only one schema (oneOf). ${detail}`));
        if (valid === 0 && best) c.appendAll(out, best);
      }
    }
    if (node.allOf) {
      let valid = 0;
      for (const branch of node.allOf) {
        const before = out.length;
        this.validate(branch, value, name, out, old);
        if (out.length === before) valid++;
      }
      if (valid !== node.allOf.length) {
        out.push(this.composite(`${path} must validate all the schemas (allOf)${valid === 0 ? '. None validated' : ''}`));
      }
    }
    if (node.not) {
      const errs: StatusCause[] = [];
      this.validate(node.not, value, name, errs, old);
      if (errs.length === 0) out.push(this.composite(`${path} must not validate the schema (not)`));
    }
  }

  private checkString(node: SchemaNode, value: string, name: string, out: StatusCause[]): void {
    const failure = this.stringFailure(node, value, name);
    if (failure) out.push(failure);
    if (node.format !== '') {
      const check = formatCheck(node.format);
      if (check && !check(value)) out.push(c.typeInvalid(this.field(name), value, `${name} in body must be of type ${node.format}: ${goQuote(value)}`));
    }
  }

  /** The first of maxLength, minLength and pattern that fails, as kube-openapi's string validator stops there. */
  private stringFailure(node: SchemaNode, value: string, name: string): StatusCause | undefined {
    // Go counts runes, a JavaScript string UTF-16 units (one or two a rune): count only when the two can disagree.
    if (node.maxLength !== undefined && value.length > node.maxLength && runeCount(value) > node.maxLength) {
      return c.tooLong(this.field(name), node.maxLength);
    }
    if (node.minLength !== undefined && value.length < node.minLength * 2 && runeCount(value) < node.minLength) {
      return c.invalid(this.field(name), value, `${name} in body should be at least ${node.minLength} chars long`);
    }
    if (node.regexp && !node.regexp.test(value)) return c.invalid(this.field(name), value, `${name} in body should match '${node.pattern}'`);
    return undefined;
  }

  private checkNumber(node: SchemaNode, value: number, name: string, out: StatusCause[]): void {
    const asInt = isGoInt(value);
    const bound = (b: number): string => (asInt ? goNumber(Math.trunc(b)) : goFloat(b));
    if (node.multipleOf !== undefined) {
      const factor = node.multipleOf;
      if (factor <= 0) {
        out.push(c.invalid(this.field(name), factor, `factor MultipleOf declared for ${name} must be positive: ${goFloat(factor)}`));
      } else if (asInt && Number.isInteger(factor)) {
        if (value % factor !== 0) out.push(c.invalid(this.field(name), value, `${name} in body should be a multiple of ${goNumber(factor)}`));
      } else {
        const mult = factor < 1 ? (1 / factor) * value : value / factor;
        if (!(Number.isInteger(mult) && Math.abs(mult) <= FLOAT_INT_LIMIT)) {
          out.push(c.invalid(this.field(name), value, `${name} in body should be a multiple of ${goFloat(factor)}`));
        }
      }
    }
    if (node.minimum !== undefined) {
      const min = asInt ? Math.trunc(node.minimum) : node.minimum;
      if (node.exclusiveMinimum ? value <= min : value < min) {
        const rel = node.exclusiveMinimum ? 'greater than' : 'greater than or equal to';
        out.push(c.invalid(this.field(name), value, `${name} in body should be ${rel} ${bound(node.minimum)}`));
      }
    }
    if (node.maximum !== undefined) {
      const max = asInt ? Math.trunc(node.maximum) : node.maximum;
      if (node.exclusiveMaximum ? value >= max : value > max) {
        const rel = node.exclusiveMaximum ? 'less than' : 'less than or equal to';
        out.push(c.invalid(this.field(name), value, `${name} in body should be ${rel} ${bound(node.maximum)}`));
      }
    }
  }

  private checkArray(node: SchemaNode, value: unknown[], name: string, out: StatusCause[], old: Old | undefined): void {
    if (node.items) {
      const items = node.items;
      const oldItems = old && Array.isArray(old.value) && node.listType === 'map' ? old.value : undefined;
      for (let i = 0; i < value.length; i++) {
        if (items.scalarPass?.(value[i])) continue;
        this.validate(items, value[i], `${name}[${i}]`, out, oldItems && oldListMapItem(oldItems, value[i], node.listMapKeys ?? []));
      }
    }
    if (node.minItems !== undefined && value.length < node.minItems) {
      out.push(c.invalid(this.field(name), value.length, `${name} in body should have at least ${node.minItems} items`));
    }
    if (node.maxItems !== undefined && value.length > node.maxItems) out.push(c.tooMany(this.field(name), value.length, node.maxItems));
  }

  private checkObject(node: SchemaNode, value: Record<string, unknown>, name: string, out: StatusCause[], old: Old | undefined): void {
    const oldObj = old && isObject(old.value) ? old.value : undefined;
    const oldAt = (key: string): Old | undefined => (oldObj && Object.hasOwn(oldObj, key) ? { value: oldObj[key] } : undefined);
    if (node.minProperties !== undefined || node.maxProperties !== undefined || node.additionalProperties !== undefined) {
      const keys = Object.keys(value);
      if (node.minProperties !== undefined && keys.length < node.minProperties) {
        out.push(c.invalid(this.field(name), keys.length, `${name} in body should have at least ${node.minProperties} properties`));
      }
      if (node.maxProperties !== undefined && keys.length > node.maxProperties) out.push(c.tooMany(this.field(name), keys.length, node.maxProperties));
      const extra = node.additionalProperties;
      if (extra === false) {
        for (const key of keys) {
          if (!node.properties?.has(key)) out.push(c.invalid(this.field(name), key, `${name}.${key} in body is a forbidden property`));
        }
      } else if (isObject(extra)) {
        const values = extra as SchemaNode;
        for (const key of keys) {
          if (node.properties?.has(key) || values.scalarPass?.(value[key])) continue;
          this.validate(values, value[key], `${name}.${key}`, out, oldAt(key));
        }
      }
    }
    if (node.properties) {
      for (const [key, child] of node.properties) {
        // A scalar that passes needs neither its field name nor its old value.
        if (!Object.hasOwn(value, key) || child.scalarPass?.(value[key])) continue;
        this.validate(child, value[key], name ? `${name}.${key}` : key, out, oldAt(key));
      }
    }
    if (node.required) {
      for (const key of node.required) {
        if (!Object.hasOwn(value, key)) out.push(c.required(this.field(name ? `${name}.${key}` : key)));
      }
    }
  }
}

function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    // A surrogate pair is one rune.
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < s.length) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    n++;
  }
  return n;
}
