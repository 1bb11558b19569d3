// Schema patterns as kube-apiserver runs them: Go's regexp package (RE2 syntax), whose matching
// time is linear in the input. JavaScript's engine backtracks, so `(a+)+$` against a long string
// would stall the event loop; here a pattern is parsed with Go's rules (and Go's error messages,
// which a CRD write reports), compiled to a Thompson NFA and run as a Pike VM: every input
// character is looked at once per program instruction, never more.

import { ERR, GoRegexpError, isWordByte, Parser, type Ast, type CharSet } from './regexp-syntax.js';

export { GoRegexpError } from './regexp-syntax.js';

/** Our bound on the compiled program (Go's is in bytes): the work per input character grows with it. */
const MAX_PROGRAM = 20000;

// The program: parallel arrays indexed by instruction.
const OP_CHAR = 0;
const OP_SPLIT = 1;
const OP_ASSERT = 3;
const OP_MATCH = 4;
const OP_NOP = 5;

interface Program {
  op: number[];
  out: number[];
  out1: number[];
  set: (CharSet | undefined)[];
  assert: (string | undefined)[];
}

class Compiler {
  readonly prog: Program = { op: [], out: [], out1: [], set: [], assert: [] };

  private emit(op: number, set?: CharSet, assert?: string): number {
    if (this.prog.op.length >= MAX_PROGRAM) throw new GoRegexpError(ERR.large, '');
    this.prog.op.push(op);
    this.prog.out.push(-1);
    this.prog.out1.push(-1);
    this.prog.set.push(set);
    this.prog.assert.push(assert);
    return this.prog.op.length - 1;
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
        for (let i = ast.subs.length - 2; i >= 0; i--) {
          const pc = this.emit(OP_SPLIT);
          this.prog.out[pc] = this.build(ast.subs[i], next);
          this.prog.out1[pc] = entry;
          entry = pc;
        }
        return entry;
      }
      case 'rep': {
        let entry = next;
        if (ast.max < 0) {
          // x* loops through a split; x{n,} is n copies then x*.
          const loop = this.emit(OP_SPLIT);
          this.prog.out1[loop] = next;
          const nop = this.emit(OP_NOP);
          this.prog.out[nop] = loop;
          this.prog.out[loop] = this.build(ast.sub, nop);
          entry = loop;
        } else {
          for (let i = ast.max; i > ast.min; i--) {
            const pc = this.emit(OP_SPLIT);
            this.prog.out[pc] = this.build(ast.sub, entry);
            this.prog.out1[pc] = next;
            entry = pc;
          }
        }
        for (let i = 0; i < ast.min; i++) entry = this.build(ast.sub, entry);
        return entry;
      }
    }
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

export interface GoRegexp {
  readonly source: string;
  /** Whether the pattern matches anywhere in `s` (Go's MatchString). */
  test(s: string): boolean;
}

/** Parses and compiles a pattern with Go's RE2 rules; throws GoRegexpError with Go's message. */
export function compileGoRegexp(source: string): GoRegexp {
  const ast = new Parser(source).parse();
  const compiler = new Compiler();
  const match = compiler.prog.op.length;
  compiler.prog.op.push(OP_MATCH);
  compiler.prog.out.push(-1);
  compiler.prog.out1.push(-1);
  compiler.prog.set.push(undefined);
  compiler.prog.assert.push(undefined);
  const start = compiler.build(ast, match);
  const vm = newVM(compiler.prog, start);
  return { source, test: (s) => run(vm, s) };
}

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

interface VM {
  prog: Program;
  start: number;
  clist: Int32Array;
  nlist: Int32Array;
  mark: Int32Array;
  stack: Int32Array;
  generation: number;
}

/** The VM's lists are allocated once per pattern and reused: matching allocates nothing. */
function newVM(prog: Program, start: number): VM {
  const n = prog.op.length;
  return {
    prog,
    start,
    clist: new Int32Array(n),
    nlist: new Int32Array(n),
    mark: new Int32Array(n).fill(-1),
    stack: new Int32Array(n * 2 + 2),
    generation: 0,
  };
}

/**
 * Follows the empty transitions from pc0, adding every character-consuming instruction reached
 * to `list`; returns the new count, or -1 when the match instruction is reached.
 */
function addThread(vm: VM, list: Int32Array, count: number, pc0: number, prev: number, next: number): number {
  const { prog, mark, stack, generation } = vm;
  let sp = 0;
  stack[sp++] = pc0;
  while (sp > 0) {
    const pc = stack[--sp];
    if (pc < 0 || mark[pc] === generation) continue;
    mark[pc] = generation;
    switch (prog.op[pc]) {
      case OP_MATCH:
        return -1;
      case OP_CHAR:
        list[count++] = pc;
        break;
      case OP_SPLIT:
        stack[sp++] = prog.out1[pc];
        stack[sp++] = prog.out[pc];
        break;
      case OP_ASSERT:
        if (assertHolds(prog.assert[pc]!, prev, next)) stack[sp++] = prog.out[pc];
        break;
      default:
        stack[sp++] = prog.out[pc];
    }
  }
  return count;
}

/** The Pike VM: the set of live instructions advances one code point at a time; a new thread starts at every position. */
function run(vm: VM, s: string): boolean {
  if (vm.generation > 0x3fffffff) {
    vm.mark.fill(-1);
    vm.generation = 0;
  }
  let clist = vm.clist;
  let nlist = vm.nlist;
  let ccount = 0;
  let prev = -1;
  let i = 0;
  for (;;) {
    const cp = i < s.length ? s.codePointAt(i)! : -1;
    vm.generation++;
    // The threads carried over are marked so the new start thread does not add them twice.
    for (let k = 0; k < ccount; k++) vm.mark[clist[k]] = vm.generation;
    ccount = addThread(vm, clist, ccount, vm.start, prev, cp);
    if (ccount < 0) return true;
    if (cp < 0) return false;
    vm.generation++;
    let ncount = 0;
    const after = i + (cp > 0xffff ? 2 : 1);
    const nextCp = after < s.length ? s.codePointAt(after)! : -1;
    for (let k = 0; k < ccount; k++) {
      const pc = clist[k];
      if (inSet(vm.prog.set[pc]!, cp)) {
        ncount = addThread(vm, nlist, ncount, vm.prog.out[pc], cp, nextCp);
        if (ncount < 0) return true;
      }
    }
    const tmp = clist;
    clist = nlist;
    nlist = tmp;
    ccount = ncount;
    prev = cp;
    i = after;
  }
}
