// Runtime cost of CEL evaluation, as cel-go's cost tracker counts it closely enough to give its
// verdicts: cel-js has no tracker, so every node of a checked tree is wrapped to charge one unit
// per evaluation (literals are free), plus a tenth of a unit per character or element of the
// strings and lists it produces; a regular expression costs the length of its input times a
// quarter of its own length (cel-go's RegexStringLengthCostFactor). Evaluation stops with
// cel-go's error once the call's limit is spent, so comprehensions nested over large lists are
// cut short whatever they range over. The same wrapping runs matches() on Go's regexp (../re2).

import { compileGoRegexp, GoRegexpError } from '../re2/index.js';
import { orderListsForEquality } from './list-equality.js';

/** celconfig.PerCallLimit: the runtime cost one expression may spend. */
export const PER_CALL_LIMIT = 1_000_000;
/** celconfig.RuntimeCELCostBudget: what all rules over one custom resource may spend together. */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;

export const COST_LIMIT_MESSAGE = 'operation cancelled: actual cost limit exceeded';

export class CostLimitExceeded extends Error {
  constructor() {
    super(COST_LIMIT_MESSAGE);
  }
}

/** The meter of the evaluation under way; evaluation is synchronous, so one suffices. */
const meter = { remaining: 0, used: 0 };

export function charge(units: number): void {
  meter.used += units;
  meter.remaining -= units;
  if (meter.remaining < 0) throw new CostLimitExceeded();
}

/** Strings and lists cost a tenth of a unit per element or character, as cel-go's size-based costs. */
function sizeCost(value: unknown): number {
  if (typeof value === 'string' || Array.isArray(value)) return Math.ceil(value.length / 10);
  return 0;
}

export type NodeEvaluate = (ev: unknown, ast: unknown, ctx: unknown) => unknown;
export interface CelNode {
  op: string;
  args: unknown;
  pos?: number;
  input?: string;
  meta: { evaluate: NodeEvaluate; alternate?: CelNode; macro?: { args?: unknown; evaluate: NodeEvaluate } };
  evaluate: NodeEvaluate;
}

export const isNode = (v: unknown): v is CelNode =>
  typeof v === 'object' && v !== null && typeof (v as CelNode).op === 'string' && typeof (v as CelNode).meta === 'object';

/**
 * Calls `fn` once for every node reachable from `value`: arguments, macro expansions,
 * comprehension parts. Iterative, so a long `a && b && ...` chain cannot exhaust the stack.
 */
export function eachNode(value: unknown, fn: (node: CelNode) => void): void {
  const seen = new Set<unknown>();
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null || seen.has(v)) continue;
    seen.add(v);
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push(v[i]);
      continue;
    }
    if (!isNode(v)) continue;
    fn(v);
    const { alternate, macro } = v.meta;
    const args = v.args;
    if (v.op === 'comprehension' && typeof args === 'object' && args !== null) {
      for (const x of Object.values(args as Record<string, unknown>)) if (isNode(x)) stack.push(x);
    } else {
      stack.push(args);
    }
    if (macro) stack.push(macro.args);
    if (alternate) stack.push(alternate);
  }
}

interface Runner {
  run(ast: unknown, ctx: unknown): unknown;
}

const REGEX_FUNCTIONS = new Set(['matches']);

/** The receiver and pattern nodes of a matches() call, in either call form. */
function regexOperands(node: CelNode): [CelNode, CelNode] | undefined {
  const args = node.args as unknown[];
  if (node.op === 'rcall' && REGEX_FUNCTIONS.has(args[0] as string)) {
    const pattern = (args[2] as unknown[])[0];
    if (isNode(args[1]) && isNode(pattern)) return [args[1], pattern];
  }
  if (node.op === 'call' && REGEX_FUNCTIONS.has(args[0] as string)) {
    const [s, p] = args[1] as unknown[];
    if (isNode(s) && isNode(p)) return [s, p];
  }
  return undefined;
}

/** Wraps each node's evaluation (after type-checking, which settles each node's evaluator) to charge the meter. */
function meterNode(node: CelNode): void {
  const { alternate, macro } = node.meta;
  let inner: NodeEvaluate;
  if (alternate) inner = (ev, _ast, ctx) => alternate.evaluate(ev, alternate, ctx);
  else if (macro) inner = (ev, _ast, ctx) => macro.evaluate(ev, macro, ctx);
  else inner = node.meta.evaluate;
  const regex = regexOperands(node);
  if (regex) {
    const [subject, pattern] = regex;
    inner = (ev, _ast, ctx) => {
      const runner = ev as Runner;
      const s = runner.run(subject, ctx);
      const p = runner.run(pattern, ctx);
      if (typeof s !== 'string' || typeof p !== 'string') return node.meta.evaluate.call(node, ev, node, ctx);
      charge(Math.ceil((s.length + 1) * 0.1) * Math.ceil(p.length * 0.25));
      try {
        return compileGoRegexp(p).test(s);
      } catch (err) {
        // cel-go's matches() returns Go's regexp error as it is.
        if (err instanceof GoRegexpError) throw new Error(err.message);
        throw err;
      }
    };
  }
  const free = node.op === 'value';
  node.evaluate = function metered(ev, ast, ctx) {
    if (!free) charge(1);
    const result = inner.call(node, ev, ast, ctx);
    const extra = sizeCost(result);
    if (extra > 0) charge(extra);
    return result;
  };
}

/** Instruments a parsed and checked tree so that evaluating it charges the meter. */
export function instrument(root: unknown): void {
  eachNode(root, meterNode);
  orderListsForEquality(root, eachNode);
}

export interface MeteredResult {
  value?: unknown;
  error?: unknown;
  /** Units spent (at most limit + the last charge). */
  cost: number;
}

/** Runs an instrumented evaluation with `limit` units. */
export function runMetered(limit: number, evaluate: () => unknown): MeteredResult {
  meter.remaining = limit;
  meter.used = 0;
  try {
    const value = evaluate();
    // CEL absorbs errors in `||`, `&&` and comprehensions (`true || error` is true); running out
    // of budget is not such an error: cel-go interrupts the whole evaluation.
    if (meter.remaining < 0) return { error: new CostLimitExceeded(), cost: meter.used };
    return { value, cost: meter.used };
  } catch (error) {
    return { error: meter.remaining < 0 ? new CostLimitExceeded() : error, cost: meter.used };
  }
}
