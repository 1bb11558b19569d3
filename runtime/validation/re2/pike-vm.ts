// A parsed Go pattern compiled to a Thompson NFA and run as a Pike VM, which is how RE2 keeps its
// promise: every input character is looked at once per program instruction, never more, so no
// pattern can backtrack. Threads are kept in priority order, which gives Go's leftmost-first
// match (greedy and lazy repetitions alike), not just whether there is one.

import { ERR, GoRegexpError, isWordByte, nullable, type Ast, type CharSet } from './syntax.js';

/** Our bound on the compiled program (Go's is in bytes): the work per input character grows with it. */
const MAX_PROGRAM = 20000;

// The program: parallel arrays indexed by instruction.
const OP_CHAR = 0;
const OP_SPLIT = 1;
const OP_ASSERT = 2;
const OP_MATCH = 3;

interface Program {
  op: number[];
  /** The preferred next instruction; a split's other branch is out1. */
  out: number[];
  out1: number[];
  set: (CharSet | undefined)[];
  assert: (string | undefined)[];
}

class Compiler {
  readonly prog: Program = { op: [], out: [], out1: [], set: [], assert: [] };

  emit(op: number, set?: CharSet, assert?: string): number {
    if (this.prog.op.length >= MAX_PROGRAM) throw new GoRegexpError(ERR.large, '');
    this.prog.op.push(op);
    this.prog.out.push(-1);
    this.prog.out1.push(-1);
    this.prog.set.push(set);
    this.prog.assert.push(assert);
    return this.prog.op.length - 1;
  }

  /** A split that prefers `first`. */
  private split(first: number, second: number): number {
    const pc = this.emit(OP_SPLIT);
    this.prog.out[pc] = first;
    this.prog.out1[pc] = second;
    return pc;
  }

  /** Compiles `ast` so that it continues at `next`; returns its entry. Built back to front, so no patching. */
  build(ast: Ast, next: number): number {
    switch (ast.k) {
      case 'empty':
        return next;
      case 'char': {
        const pc = this.emit(OP_CHAR, ast.set);
        this.prog.out[pc] = next;
        return pc;
      }
      case 'assert': {
        const pc = this.emit(OP_ASSERT, undefined, ast.what);
        this.prog.out[pc] = next;
        return pc;
      }
      case 'cat': {
        let entry = next;
        for (let i = ast.subs.length - 1; i >= 0; i--) entry = this.build(ast.subs[i], entry);
        return entry;
      }
      case 'alt': {
        let entry = this.build(ast.subs[ast.subs.length - 1], next);
        for (let i = ast.subs.length - 2; i >= 0; i--) entry = this.split(this.build(ast.subs[i], next), entry);
        return entry;
      }
      case 'rep': {
        // Shaped as Go's simplify and compile shape them, since with a body that can match empty
        // the shape decides which match is preferred: x{n,} is n-1 copies then x+, x+ is x with a
        // split back to it, x* a split-first loop (or (x+)? when x can match empty), and x{n,m}
        // is n copies then m-n nested optional ones, each skipping straight to what follows.
        if (ast.max < 0) {
          let entry = ast.min === 0 && !nullable(ast.sub) ? this.loop(ast.sub, ast.greedy, next) : this.plus(ast.sub, ast.greedy, next);
          if (ast.min === 0 && nullable(ast.sub)) entry = this.quest(entry, ast.greedy, next);
          for (let i = 1; i < ast.min; i++) entry = this.build(ast.sub, entry);
          return entry;
        }
        let entry = next;
        for (let i = ast.max; i > ast.min; i--) entry = this.quest(this.build(ast.sub, entry), ast.greedy, next);
        for (let i = 0; i < ast.min; i++) entry = this.build(ast.sub, entry);
        return entry;
      }
    }
  }

  private quest(body: number, greedy: boolean, next: number): number {
    return greedy ? this.split(body, next) : this.split(next, body);
  }

  /** x+: the body, then a split back to it. */
  private plus(sub: Ast, greedy: boolean, next: number): number {
    const again = this.emit(OP_SPLIT);
    const body = this.build(sub, again);
    this.prog.out[again] = greedy ? body : next;
    this.prog.out1[again] = greedy ? next : body;
    return body;
  }

