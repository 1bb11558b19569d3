// Go's regexp syntax (regexp/syntax with Perl flags, as regexp.Compile parses schema patterns and
// CEL's regular expressions): a pattern parsed into a small tree, or refused with the error Go's
// parser gives, which a CRD write quotes (`error parsing regexp: missing closing ): ` + "`(abc`").

import { foldOrbit } from './fold.js';

export class GoRegexpError extends Error {
  constructor(
    readonly code: string,
    readonly expr: string,
  ) {
    super(`error parsing regexp: ${code}: \`${expr}\``);
  }
}

export const ERR = {
  invalidCharClass: 'invalid character class',
  invalidCharRange: 'invalid character class range',
  invalidEscape: 'invalid escape sequence',
  invalidNamedCapture: 'invalid named capture',
  invalidPerlOp: 'invalid or unsupported Perl syntax',
  invalidRepeatOp: 'invalid nested repetition operator',
  invalidRepeatSize: 'invalid repeat count',
  missingBracket: 'missing closing ]',
  missingParen: 'missing closing )',
  missingRepeatArgument: 'missing argument to repetition operator',
  trailingBackslash: 'trailing backslash at end of expression',
  unexpectedParen: 'unexpected )',
  nestingDepth: 'expression nests too deeply',
  large: 'expression too large',
} as const;

/** Go's limits: repeat counts up to 1000, nesting up to 1000. */
const MAX_REPEAT = 1000;
const MAX_NESTING = 1000;

/** A set of code points: sorted [lo, hi] pairs plus predicates for Unicode classes, maybe negated. */
export interface CharSet {
  ranges: number[];
  tests: RegExp[];
  negate: boolean;
}

export type Ast =
  | { k: 'empty' }
  | { k: 'char'; set: CharSet }
  | { k: 'assert'; what: 'bot' | 'eot' | 'bol' | 'eol' | 'word' | 'nonword' }
  | { k: 'cat'; subs: Ast[] }
  | { k: 'alt'; subs: Ast[] }
  /** max -1: no upper bound. greedy: prefers more repetitions (the leftmost-first match's length depends on it). */
  | { k: 'rep'; sub: Ast; min: number; max: number; greedy: boolean };

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  /** (?U): `x*` is lazy and `x*?` greedy. */
  U: boolean;
}

const isAlnum = (c: string): boolean => /^[0-9A-Za-z]$/.test(c);
export const isWordByte = (cp: number): boolean =>
  (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122) || cp === 95;

const PERL_CLASSES: Record<string, number[]> = {
  d: [48, 57],
  s: [9, 10, 12, 13, 32, 32],
  w: [48, 57, 65, 90, 95, 95, 97, 122],
};

const POSIX_CLASSES: Record<string, number[]> = {
  alnum: [48, 57, 65, 90, 97, 122],
  alpha: [65, 90, 97, 122],
  ascii: [0, 127],
  blank: [9, 9, 32, 32],
  cntrl: [0, 31, 127, 127],
  digit: [48, 57],
  graph: [33, 126],
  lower: [97, 122],
  print: [32, 126],
  punct: [33, 47, 58, 64, 91, 96, 123, 126],
  space: [9, 13, 32, 32],
  upper: [65, 90],
  word: [48, 57, 65, 90, 95, 95, 97, 122],
  xdigit: [48, 57, 65, 70, 97, 102],
};

/** Ranges of the complement of sorted, merged ranges over all code points. */
function complement(ranges: number[]): number[] {
  const merged = normalize(ranges);
  const out: number[] = [];
  let next = 0;
  for (let i = 0; i < merged.length; i += 2) {
    if (merged[i] > next) out.push(next, merged[i] - 1);
    next = merged[i + 1] + 1;
  }
  if (next <= 0x10ffff) out.push(next, 0x10ffff);
  return out;
}

function normalize(ranges: number[]): number[] {
  const pairs: [number, number][] = [];
  for (let i = 0; i < ranges.length; i += 2) pairs.push([ranges[i], ranges[i + 1]]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [lo, hi] of pairs) {
    const last = out.length - 1;
    if (last > 0 && lo <= out[last] + 1) out[last] = Math.max(out[last], hi);
    else out.push(lo, hi);
  }
  return out;
}

/** Adds the whole case-fold orbit of a set's runes, as (?i) does (small ranges only; large ones hold both cases already in practice). */
function foldRanges(ranges: number[]): number[] {
  const out = [...ranges];
  for (let i = 0; i < ranges.length; i += 2) {
    if (ranges[i + 1] - ranges[i] > 2000) continue;
    for (let cp = ranges[i]; cp <= ranges[i + 1]; cp++) {
      for (const o of foldOrbit(cp)) out.push(o, o);
    }
  }
  return out;
}

