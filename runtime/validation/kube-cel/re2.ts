// Regular expressions with RE2's guarantees (cel-go's matches(), and kube's find/findAll, run
// Go's regexp: linear in the input, no backreferences, no lookaround). JavaScript's default
// engine backtracks, so `^(a+)+$` over a long string of a's would run for minutes. V8 has a
// second, linear-time engine (the `l` flag, enabled by a V8 flag at start-up); every pattern runs
// there. The few RE2 patterns that engine refuses (large counted repetitions such as `a{2,1000}`)
// run on the backtracking engine only when they have no repeated group that itself repeats or
// alternates; the others are refused when the rule compiles, with the reason.

import v8 from 'node:v8';

v8.setFlagsFromString('--enable-experimental-regexp-engine');

export class RegexError extends Error {}
/** A valid Go pattern that cannot be run here without the risk of exponential backtracking. */
export class UnsafeRegexError extends RegexError {}

const POSIX_CLASSES: Record<string, string> = {
  alnum: '0-9A-Za-z',
  alpha: 'A-Za-z',
  ascii: '\\x00-\\x7F',
  blank: '\\t ',
  cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9',
  graph: '!-~',
  lower: 'a-z',
  print: ' -~',
  punct: '!-\\/:-@\\[-`{-~',
  space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z',
  word: '0-9A-Za-z_',
  xdigit: '0-9A-Fa-f',
};

/** Go regexp syntax as JavaScript spells it, with the flags it needs. */
function translate(pattern: string): { source: string; flags: string } {
  let flags = '';
  let source = pattern;
  const leading = /^\(\?([imsU]+)\)/.exec(source);
  if (leading) {
    for (const f of leading[1]) {
      if (f === 'U') throw new RegexError('the U flag is not supported');
      if (!flags.includes(f)) flags += f;
    }
    source = source.slice(leading[0].length);
  }
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      const next = source[i + 1];
      if (next === undefined) throw new RegexError('trailing backslash at end of expression');
      if (/[1-9]/.test(next) || next === 'k') throw new RegexError(`invalid escape sequence: \`\\${next}\``);
      if (!inClass && next === 'A') out += '^';
      else if (!inClass && next === 'z') out += '$(?![\\s\\S])';
      else if (next === 'Q') {
        const end = source.indexOf('\\E', i + 2);
        const literal = end < 0 ? source.slice(i + 2) : source.slice(i + 2, end);
        out += literal.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');
        i = end < 0 ? source.length : end + 1;
        continue;
      } else out += c + next;
      i++;
      continue;
    }
    if (inClass) {
      if (c === '[' && source[i + 1] === ':') {
        const end = source.indexOf(':]', i + 2);
        const name = end < 0 ? '' : source.slice(i + 2, end);
        const negated = name.startsWith('^');
        const cls = POSIX_CLASSES[negated ? name.slice(1) : name];
        if (!cls) throw new RegexError(`invalid character class range: \`${source.slice(i, end + 2)}\``);
        if (negated) throw new RegexError('negated POSIX classes are not supported');
        out += cls;
        i = end + 1;
        continue;
      }
      if (c === ']') inClass = false;
      out += c;
      continue;
    }
    if (c === '[') {
      inClass = true;
      out += c;
      if (source[i + 1] === '^') out += source[++i];
      // A `]` first in a class is a literal in Go.
      if (source[i + 1] === ']') {
        out += '\\]';
        i++;
      }
      continue;
    }
    if (c === '(' && source[i + 1] === '?') {
      if (source.startsWith('(?P<', i)) {
        out += '(?<';
        i += 3;
        continue;
      }
      if (source[i + 2] === '=' || source[i + 2] === '!' || (source[i + 2] === '<' && (source[i + 3] === '=' || source[i + 3] === '!'))) {
        throw new RegexError(`invalid or unsupported Perl syntax: \`${source.slice(i, i + 3)}\``);
      }
    }
    out += c;
  }
  return { source: out, flags };
}

/** Why a pattern could backtrack exponentially: a repeated group that repeats or alternates inside. */
export function backtrackingRisk(pattern: string): string | undefined {
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

const cache = new Map<string, RegExp>();
const CACHE_LIMIT = 500;

/** Compiles a Go regular expression; throws RegexError with the reason it cannot run safely. */
export function compileRE2(pattern: string, extraFlags = ''): RegExp {
  const key = `${extraFlags}/${pattern}`;
  const cached = cache.get(key);
  if (cached) return new RegExp(cached);
  const { source, flags } = translate(pattern);
  let re: RegExp;
  try {
    re = new RegExp(source, `${flags}${extraFlags}l`);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (!/linear time/.test(message)) throw new RegexError(`error parsing regexp: ${message.replace(/^Invalid regular expression: /, '')}`);
    const risk = backtrackingRisk(source);
    if (risk) throw new UnsafeRegexError(`pattern ${JSON.stringify(pattern)} refused: ${risk}`);
    re = new RegExp(source, `${flags}${extraFlags}`);
  }
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, re);
  return new RegExp(re);
}

/** Why a pattern cannot be used, or undefined when it can; `unsafe` when Go would accept it. */
export function regexProblem(pattern: string): { message: string; unsafe: boolean } | undefined {
  try {
    compileRE2(pattern);
    return undefined;
  } catch (err) {
    return { message: err instanceof Error ? err.message : String(err), unsafe: err instanceof UnsafeRegexError };
  }
}