  /** x*: a split into the body, which comes back to the split. */
  private loop(sub: Ast, greedy: boolean, next: number): number {
    const loop = this.emit(OP_SPLIT);
    const body = this.build(sub, loop);
    this.prog.out[loop] = greedy ? body : next;
    this.prog.out1[loop] = greedy ? next : body;
    return loop;
  }
}

function inSet(set: CharSet, cp: number): boolean {
  let found = false;
  const r = set.ranges;
  for (let i = 0; i < r.length; i += 2) {
    if (cp < r[i]) break;
    if (cp <= r[i + 1]) {
      found = true;
      break;
    }
  }
  if (!found && set.tests.length > 0) {
    const ch = String.fromCodePoint(cp);
    for (const t of set.tests) if (t.test(ch)) found = true;
  }
  return found !== set.negate;
}

/** Whether a zero-width assertion holds between the code points `prev` and `next` (-1 at either end of the text). */
function assertHolds(what: string, prev: number, next: number): boolean {
  switch (what) {
    case 'bot':
      return prev < 0;
    case 'eot':
      return next < 0;
    case 'bol':
      return prev < 0 || prev === 10;
    case 'eol':
      return next < 0 || next === 10;
    case 'word':
      return (prev >= 0 && isWordByte(prev)) !== (next >= 0 && isWordByte(next));
    default:
      return (prev >= 0 && isWordByte(prev)) === (next >= 0 && isWordByte(next));
  }
}

/** The code point that ends just before index `i` of `s`, or -1 at the start. */
function codePointBefore(s: string, i: number): number {
  if (i <= 0) return -1;
  const last = s.charCodeAt(i - 1);
  if (last >= 0xdc00 && last <= 0xdfff && i >= 2) {
    const first = s.charCodeAt(i - 2);
    if (first >= 0xd800 && first <= 0xdbff) return s.codePointAt(i - 2)!;
  }
  return last;
}

/** test() needs no positions: exec's answer once any match is known. */
const ANY_MATCH: [number, number] = [-1, -1];

/** One compiled pattern with its thread lists, allocated once and reused: matching allocates nothing. */
export class PikeVM {
  private readonly prog: Program;
  private readonly start: number;
  /** Every match begins at the start of the text (`^`, `\A`): once no thread is left, none can begin later. */
  private readonly anchored: boolean;
  /** Each character instruction's set over ASCII as 128 bits (4 words per instruction): most input is ASCII. */
  private readonly ascii: Uint32Array;
  private clist: Int32Array;
  private nlist: Int32Array;
  /** The index in the input where each listed thread's match began. */
  private cstart: Int32Array;
  private nstart: Int32Array;
  private readonly mark: Int32Array;
  private readonly stack: Int32Array;
  private generation = 0;

  constructor(ast: Ast) {
    const compiler = new Compiler();
    const match = compiler.emit(OP_MATCH);
    this.start = compiler.build(ast, match);
    this.anchored = beginsText(ast);
    this.prog = compiler.prog;
    const n = this.prog.op.length;
    this.ascii = new Uint32Array(n * 4);
    for (let pc = 0; pc < n; pc++) {
      const set = this.prog.set[pc];
      if (!set) continue;
      for (let cp = 0; cp < 128; cp++) if (inSet(set, cp)) this.ascii[pc * 4 + (cp >> 5)] |= 1 << (cp & 31);
    }
    this.clist = new Int32Array(n);
    this.nlist = new Int32Array(n);
    this.cstart = new Int32Array(n);
    this.nstart = new Int32Array(n);
    this.mark = new Int32Array(n).fill(-1);
    this.stack = new Int32Array(n * 2 + 2);
  }