function unicodeClass(name: string): RegExp | undefined {
  const candidates = name === 'Any' ? ['Any'] : [name, `Script=${name}`];
  for (const c of candidates) {
    try {
      return new RegExp(`^\\p{${c}}$`, 'u');
    } catch {
      // not a property JavaScript knows under this spelling
    }
  }
  return undefined;
}

export class Parser {
  private pos = 0;
  private depth = 0;
  constructor(private readonly src: string) {}

  parse(): Ast {
    const ast = this.alternation({ i: false, m: false, s: false, U: false });
    if (this.pos < this.src.length) {
      // Only an unmatched ')' stops an alternation early.
      throw new GoRegexpError(ERR.unexpectedParen, this.src);
    }
    return ast;
  }

  private peek(): string {
    return this.src[this.pos] ?? '';
  }

  private nextChar(): string {
    const cp = this.src.codePointAt(this.pos);
    if (cp === undefined) return '';
    const ch = String.fromCodePoint(cp);
    this.pos += ch.length;
    return ch;
  }

  private alternation(flags: Flags): Ast {
    if (++this.depth > MAX_NESTING) throw new GoRegexpError(ERR.nestingDepth, this.src);
    const subs: Ast[] = [this.sequence(flags)];
    while (this.peek() === '|') {
      this.pos++;
      subs.push(this.sequence(flags));
    }
    this.depth--;
    return subs.length === 1 ? subs[0] : { k: 'alt', subs };
  }

  private sequence(flags: Flags): Ast {
    const subs: Ast[] = [];
    let lastRepeatStart = -1;
    while (this.pos < this.src.length) {
      const c = this.peek();
      if (c === '|' || c === ')') break;
      const opStart = this.pos;
      const repeat = this.repeatOp(flags);
      if (repeat) {
        const opText = this.src.slice(opStart, this.pos);
        if (lastRepeatStart >= 0) throw new GoRegexpError(ERR.invalidRepeatOp, this.src.slice(lastRepeatStart, this.pos));
        const prev = subs.pop();
        if (!prev) throw new GoRegexpError(ERR.missingRepeatArgument, opText);
        if (repeat.max > MAX_REPEAT || repeat.min > MAX_REPEAT || (repeat.max >= 0 && repeat.max < repeat.min)) {
          throw new GoRegexpError(ERR.invalidRepeatSize, opText);
        }
        const rep: Ast = { k: 'rep', sub: prev, min: repeat.min, max: repeat.max, greedy: repeat.greedy };
        // Go bounds the product of nested counted repetitions, so (a{1000}){1000} is refused.
        if ((repeat.min >= 2 || repeat.max >= 2) && !repeatIsValid(rep, MAX_REPEAT)) throw new GoRegexpError(ERR.invalidRepeatSize, opText);
        subs.push(rep);
        lastRepeatStart = opStart;
        continue;
      }
      lastRepeatStart = -1;
      const atom = this.atom(flags);
      if (atom) subs.push(atom);
    }
    if (subs.length === 0) return { k: 'empty' };
    return subs.length === 1 ? subs[0] : { k: 'cat', subs };
  }

