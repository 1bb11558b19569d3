// A webhook authorizer's matchConditions: CEL expressions over `request`, the SubjectAccessReview
// spec (v1) of the request being authorized, type-checked when the configuration loads
// (k8s.io/apiserver/pkg/authorization/cel). Evaluation is bounded by kube's per-expression cost
// limit (celconfig.PerCallLimit): cel-js has no cost tracker, so every node of the checked tree
// is wrapped to charge one unit per evaluation, plus the size of the strings and lists it
// produces, and evaluation stops with cel-go's error once the budget is spent. Comprehensions
// nested over large lists are thereby cut short, whatever lists they range over. A regular
// expression cannot be metered that way (JavaScript's engine backtracks where cel-go's RE2 does
// not), so matches() patterns must be constants that cannot backtrack exponentially.

import { Environment } from '@marcbachmann/cel-js';
import type { StatusCause } from '../errors/status-error.js';
import * as fe from '../validation/field-errors.js';
import { aggregateMessage } from './aggregate.js';

/** celconfig.PerCallLimit: the runtime cost one expression may spend. */
export const PER_CALL_COST_LIMIT = 1_000_000;
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
  const env = new Environment({ unlistedVariablesAreDyn: false });
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

class CostLimitExceeded extends Error {
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
  }
}

/** The meter of the evaluation under way; evaluation is synchronous, so one suffices. */
const meter = { remaining: 0 };

function charge(units: number): void {
  meter.remaining -= units;
  if (meter.remaining < 0) throw new CostLimitExceeded();
}

/** Strings and lists cost a tenth of a unit per element or character, as cel-go's size-based costs. */
function sizeCost(value: unknown): number {
  if (typeof value === 'string' || Array.isArray(value)) return Math.ceil(value.length / 10);
  return 0;
}

type NodeEvaluate = (ev: unknown, ast: unknown, ctx: unknown) => unknown;
interface CelNode {
  op: string;
  args: unknown;
  meta: { evaluate: NodeEvaluate; alternate?: CelNode; macro?: { args?: unknown; evaluate: NodeEvaluate } };
  evaluate: NodeEvaluate;
}

const isNode = (v: unknown): v is CelNode =>
  typeof v === 'object' && v !== null && typeof (v as CelNode).op === 'string' && typeof (v as CelNode).meta === 'object';

/** Calls `fn` once for every node reachable from `value`: arguments, macro expansions, comprehension parts. */
function eachNode(value: unknown, fn: (node: CelNode) => void, seen = new Set<unknown>()): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return;
  seen.add(value);
  if (Array.isArray(value)) {
    for (const v of value) eachNode(v, fn, seen);
    return;
  }
  if (!isNode(value)) return;
  fn(value);
  const { alternate, macro } = value.meta;
  if (alternate) eachNode(alternate, fn, seen);
  if (macro) eachNode(macro.args, fn, seen);
  const args = value.args;
  if (value.op === 'comprehension' && typeof args === 'object' && args !== null) {
    for (const v of Object.values(args as Record<string, unknown>)) if (isNode(v)) eachNode(v, fn, seen);
  } else {
    eachNode(args, fn, seen);
  }
}

/** Wraps each node's evaluation (after type-checking, which settles each node's evaluator) to charge the meter. */
function meterEvaluation(node: CelNode): void {
  const { alternate, macro } = node.meta;
  let inner: NodeEvaluate;
  if (alternate) inner = (ev, _ast, ctx) => alternate.evaluate(ev, alternate, ctx);
  else if (macro) inner = (ev, _ast, ctx) => macro.evaluate(ev, macro, ctx);
  else inner = node.meta.evaluate;
  node.evaluate = function metered(ev, ast, ctx) {
    charge(1);
    const result = inner.call(node, ev, ast, ctx);
    const extra = sizeCost(result);
    if (extra > 0) charge(extra);
    return result;
  };
}

/**
 * Why a matches() pattern is refused, if it is. cel-go runs RE2, linear in its input; cel-js runs
 * JavaScript's backtracking engine, where a nested quantifier over a user name can take minutes.
 * So patterns must be constants, without what RE2 lacks (backreferences, lookaround) and without
 * a repeated group that itself repeats or alternates.
 */
export function unsafePattern(pattern: string): string | undefined {
  if (/\\[1-9]|\\k</.test(pattern)) return 'backreferences are not supported';
  if (/\(\?<?[=!]/.test(pattern)) return 'lookaround is not supported';
  const groups: { risky: boolean }[] = [];
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
      continue;
    }
    if (c === '[') inClass = true;
    else if (c === '(') groups.push({ risky: false });
    else if (c === '|' || c === '*' || c === '+' || c === '{') {
      if (groups.length > 0) groups[groups.length - 1].risky = true;
    } else if (c === ')') {
      const group = groups.pop();
      const next = pattern[i + 1];
      const repeated = next === '*' || next === '+' || next === '{';
      if (group?.risky && repeated) return 'a repeated group that repeats or alternates inside may backtrack exponentially';
      if (group?.risky && groups.length > 0) groups[groups.length - 1].risky = true;
    }
  }
  return undefined;
}

/** The first matches() call whose pattern is not a safe constant, described. */
function unsafeMatches(root: unknown): string | undefined {
  let problem: string | undefined;
  eachNode(root, (node) => {
    if (problem || node.op !== 'rcall' || !Array.isArray(node.args) || node.args[0] !== 'matches') return;
    const pattern = (node.args[2] as unknown[] | undefined)?.[0];
    if (!isNode(pattern) || pattern.op !== 'value' || typeof pattern.args !== 'string') {
      problem = 'matches() needs a constant pattern here, since a pattern taken from the request could backtrack exponentially';
      return;
    }
    const why = unsafePattern(pattern.args);
    if (why) problem = `matches() pattern ${JSON.stringify(pattern.args)} refused: ${why}`;
  });
  return problem;
}

export interface CompiledCondition {
  expression: string;
  evaluate(vars: { request: MatchRequest }): unknown;
}

/** Compiles one expression: parse, type-check against `request`, require bool. */
export function compileCondition(expression: string): CompiledCondition | { error: string } {
  environment ??= requestEnvironment();
  let program: ReturnType<Environment['parse']>;
  try {
    program = environment.parse(expression);
  } catch (err) {
    return { error: `compilation failed: ${firstLine(err)}` };
  }
  const checked = program.check();
  if (!checked.valid) return { error: `compilation failed: ${firstLine(checked.error)}` };
  if (checked.type !== 'bool') return { error: `must evaluate to bool but got ${checked.type}` };
  const unsafe = unsafeMatches(program.ast);
  if (unsafe) return { error: `compilation failed: ${unsafe}` };
  eachNode(program.ast, meterEvaluation);
  return { expression, evaluate: (vars) => program(vars) };
}

function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0];
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
    let result: unknown;
    meter.remaining = PER_CALL_COST_LIMIT;
    try {
      result = condition.evaluate({ request });
    } catch (err) {
      errors.push(`cel evaluation error: expression '${condition.expression}' resulted in error: ${firstLine(err)}`);
      continue;
    }
    if (typeof result !== 'boolean') {
      errors.push(`cel evaluation error: expression '${condition.expression}' eval result type should be bool but got ${typeof result}`);
      continue;
    }
    if (!result) return { matches: false };
  }
  if (errors.length > 0) return { matches: false, error: aggregateMessage(errors) };
  return { matches: true };
}
