// V8's linear-time regexp engine (the `l` flag, switched on below) runs a parsed Go pattern when it
// can run it exactly. The engine takes no `u` or `i` flag and
// refuses counted repetitions beyond a small size, so the pattern is written out from Go's parse
// tree, not from its text: case folding is already in the character sets, every set is spelled as
// UTF-16 code unit ranges, and `^`, `$` keep their single-line meaning. What cannot be written
// exactly is left to the Pike VM: Unicode classes (`\pL`), multi-line `^`/`$` (JavaScript also ends
// lines at \r, U+2028, U+2029) and characters beyond the BMP; inputs holding surrogates go
// there too (see hasSurrogates), so a match never starts or ends inside a surrogate pair.

import v8 from 'node:v8';
import type { Matcher } from './matcher.js';
import { nullable, type Ast, type CharSet } from './syntax.js';

v8.setFlagsFromString('--enable-experimental-regexp-engine');

const SURROGATES_START = 0xd800;
const SURROGATES_END = 0xdfff;
const BMP_END = 0xffff;

/**
 * The set as a JavaScript class of BMP code units, surrogates left out. Code points beyond the BMP
 * are dropped too (a negated set and `.` hold them all), which is exact because inputs holding any
 * never reach V8 (hasSurrogates). Unicode classes cannot be written: undefined.
 */
function charClass(set: CharSet): string | undefined {
  if (set.tests.length > 0) return undefined;
  const ranges = set.negate ? complement(set.ranges) : set.ranges;
  let out = '';
  for (let i = 0; i < ranges.length && ranges[i] <= BMP_END; i += 2) {
    const lo = ranges[i];
    const hi = Math.min(ranges[i + 1], BMP_END);
    if (lo < SURROGATES_START) out += range(lo, Math.min(hi, SURROGATES_START - 1));
    if (hi > SURROGATES_END) out += range(Math.max(lo, SURROGATES_END + 1), hi);
  }
  return `[${out}]`;
}

const hex = (cp: number): string => `\\u${cp.toString(16).padStart(4, '0')}`;
const range = (lo: number, hi: number): string => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`);

/** The code points outside sorted, merged ranges (the parser keeps its sets that way). */
function complement(ranges: number[]): number[] {
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < ranges.length; i += 2) {
    if (ranges[i] > next) out.push(next, ranges[i] - 1);
    next = ranges[i + 1] + 1;
  }
  if (next <= 0x10ffff) out.push(next, 0x10ffff);
  return out;
}

const ASSERTIONS: Record<string, string | undefined> = { bot: '^', eot: '$', word: '\\b', nonword: '\\B' };

/** The pattern in JavaScript's syntax, every group non-capturing; undefined when it cannot be written exactly. */
function source(ast: Ast): string | undefined {
  switch (ast.k) {
    case 'empty':
      return '';
    case 'char':
      return charClass(ast.set);
    case 'assert':
      return ASSERTIONS[ast.what];
    case 'cat':
    case 'alt': {
      const parts: string[] = [];
      for (const sub of ast.subs) {
        const part = source(sub);
        if (part === undefined) return undefined;
        parts.push(`(?:${part})`);
      }
      return parts.join(ast.k === 'alt' ? '|' : '');
    }
    case 'rep': {
      const sub = source(ast.sub);
      if (sub === undefined) return undefined;
      const count = ast.max < 0 ? `{${ast.min},}` : `{${ast.min},${ast.max}}`;
      return `(?:${sub})${count}${ast.greedy ? '' : '?'}`;
    }
  }
}

/**
 * Whether a repeated part can match the empty string. Then JavaScript, which ends a repetition
 * whose turn matched nothing by backtracking out of that turn, may prefer another match than Go
 * (`(|a)+` finds "aa" there and "" in Go); whether there is a match at all is the same.
 */
function repeatsEmpty(ast: Ast): boolean {
  switch (ast.k) {
    case 'rep':
      return nullable(ast.sub) || repeatsEmpty(ast.sub);
    case 'cat':
    case 'alt':
      return ast.subs.some(repeatsEmpty);
    default:
      return false;
  }
}

/** The pattern on V8's linear engine: one RegExp for yes-or-no answers, one global to search from an index. */
export class LinearMatcher implements Matcher {
  private constructor(
    private readonly tester: RegExp,
    private readonly searcher: RegExp,
    /** Whether its matches are Go's, not only whether there is one. */
    readonly findsAsGo: boolean,
  ) {}

  /** The matcher, or undefined when the engine cannot run the pattern exactly (the Pike VM runs it). */
  static of(ast: Ast): LinearMatcher | undefined {
    const written = source(ast);
    if (written === undefined) return undefined;
    try {
      return new LinearMatcher(new RegExp(written, 'l'), new RegExp(written, 'lg'), !repeatsEmpty(ast));
    } catch {
      // The engine refuses it (counted repetitions too large for it).
      return undefined;
    }
  }

  test(s: string): boolean {
    return this.tester.test(s);
  }

  match(s: string, from: number): [number, number] | undefined {
    this.searcher.lastIndex = from;
    const m = this.searcher.exec(s);
    return m ? [m.index, m.index + m[0].length] : undefined;
  }
}

const SURROGATE = /[\ud800-\udfff]/;

/** Inputs with surrogates (characters beyond the BMP, or lone halves) are matched by code point, on the Pike VM. */
export function hasSurrogates(s: string): boolean {
  return SURROGATE.test(s);
}