  /** A repetition operator at the cursor (consumed, with its lazy `?`), or undefined. */
  private repeatOp(flags: Flags): { min: number; max: number; greedy: boolean } | undefined {
    const c = this.peek();
    let op: { min: number; max: number } | undefined;
    if (c === '*') op = { min: 0, max: -1 };
    else if (c === '+') op = { min: 1, max: -1 };
    else if (c === '?') op = { min: 0, max: 1 };
    if (op) this.pos++;
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos));
      if (!m) return undefined;
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
      op = { min, max };
      this.pos += m[0].length;
    }
    if (!op) return undefined;
    let lazy = false;
    if (this.peek() === '?') {
      this.pos++;
      lazy = true;
    }
    return { ...op, greedy: lazy === flags.U };
  }

  private atom(flags: Flags): Ast | undefined {
    const c = this.peek();
    switch (c) {
      case '(':
        return this.group(flags);
      case '[':
        return { k: 'char', set: this.charClass(flags) };
      case '.': {
        this.pos++;
        return { k: 'char', set: { ranges: flags.s ? [0, 0x10ffff] : [0, 9, 11, 0x10ffff], tests: [], negate: false } };
      }
      case '^':
        this.pos++;
        return { k: 'assert', what: flags.m ? 'bol' : 'bot' };
      case '$':
        this.pos++;
        return { k: 'assert', what: flags.m ? 'eol' : 'eot' };
      case '\\':
        return this.escapeAtom(flags);
      default: {
        const ch = this.nextChar();
        return { k: 'char', set: literalSet(ch.codePointAt(0)!, flags) };
      }
    }
  }

  private group(flags: Flags): Ast | undefined {
    const start = this.pos;
    this.pos++;
    const inner = { ...flags };
    if (this.peek() === '?') {
      const rest = this.src.slice(start);
      const named = /^\(\?P?</.exec(rest);
      if (named) {
        const end = rest.indexOf('>');
        if (end < 0) throw new GoRegexpError(ERR.invalidNamedCapture, rest);
        const name = rest.slice(named[0].length, end);
        if (!/^[A-Za-z0-9_]+$/.test(name)) throw new GoRegexpError(ERR.invalidNamedCapture, rest.slice(0, end + 1));
        this.pos = start + end + 1;
      } else {
        this.pos++;
        let negate = false;
        let sawFlag = false;
        for (;;) {
          const f = this.nextChar();
          if (f === '') throw new GoRegexpError(ERR.missingParen, this.src);
          if (f === 'i' || f === 'm' || f === 's' || f === 'U') {
            inner[f] = !negate;
            sawFlag = true;
          } else if (f === '-' && !negate) {
            negate = true;
            sawFlag = false;
          } else if ((f === ':' || f === ')') && !(negate && !sawFlag)) {
            if (f === ')') {
              // A bare flag group changes the flags for the rest of the enclosing group.
              Object.assign(flags, inner);
              return undefined;
            }
            break;
          } else {
            throw new GoRegexpError(ERR.invalidPerlOp, this.src.slice(start, this.pos));
          }
        }
      }
    }
    const body = this.alternation(inner);
    if (this.peek() !== ')') throw new GoRegexpError(ERR.missingParen, this.src);
    this.pos++;
    return body;
  }

  private escapeAtom(flags: Flags): Ast {
    const start = this.pos;
    const c = this.src[this.pos + 1];
    if (c === undefined) throw new GoRegexpError(ERR.trailingBackslash, '');
    switch (c) {
      case 'A':
        this.pos += 2;
        return { k: 'assert', what: 'bot' };
      case 'z':
        this.pos += 2;
        return { k: 'assert', what: 'eot' };
      case 'b':
        this.pos += 2;
        return { k: 'assert', what: 'word' };
      case 'B':
        this.pos += 2;
        return { k: 'assert', what: 'nonword' };
      case 'Q': {
        this.pos += 2;
        const end = this.src.indexOf('\\E', this.pos);
        const lit = end < 0 ? this.src.slice(this.pos) : this.src.slice(this.pos, end);
        this.pos = end < 0 ? this.src.length : end + 2;
        const subs: Ast[] = [...lit].map((ch) => ({ k: 'char', set: literalSet(ch.codePointAt(0)!, flags) }));
        return subs.length === 1 ? subs[0] : { k: 'cat', subs };
      }
      default: {
        const set = this.classEscape(flags);
        if (set) return { k: 'char', set };
        this.pos = start;
        return { k: 'char', set: literalSet(this.escape(), flags) };
      }
    }
  }

  /** \d \s \w (and negations), \pX, \p{Name} at the cursor, consumed; undefined when it is another escape. */
  private classEscape(flags: Flags): CharSet | undefined {
    const c = this.src[this.pos + 1];
    const lower = c.toLowerCase();
    if ((lower === 'd' || lower === 's' || lower === 'w') && PERL_CLASSES[lower]) {
      this.pos += 2;
      return { ranges: [...PERL_CLASSES[lower]], tests: [], negate: c !== lower };
    }
    if (c === 'p' || c === 'P') {
      const start = this.pos;
      this.pos += 2;
      let name: string;
      if (this.peek() === '{') {
        const end = this.src.indexOf('}', this.pos);
        if (end < 0) throw new GoRegexpError(ERR.invalidCharRange, this.src.slice(start));
        name = this.src.slice(this.pos + 1, end);
        this.pos = end + 1;
      } else {
        name = this.nextChar();
        if (name === '') throw new GoRegexpError(ERR.invalidCharRange, this.src.slice(start));
      }
      let negate = c === 'P';
      if (name.startsWith('^')) {
        negate = !negate;
        name = name.slice(1);
      }
      const test = unicodeClass(name);
      if (!test) throw new GoRegexpError(ERR.invalidCharRange, this.src.slice(start, this.pos));
      return { ranges: [], tests: [test], negate };
    }
    return undefined;
  }

  /** One escaped character (Go's parseEscape): the code point, cursor past it. */
  private escape(): number {
    const start = this.pos;
    this.pos++;
    const c = this.nextChar();
    if (c === '') throw new GoRegexpError(ERR.trailingBackslash, '');
    const fail = (): never => {
      throw new GoRegexpError(ERR.invalidEscape, this.src.slice(start, this.pos));
    };
    const cp = c.codePointAt(0)!;
    if (cp < 0x80 && !isAlnum(c)) return cp;
    if (c >= '1' && c <= '7' && !(this.peek() >= '0' && this.peek() <= '7')) fail();
    if (c >= '0' && c <= '7') {
      let r = cp - 48;
      for (let i = 1; i < 3 && this.peek() >= '0' && this.peek() <= '7'; i++) r = r * 8 + this.nextChar().charCodeAt(0) - 48;
      return r;
    }
    if (c === 'x') {
      if (this.peek() === '{') {
        const end = this.src.indexOf('}', this.pos);
        const digits = end < 0 ? '' : this.src.slice(this.pos + 1, end);
        if (!/^[0-9A-Fa-f]+$/.test(digits) || parseInt(digits, 16) > 0x10ffff) {
          this.pos = end < 0 ? this.src.length : end + 1;
          fail();
        }
        this.pos = end + 1;
        return parseInt(digits, 16);
      }
      const two = this.src.slice(this.pos, this.pos + 2);
      this.pos += Math.min(2, two.length);
      if (!/^[0-9A-Fa-f]{2}$/.test(two)) fail();
      return parseInt(two, 16);
    }
    const named: Record<string, number> = { a: 7, f: 12, t: 9, n: 10, r: 13, v: 11 };
    if (named[c] !== undefined) return named[c];
    return fail();
  }

  private charClass(flags: Flags): CharSet {
    const start = this.pos;
    this.pos++;
    const set: CharSet = { ranges: [], tests: [], negate: false };
    if (this.peek() === '^') {
      set.negate = true;
      this.pos++;
    }
    let first = true;
    const missing = (): never => {
      throw new GoRegexpError(ERR.missingBracket, this.src.slice(start));
    };
    while (first || this.peek() !== ']') {
      if (this.pos >= this.src.length) missing();
      first = false;
      const rest = this.src.slice(this.pos);
      const posix = /^\[:(\^?)([a-z]*):\]/.exec(rest);
      if (posix) {
        const ranges = POSIX_CLASSES[posix[2]];
        if (!ranges) throw new GoRegexpError(ERR.invalidCharRange, posix[0]);
        set.ranges.push(...(posix[1] ? complement(ranges) : ranges));
        this.pos += posix[0].length;
        continue;
      }
      if (rest[0] === '\\' && rest.length > 1) {
        const inner = this.classEscape(flags);
        if (inner) {
          if (inner.tests.length > 0) {
            // A negated Unicode class inside a class: keep it as its own predicate.
            const [test] = inner.tests;
            set.tests.push(inner.negate ? new RegExp(test.source.replace('^\\p{', '^\\P{'), test.flags) : test);
          } else set.ranges.push(...(inner.negate ? complement(inner.ranges) : inner.ranges));
          continue;
        }
      }
      const rangeStart = this.pos;
      const lo = this.classChar(missing);
      let hi = lo;
      if (this.peek() === '-' && this.src[this.pos + 1] !== undefined && this.src[this.pos + 1] !== ']') {
        this.pos++;
        hi = this.classChar(missing);
        if (hi < lo) throw new GoRegexpError(ERR.invalidCharRange, this.src.slice(rangeStart, this.pos));
      }
      set.ranges.push(lo, hi);
    }
    this.pos++;
    if (flags.i) set.ranges = foldRanges(set.ranges);
    set.ranges = normalize(set.ranges);
    return set;
  }

  private classChar(missing: () => never): number {
    if (this.pos >= this.src.length) missing();
    if (this.peek() === '\\') return this.escape();
    return this.nextChar().codePointAt(0)!;
  }
}

/** Go's repeatIsValid: the counts of repetitions nested inside each other multiply to at most n. */
function repeatIsValid(ast: Ast, n: number): boolean {
  if (ast.k === 'rep') {
    const m = ast.max < 0 ? ast.min : ast.max;
    if (ast.max !== 0) {
      if (m > n) return false;
      if (m > 0) n = Math.floor(n / m);
    }
    return repeatIsValid(ast.sub, n);
  }
  if (ast.k === 'cat' || ast.k === 'alt') return ast.subs.every((sub) => repeatIsValid(sub, n));
  return true;
}

function literalSet(cp: number, flags: Flags): CharSet {
  const ranges = flags.i ? normalize(foldRanges([cp, cp])) : [cp, cp];
  return { ranges, tests: [], negate: false };
}

/** Whether `ast` can match the empty string (Go's frag.nullable; assertions match it). */
export function nullable(ast: Ast): boolean {
  switch (ast.k) {
    case 'char':
      return false;
    case 'cat':
      return ast.subs.every(nullable);
    case 'alt':
      return ast.subs.some(nullable);
    case 'rep':
      return ast.min === 0 || nullable(ast.sub);
    default:
      return true;
  }
}
