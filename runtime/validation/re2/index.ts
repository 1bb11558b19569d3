// Go's regexp (RE2) as kube-apiserver runs it for a schema's `pattern`, its formats and CEL's
// matches(), find() and findAll(): parsed with Go's rules, refused with Go's messages, and matched
// in time linear in the input, so no pattern can stall a request. Each pattern runs on V8's
// linear-time engine when that engine can run it exactly (v8-linear.ts), else on our Pike VM
// (pike-vm.ts), which runs every pattern Go accepts up to a bound on the program's size.

import { allMatches, type Matcher } from './matcher.js';
import { PikeVM } from './pike-vm.js';
import { Parser, type Ast } from './syntax.js';
import { hasSurrogates, LinearMatcher } from './v8-linear.js';

export { GoRegexpError } from './syntax.js';

export interface GoRegexp {
  readonly source: string;
  /** Whether the pattern matches anywhere in `s` (Go's MatchString). */
  test(s: string): boolean;
  /** The leftmost-first match, '' when there is none (Go's FindString). */
  find(s: string): string;
  /** Successive non-overlapping matches, at most `n` of them when n >= 0 (Go's FindAllString). */
  findAll(s: string, n?: number): string[];
}

class CompiledRegexp implements GoRegexp {
  /** Built for every pattern: inputs V8 cannot be given exactly run here, and a program too large is refused at compile time. */
  private readonly vm: PikeVM;
  private readonly linear?: LinearMatcher;

  constructor(
    readonly source: string,
    ast: Ast,
  ) {
    this.vm = new PikeVM(ast);
    this.linear = LinearMatcher.of(ast);
  }

  /** V8's engine when it gives Go's answer for `s`; `finding`: the match itself, not only whether there is one. */
  private matcherFor(s: string, finding: boolean): Matcher {
    const linear = this.linear;
    return linear && (!finding || linear.findsAsGo) && !hasSurrogates(s) ? linear : this.vm;
  }

  test(s: string): boolean {
    return this.matcherFor(s, false).test(s);
  }

  find(s: string): string {
    const m = this.matcherFor(s, true).match(s, 0);
    return m ? s.slice(m[0], m[1]) : '';
  }

  findAll(s: string, n = -1): string[] {
    return allMatches(this.matcherFor(s, true), s, n);
  }
}

const cache = new Map<string, GoRegexp>();
/** CEL compiles the pattern of each call; the patterns seen last are kept compiled. */
const CACHE_LIMIT = 500;

/** Parses and compiles a pattern with Go's rules; throws GoRegexpError with Go's message. */
export function compileGoRegexp(source: string): GoRegexp {
  const cached = cache.get(source);
  if (cached) return cached;
  const compiled = new CompiledRegexp(source, new Parser(source).parse());
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(source, compiled);
  return compiled;
}
