// CEL rules of a type (like CRD x-kubernetes-validations): `self` is the object of the type,
// `oldSelf` the previous object on update (rules naming oldSelf are transition rules and only run
// when an old value exists). Rules are parsed once, when the generated module loads.

import { parse } from '@marcbachmann/cel-js';
import type { StatusCause } from '../errors/status-error.js';
import * as fe from './field-errors.js';
import { childPath } from './type-table.js';

export interface RuleSpec {
  rule: string;
  message?: string;
  /** Relative path from self, e.g. `.data` or `.spec.items`. */
  fieldPath?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

export interface CompiledRule extends RuleSpec {
  evaluate: (vars: Record<string, unknown>) => unknown;
  transition: boolean;
}

export function compileRule(spec: RuleSpec): CompiledRule {
  const evaluate = parse(spec.rule) as unknown as (vars: Record<string, unknown>) => unknown;
  return { ...spec, evaluate, transition: /\boldSelf\b/.test(spec.rule) };
}

function valueAtFieldPath(self: unknown, fieldPath: string): unknown {
  let cur = self;
  for (const seg of fieldPath.split('.').filter(Boolean)) {
    cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[seg] : undefined;
  }
  return cur;
}

/** Evaluates one rule at `path`; returns the cause when it does not hold. */
export function checkRule(rule: CompiledRule, path: string, self: unknown, oldSelf: unknown): StatusCause | undefined {
  const at = rule.fieldPath ? rule.fieldPath.split('.').filter(Boolean).reduce(childPath, path) : path;
  let result: unknown;
  try {
    result = rule.evaluate(rule.transition ? { self, oldSelf } : { self });
  } catch (err) {
    return fe.internal(at, `rule ${JSON.stringify(rule.rule)} could not be evaluated: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  if (result === true) return undefined;
  const message = rule.message ?? `failed rule: ${rule.rule}`;
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return fe.forbidden(at, message);
    case 'FieldValueRequired':
      return fe.required(at, message);
    case 'FieldValueDuplicate':
      return fe.duplicate(at, valueAtFieldPath(self, rule.fieldPath ?? ''));
    default:
      return fe.invalid(at, valueAtFieldPath(self, rule.fieldPath ?? '') ?? null, message);
  }
}
