// A webhook authorizer's matchConditions: CEL expressions over `request`, the SubjectAccessReview
// spec (v1) of the request being authorized, type-checked when the configuration loads
// (k8s.io/apiserver/pkg/authorization/cel) in kube's base environment with its libraries (strings,
// lists, sets, regex, urls, quantity, ip, cidr, format, optional types: runtime/validation/kube-cel).
// Errors read as cel-go's. Evaluation is metered against kube's per-expression cost limit
// (celconfig.PerCallLimit) and regular expressions run in linear time, so neither comprehensions
// over large lists nor patterns taken from the request can hold the authorizer up.

import type { Environment } from '@marcbachmann/cel-js';
import type { StatusCause } from '../errors/status-error.js';
import * as fe from '../validation/field-errors.js';
import { celGoEvalError, celGoIssue, kubeEnvironment, parseRule, invalidRegexLiteral } from '../validation/kube-cel/environment.js';
import { instrument, PER_CALL_LIMIT, runMetered } from '../validation/kube-cel/runtime-cost.js';
import { aggregateMessage } from './aggregate.js';

/** celconfig.PerCallLimit: the runtime cost one expression may spend. */
export const PER_CALL_COST_LIMIT = PER_CALL_LIMIT;
export const MAX_MATCH_CONDITIONS = 64;

/** The variables of one evaluation: `request` as convertObjectToUnstructured builds it. */
export interface MatchRequest {
  user: string;
  uid: string;
  groups: string[];
  extra: Record<string, string[]>;
  resourceAttributes?: Record<string, string>;
  nonResourceAttributes?: { path: string; verb: string };
}

function requestEnvironment(): Environment {
  const env = kubeEnvironment();
  env.registerType('kubernetes.ResourceAttributes', {
    fields: { namespace: 'string', verb: 'string', group: 'string', version: 'string', resource: 'string', subresource: 'string', name: 'string' },
  });
  env.registerType('kubernetes.NonResourceAttributes', { fields: { path: 'string', verb: 'string' } });
  env.registerType('kubernetes.SubjectAccessReviewSpec', {
    fields: {
      resourceAttributes: 'kubernetes.ResourceAttributes',
      nonResourceAttributes: 'kubernetes.NonResourceAttributes',
      user: 'string',
      groups: 'list<string>',
      extra: 'map<string, list<string>>',
      uid: 'string',
    },
  });
  env.registerVariable('request', 'kubernetes.SubjectAccessReviewSpec');
  return env;
}

let environment: Environment | undefined;

export interface CompiledCondition {
  expression: string;
  evaluate(vars: { request: MatchRequest }): unknown;
}

/** Compiles one expression: parse, type-check against `request`, require bool. */
export function compileCondition(expression: string): CompiledCondition | { error: string } {
  environment ??= requestEnvironment();
  let program: ReturnType<Environment['parse']>;
  try {
    program = parseRule(environment, expression);
  } catch (err) {
    return { error: `compilation failed: ${celGoIssue(err, expression)}` };
  }
  const checked = program.check();
  if (!checked.valid) return { error: `compilation failed: ${celGoIssue(checked.error, expression)}` };
  const invalidRegex = invalidRegexLiteral(program.ast, expression);
  if (invalidRegex) return { error: `compilation failed: ${invalidRegex}` };
  if (checked.type !== 'bool') return { error: `must evaluate to bool but got ${checked.type}` };
  instrument(program.ast);
  return { expression, evaluate: (vars) => program(vars) };
}

export interface MatchConditions {
  conditions: CompiledCondition[];
  causes: StatusCause[];
}

/** compileMatchConditions: at most 64, none blank or repeated, each compiling to bool. */
export function compileMatchConditions(expressions: readonly string[], path: string): MatchConditions {
  if (expressions.length > MAX_MATCH_CONDITIONS) return { conditions: [], causes: [fe.tooMany(path, expressions.length, MAX_MATCH_CONDITIONS)] };
  const causes: StatusCause[] = [];
  const conditions: CompiledCondition[] = [];
  const seen = new Set<string>();
  expressions.forEach((expression, i) => {
    const at = `${path}[${i}].expression`;
    if (expression.trim() === '') return causes.push(fe.required(at));
    if (seen.has(expression)) return causes.push(fe.duplicate(at, expression));
    seen.add(expression);
    const compiled = compileCondition(expression);
    if ('error' in compiled) return causes.push(fe.invalid(at, expression, compiled.error));
    conditions.push(compiled);
  });
  return { conditions, causes };
}

/**
 * CELMatcher.Eval: the first false skips the webhook; otherwise any error fails the match with
 * every error; otherwise it matches.
 */
export function evaluateMatchConditions(conditions: readonly CompiledCondition[], request: MatchRequest): { matches: boolean; error?: string } {
  const errors: string[] = [];
  for (const condition of conditions) {
    const run = runMetered(PER_CALL_COST_LIMIT, () => condition.evaluate({ request }));
    if (run.error !== undefined) {
      errors.push(`cel evaluation error: expression '${condition.expression}' resulted in error: ${celGoEvalError(run.error)}`);
      continue;
    }
    const result = run.value;
    if (typeof result !== 'boolean') {
      errors.push(`cel evaluation error: expression '${condition.expression}' eval result type should be bool but got ${typeof result}`);
      continue;
    }
    if (!result) return { matches: false };
  }
  if (errors.length > 0) return { matches: false, error: aggregateMessage(errors) };
  return { matches: true };
}
