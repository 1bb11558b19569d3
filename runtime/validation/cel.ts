// CEL rules of a type (like CRD x-kubernetes-validations): `self` is the object of the type,
// `oldSelf` the previous object on update (rules naming oldSelf are transition rules and only run
// when an old value exists). `root` is the whole object under validation, for a rule deep inside
// it that depends on a top-level field (an EndpointSlice address and the slice's addressType).
// Each rule is parsed once, on its first evaluation: the generated modules hold hundreds of
// rules (a Pod's alone fill pages), and parsing them all at load time cost start-up time and
// memory for kinds a server may never see. The generator has already checked that they parse.

import { parse } from '@marcbachmann/cel-js';
import type { StatusCause } from '../errors/status-error.js';
import * as fe from './field-errors.js';
import { FORMAT_CHECKS } from '../machinery/formats.js';
import { formatCauses } from './format-causes.js';
import { childPath } from './type-table.js';

export interface RuleSpec {
  rule: string;
  message?: string;
  /** Relative path from self, e.g. `.data` or `.spec.items`. */
  fieldPath?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate' | 'FieldValueNotSupported' | 'FieldValueTooLong';
  /** The values a FieldValueNotSupported cause lists. */
  supported?: string[];
  /** With reason FieldValueTooLong: the limit the message names. */
  limit?: number;
  /** When set, `rule` is a guard: while it holds, the value at fieldPath must match this named format. */
  format?: string;
  /** CEL giving the bad value shown in the message, instead of the value at fieldPath. */
  valueExpr?: string;
  /** Checked only as declarative validation, beside its hand-written twin (runtime/registry/declarative.ts). */
  declarative?: boolean;
}

/** A default chosen by a CEL condition over the object holding the field. */
export interface ConditionalDefault {
  when: string;
  value: unknown;
}

export interface CompiledDefault extends ConditionalDefault {
  holds: (holder: unknown) => boolean;
}

type Evaluate = (vars: Record<string, unknown>) => unknown;

/** A CEL program parsed on its first call. */
function parsedOnFirstUse(source: string): Evaluate {
  let program: Evaluate | undefined;
  return (vars) => {
    program ??= parse(source) as unknown as Evaluate;
    return program(vars);
  };
}

export function compileDefault(spec: ConditionalDefault): CompiledDefault {
  const evaluate = parsedOnFirstUse(spec.when);
  return {
    ...spec,
    holds: (holder) => {
      try {
        return evaluate({ self: holder }) === true;
      } catch {
        // A condition over a partly absent object (no such key) simply does not apply.
        return false;
      }
    },
  };
}

export interface CompiledRule extends RuleSpec {
  evaluate: Evaluate;
  badValue?: Evaluate;
  transition: boolean;
}

export function compileRule(spec: RuleSpec): CompiledRule {
  const evaluate = parsedOnFirstUse(spec.rule);
  const badValue = spec.valueExpr ? parsedOnFirstUse(spec.valueExpr) : undefined;
  return { ...spec, evaluate, ...(badValue ? { badValue } : {}), transition: /\boldSelf\b/.test(spec.rule) };
}

/** CEL values in JSON terms (maps to objects, BigInts to numbers), for echoing them in messages. */
function fromCel(value: unknown): unknown {
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), fromCel(v)]));
  if (Array.isArray(value)) return value.map(fromCel);
  return value;
}

function valueAtFieldPath(self: unknown, fieldPath: string): unknown {
  let cur = self;
  for (const seg of fieldPath.split('.').filter(Boolean)) {
    cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[seg] : undefined;
  }
  return cur;
}

/** Evaluates one rule at `path`; returns the causes when it does not hold. */
export function checkRuleCauses(rule: CompiledRule, path: string, self: unknown, oldSelf: unknown, root?: unknown): StatusCause[] {
  if (!rule.format) {
    const cause = checkRule(rule, path, self, oldSelf, root);
    return cause ? [cause] : [];
  }
  const at = rule.fieldPath ? rule.fieldPath.split('.').filter(Boolean).reduce(childPath, path) : path;
  let applies: unknown;
  try {
    applies = rule.evaluate(vars(rule, self, oldSelf, root));
  } catch {
    // The guard names a field that is absent: the format check has nothing to look at.
    applies = false;
  }
  if (applies !== true) return [];
  if (!FORMAT_CHECKS[rule.format]) return [fe.internal(at, `unknown format ${rule.format}`)];
  // valueExpr names what to check when it is not the value at the reported path (a list's
  // strings reported at their owner, as CSINode's topologyKeys are).
  let value: unknown = valueAtFieldPath(self, rule.fieldPath ?? '');
  if (rule.badValue) {
    try {
      value = fromCel(rule.badValue(vars(rule, self, oldSelf, root)));
    } catch {
      value = undefined;
    }
  }
  const values = Array.isArray(value) ? value : [value];
  return values.flatMap((v) => (typeof v === 'string' ? formatCauses(rule.format as string, at, v) : []));
}

/** Evaluates one rule at `path`; returns the cause when it does not hold. */
function vars(rule: CompiledRule, self: unknown, oldSelf: unknown, root: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = rule.transition ? { self, oldSelf } : { self };
  if (root !== undefined) out.root = root;
  return out;
}

export function checkRule(rule: CompiledRule, path: string, self: unknown, oldSelf: unknown, root?: unknown): StatusCause | undefined {
  const at = rule.fieldPath ? rule.fieldPath.split('.').filter(Boolean).reduce(childPath, path) : path;
  let result: unknown;
  try {
    result = rule.evaluate(vars(rule, self, oldSelf, root));
  } catch (err) {
    return fe.internal(at, `rule ${JSON.stringify(rule.rule)} could not be evaluated: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  if (result === true) return undefined;
  const message = rule.message ?? `failed rule: ${rule.rule}`;
  const shown = (): unknown => {
    if (rule.badValue) {
      try {
        return fromCel(rule.badValue(vars(rule, self, oldSelf, root)));
      } catch {
        // Fall back to the value at fieldPath when the expression cannot be evaluated.
      }
    }
    return valueAtFieldPath(self, rule.fieldPath ?? '');
  };
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return fe.forbidden(at, message);
    case 'FieldValueRequired':
      // Go's field.Required mostly has no detail; a rule without a message mirrors that.
      return fe.required(at, rule.message ?? '');
    case 'FieldValueNotSupported':
      // The rules that list supported values are about strings, whose Go zero value is "".
      return fe.notSupported(at, shown() ?? '', rule.supported ?? []);
    case 'FieldValueDuplicate':
      return fe.duplicate(at, shown());
    case 'FieldValueTooLong':
      return fe.tooLong(at, rule.limit ?? -1);
    default:
      return fe.invalid(at, shown() ?? null, message);
  }
}
