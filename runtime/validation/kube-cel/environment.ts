// kube's base CEL environment (apiserver pkg/cel/environment/base.go at compatibility version
// 1.32, which new expressions of kube-apiserver 1.33 are checked against): homogeneous aggregate
// literals, optional types, the strings extension (version 2), sets, and kube's libraries (lists,
// regex, urls, quantity, ip, cidr, format). Built once; callers clone it and add their variables.

import { Environment } from '@marcbachmann/cel-js';
import { eachNode, isNode, type CelNode } from './runtime-cost.js';
import { compileGoRegexp, GoRegexpError } from '../re2/index.js';
import { registerStrings } from './library/strings.js';
import { registerLists } from './library/lists.js';
import { registerRegex } from './library/regex.js';
import { registerQuantity } from './library/quantity.js';
import { registerURLs } from './library/urls.js';
import { registerNet } from './library/net.js';
import { registerFormat } from './library/format.js';

let base: Environment | undefined;

/** The shared base environment; do not register on it (clone it). */
export function baseEnvironment(): Environment {
  if (base) return base;
  const env = new Environment({ unlistedVariablesAreDyn: false, homogeneousAggregateLiterals: true, enableOptionalTypes: true });
  registerStrings(env);
  registerLists(env);
  registerRegex(env);
  registerQuantity(env);
  registerURLs(env);
  registerNet(env);
  registerFormat(env);
  base = env;
  return env;
}

/** A new environment with kube's libraries, open for variables and types. */
export function kubeEnvironment(): Environment {
  return baseEnvironment().clone();
}

/** cel-go's wording of a cel-js message, where the two differ. */
function celGoSummary(summary: string): string {
  let m = /^Exceeded maxDepth \((\d+)\)$/.exec(summary);
  if (m) return `expression recursion limit exceeded: ${m[1]}`;
  // A tree too deep for the type checker's recursion.
  if (summary === 'Maximum call stack size exceeded') return 'max recursion depth exceeded';
  m = /^No such key: (.*)$/.exec(summary);
  if (m) return `undefined field '${m[1]}'`;
  m = /^Unknown variable: (.*)$/.exec(summary);
  if (m) return `undeclared reference to '${m[1]}' (in container '')`;
  m = /^no such overload: (.+?) (==|!=|<|<=|>|>=|\+|-|\*|\/|%|in) (.+)$/.exec(summary);
  if (m) {
    const op = m[2] === 'in' ? '@in' : `_${m[2]}_`;
    return `found no matching overload for '${op}' applied to '(${m[1]}, ${m[3]})'`;
  }
  return summary;
}

interface LocatedError {
  name?: string;
  message?: string;
  summary?: string;
  range?: { start: number; end: number };
  node?: { pos?: number; range?: { start: number } };
}

/** An error of cel-js as cel-go's issues print: `ERROR: <input>:1:6: <message>` and the caret lines. */
export function celGoIssue(err: unknown, source: string): string {
  if (err instanceof ExpressionTooLarge) return `ERROR: <input>:-1:0: ${err.message}`;
  const e = (err ?? {}) as LocatedError;
  const firstLine = (e.message ?? String(err)).split('\n')[0];
  const raw = e.summary ?? firstLine;
  const mapped = celGoSummary(raw);
  // cel-go reports what its parser refuses as a syntax error.
  const summary = mapped === raw && e.name === 'ParseError' ? `Syntax error: ${raw}` : mapped;
  let offset = e.range?.start ?? e.node?.range?.start ?? e.node?.pos;
  if (offset === undefined) return `ERROR: <input>:1:1: ${summary}`;
  // cel-go places a field selection's errors at its dot, cel-js at the field name.
  if (summary.startsWith('undefined field') && source[offset - 1] === '.') offset -= 1;
  const before = source.slice(0, offset);
  const line = before.split('\n').length;
  const column = offset - (before.lastIndexOf('\n') + 1);
  const text = source.split('\n')[line - 1] ?? '';
  return `ERROR: <input>:${line}:${column + 1}: ${summary}\n | ${text}\n | ${'.'.repeat(column)}^`;
}

interface HasMacro {
  args: CelNode[];
  macroHasProps?: CelNode[];
  typeCheck: (checker: { check(n: CelNode, ctx: unknown): unknown; getType(t: string): unknown; createError(code: string, msg: string, n: CelNode): Error }, macro: HasMacro, ctx: unknown) => unknown;
}