  /**
   * Follows the empty transitions from pc0 in priority order, appending each character-consuming
   * or match instruction reached (with the thread's start) to `list`; returns the new count, or
   * -1 when `anyMatch` and a match instruction is reached.
   */
  private addThread(list: Int32Array, starts: Int32Array, count: number, pc0: number, begin: number, prev: number, next: number, anyMatch: boolean): number {
    const { prog, mark, stack, generation } = this;
    let sp = 0;
    stack[sp++] = pc0;
    while (sp > 0) {
      const pc = stack[--sp];
      if (pc < 0 || mark[pc] === generation) continue;
      mark[pc] = generation;
      switch (prog.op[pc]) {
        case OP_MATCH:
          if (anyMatch) return -1;
        // falls through: listed like a character instruction, in its priority place
        case OP_CHAR:
          list[count] = pc;
          starts[count++] = begin;
          break;
        case OP_SPLIT:
          stack[sp++] = prog.out1[pc];
          stack[sp++] = prog.out[pc];
          break;
        default:
          if (assertHolds(prog.assert[pc]!, prev, next)) stack[sp++] = prog.out[pc];
      }
    }
    return count;
  }

  /** Whether the pattern matches anywhere in `s`. */
  test(s: string): boolean {
    return this.exec(s, 0, true) !== undefined;
  }

  /**
   * The leftmost-first match starting at or after index `from`, as [start, end) indices (Go's
   * doExecute at that position: `^` holds only at 0, `\b` sees the character before).
   */
  match(s: string, from: number): [number, number] | undefined {
    return this.exec(s, from, false);
  }

  /** `anyMatch` stops at the first match found, for a yes-or-no answer (ANY_MATCH). */
  private exec(s: string, from: number, anyMatch: boolean): [number, number] | undefined {
    if (this.generation > 0x3fffffff) {
      this.mark.fill(-1);
      this.generation = 0;
    }
    const { op, out, set } = this.prog;
    const ascii = this.ascii;
    let clist = this.clist;
    let nlist = this.nlist;
    let cstart = this.cstart;
    let nstart = this.nstart;
    let matched: [number, number] | undefined;
    let ccount = 0;
    let prev = codePointBefore(s, from);
    let i = from;
    let cp = codePointAt(s, i);
    this.generation++;
    for (;;) {
      // A new thread starts here, after every thread carried over (the leftmost start wins); the
      // carried threads were listed under this generation, so none is added twice.
      if (matched === undefined) {
        ccount = this.addThread(clist, cstart, ccount, this.start, i, prev, cp, anyMatch);
        if (ccount < 0) return ANY_MATCH;
      }
      const after = i + (cp > 0xffff ? 2 : 1);
      const nextCp = codePointAt(s, after);
      this.generation++;
      let ncount = 0;
      for (let k = 0; k < ccount; k++) {
        const pc = clist[k];
        if (op[pc] === OP_MATCH) {
          // Threads after this one have a lower priority: cut them off.
          matched = [cstart[k], i];
          break;
        }
        if (cp < 0) continue;
        const takes = cp < 128 ? (ascii[pc * 4 + (cp >> 5)] & (1 << (cp & 31))) !== 0 : inSet(set[pc]!, cp);
        if (!takes) continue;
        ncount = this.addThread(nlist, nstart, ncount, out[pc], cstart[k], cp, nextCp, anyMatch);
        if (ncount < 0) return ANY_MATCH;
      }
      if (cp < 0 || (ncount === 0 && (matched !== undefined || this.anchored))) return matched;
      const list = clist;
      clist = nlist;
      nlist = list;
      const starts = cstart;
      cstart = nstart;
      nstart = starts;
      ccount = ncount;
      prev = cp;
      i = after;
      cp = nextCp;
    }
  }
}

/** Whether every match of `ast` begins with the start-of-text assertion. */
function beginsText(ast: Ast): boolean {
  switch (ast.k) {
    case 'assert':
      return ast.what === 'bot';
    case 'cat':
      return ast.subs.length > 0 && beginsText(ast.subs[0]);
    case 'alt':
      return ast.subs.every(beginsText);
    case 'rep':
      return ast.min > 0 && beginsText(ast.sub);
    default:
      return false;
  }
}

/** The code point at index `i` of `s`, or -1 past its end. */
function codePointAt(s: string, i: number): number {
  return i < s.length ? s.codePointAt(i)! : -1;
}