/**
 * cel-js's has() accepts only a chain of field selections that starts at a variable; cel-go's
 * accepts any operand below the last selection (`has(self.matches[0].path)`, which Gateway API's
 * rules use). The macro's evaluation already handles any operand, so its type check is replaced
 * by one that only requires the argument to be a field selection.
 */
export function relaxHas(root: unknown): void {
  eachNode(root, (node) => {
    if (node.op !== 'call' || !Array.isArray(node.args) || node.args[0] !== 'has') return;
    const macro = node.meta.macro as unknown as HasMacro | undefined;
    if (!macro) return;
    macro.typeCheck = (checker, m, ctx) => {
      let arg = m.args[0];
      if (arg.op !== '.') throw checker.createError('invalid_macro_argument', 'invalid argument to has() macro', arg);
      if (!m.macroHasProps) {
        const props: CelNode[] = [];
        while (arg.op === '.' || arg.op === '.?') {
          props.push(arg);
          arg = (arg.args as unknown[])[0] as CelNode;
        }
        checker.check(arg, ctx);
        props.push(arg);
        m.macroHasProps = props;
      }
      return checker.getType('bool');
    };
  });
}

/** cel-go's parser refuses longer expressions. */
export const EXPRESSION_SIZE_CODE_POINT_LIMIT = 100_000;

class ExpressionTooLarge extends Error {}

/** Parses with `env`, accepting what cel-go's parser accepts where cel-js is narrower. */
export function parseRule(env: Environment, source: string): ReturnType<Environment['parse']> {
  const size = Array.from(source).length;
  if (size > EXPRESSION_SIZE_CODE_POINT_LIMIT) {
    throw new ExpressionTooLarge(`expression code point size exceeds limit: size: ${size}, limit ${EXPRESSION_SIZE_CODE_POINT_LIMIT}`);
  }
  const program = env.parse(source);
  relaxHas(program.ast);
  return program;
}

/** cel-go's wording of a runtime error. */
export function celGoEvalError(err: unknown): string {
  const text = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  const noKey = /^No such key: (.*)$/.exec(text);
  if (noKey) return `no such key: ${noKey[1]}`;
  return text;
}

/**
 * A constant matches() pattern that Go's regexp would not compile, as cel-go's ValidateRegexLiterals
 * reports it (`invalid matches argument`). find/findAll patterns are checked when they run, as in kube.
 */
export function invalidRegexLiteral(root: unknown, source: string): string | undefined {
  let problem: string | undefined;
  eachNode(root, (n) => {
    if (problem || (n.op !== 'rcall' && n.op !== 'call')) return;
    const args = n.args as unknown[];
    if (args[0] !== 'matches') return;
    const pattern = n.op === 'rcall' ? (args[2] as unknown[])[0] : (args[1] as unknown[])[1];
    if (!isNode(pattern) || pattern.op !== 'value' || typeof pattern.args !== 'string') return;
    if (!compilesInGo(pattern.args)) problem = celGoIssue({ summary: 'invalid matches argument', node: pattern }, source);
  });
  return problem;
}

/**
 * The Go regexp error of a constant find() or findAll() pattern: kube's regex library compiles
 * those when the program is built (its regex optimizations), so a CRD write reports
 * `program instantiation failed: <error>`; a pattern computed at run time fails there instead.
 */
export function invalidFindLiteral(root: unknown): string | undefined {
  let problem: string | undefined;
  eachNode(root, (n) => {
    if (problem || n.op !== 'rcall') return;
    const args = n.args as unknown[];
    if (args[0] !== 'find' && args[0] !== 'findAll') return;
    const pattern = (args[2] as unknown[])[0];
    if (!isNode(pattern) || pattern.op !== 'value' || typeof pattern.args !== 'string') return;
    try {
      compileGoRegexp(pattern.args);
    } catch (err) {
      if (!(err instanceof GoRegexpError)) throw err;
      problem = err.message;
    }
  });
  return problem;
}

function compilesInGo(pattern: string): boolean {
  try {
    compileGoRegexp(pattern);
    return true;
  } catch (err) {
    if (err instanceof GoRegexpError) return false;
    throw err;
  }
}
