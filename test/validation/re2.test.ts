// Go's regexp (RE2) for schema patterns and CEL: what Go refuses is refused with Go's message,
// matches and finds are Go's (where JavaScript's semantics differ too), and matching is linear in
// the input, so no pattern can stall a request. Where Go's and JavaScript's semantics coincide,
// seeded random patterns answer as JavaScript's own engine does.

import { describe, expect, it } from 'vitest';
import { compileGoRegexp } from '../../runtime/validation/re2/index.js';
import { nullable, Parser, type Ast } from '../../runtime/validation/re2/syntax.js';
import { compileSchema } from '../../runtime/validation/openapi-schema/index.js';

describe('matching as Go matches', () => {
  it.each([
    ['^[a-z]+$', 'abc', true],
    ['^[a-z]+$', 'abC', false],
    ['b', 'abc', true],
    ['^b', 'abc', false],
    ['c$', 'abc', true],
    ['^a{2,3}$', 'aaa', true],
    ['^a{2,3}$', 'aaaa', false],
    ['^a{2}$', 'aa', true],
    ['\\bfoo\\b', 'a foo b', true],
    ['\\bfoo\\b', 'afoo', false],
    ['(?i)abc', 'xABCx', true],
    ['(?i:a)b', 'Ab', true],
    ['(?i:a)b', 'AB', false],
    // (?i) matches Go's whole case-fold orbits (unicode.SimpleFold), not just lower and upper case.
    ['^(?i)k$', '\u212a', true],
    ['^(?i)\u212a$', 'k', true],
    ['^(?i)[k]$', 'K', true],
    ['^(?i)s$', '\u017f', true],
    ['^(?i)\u017f$', 'S', true],
    ['^(?i)[a-z]+$', 'Kelvin\u212a\u017f', true],
    ['^(?i)σ$', 'ς', true],
    ['^(?i)ς$', 'Σ', true],
    ['^(?i)ß$', '\u1e9e', true],
    ['^(?i)å$', '\u212b', true],
    ['^(?i)ǅ$', 'ǆ', true],
    ['^(?i)θ$', 'ϑ', true],
    // Dotless and dotted I fold with nothing else (Turkish mappings are not simple folds).
    ['^(?i)ı$', 'I', false],
    ['^(?i)i$', 'İ', false],
    ['^(?i)[^k]$', '\u212a', false],
    ['^k$', '\u212a', false],
    ['^\\d+(\\.\\d+)?$', '1.5', true],
    ['^[^/]+$', 'a/b', false],
    ['^\\p{L}+$', 'héllo', true],
    ['^\\P{L}+$', 'héllo', false],
    ['^[[:alpha:]]+$', 'abc1', false],
    ['^[[:^digit:]]+$', 'abc', true],
    ['^(foo|bar)$', 'bar', true],
    ['^$', '', true],
    ['^.$', '\n', false],
    ['(?s)^.$', '\n', true],
    ['(?m)^b$', 'a\nb\nc', true],
    ['^b$', 'a\nb\nc', false],
    ['^\\x41\\x{42}\\103$', 'ABC', true],
    ['^\\Qa.b\\E$', 'a.b', true],
    ['^\\Qa.b\\E$', 'axb', false],
    ['^[\\w.-]+$', 'a.b-c_d', true],
    ['^(?P<name>[a-z]+)-(?<n>\\d)$', 'ab-1', true],
    ['^😀+$', '😀😀', true],
    ['^.{2}$', '😀😀', true],
    ['^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$', 'my.example-host.io', true],
    ['^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$', 'My.host', false],
  ])('%s against %j is %s', (pattern, input, want) => {
    expect(compileGoRegexp(pattern).test(input)).toBe(want);
  });
});

describe("Go's parse errors", () => {
  it.each([
    ['(abc', 'missing closing ): `(abc`'],
    ['a)', 'unexpected ): `a)`'],
    ['[a', 'missing closing ]: `[a`'],
    ['a**', 'invalid nested repetition operator: `**`'],
    ['*a', 'missing argument to repetition operator: `*`'],
    ['x{1001}', 'invalid repeat count: `{1001}`'],
    ['x{3,2}', 'invalid repeat count: `{3,2}`'],
    ['(a{1000}){2}', 'invalid repeat count: `{2}`'],
    ['((a{10}){10}){11}', 'invalid repeat count: `{11}`'],
    ['\\8', 'invalid escape sequence: `\\8`'],
    ['(a)\\1', 'invalid escape sequence: `\\1`'],
    ['(?=a)', 'invalid or unsupported Perl syntax: `(?=`'],
    ['(?!a)', 'invalid or unsupported Perl syntax: `(?!`'],
    ['[z-a]', 'invalid character class range: `z-a`'],
    ['\\p{Foo}', 'invalid character class range: `\\p{Foo}`'],
    ['[[:foo:]]', 'invalid character class range: `[:foo:]`'],
    ['a\\', 'trailing backslash at end of expression: ``'],
    // Go has no \C (any byte) and no \Z.
    ['a\\C', 'invalid escape sequence: `\\C`'],
    ['a\\Z', 'invalid escape sequence: `\\Z`'],
    ['(?<=a)b', 'invalid named capture: `(?<=a)b`'],
  ])('%s', (pattern, message) => {
    expect(() => compileGoRegexp(pattern)).toThrow(`error parsing regexp: ${message}`);
  });

  it('accepts nested counts whose product stays within 1000', () => {
    expect(compileGoRegexp('^((a{10}){10}){10}$').test('a'.repeat(1000))).toBe(true);
  });

  it('accepts what JavaScript would not, such as a literal { and possessive-free Go syntax', () => {
    expect(compileGoRegexp('a{,3}').test('a{,3}')).toBe(true);
    expect(compileGoRegexp('^[]a]+$').test(']a')).toBe(true);
  });
});

describe('no catastrophic backtracking', () => {
  it('(a+)+$ against a long string of a then b answers (false), as RE2 does', () => {
    expect(compileGoRegexp('(a+)+$').test(`${'a'.repeat(100_000)}b`)).toBe(false);
    expect(compileGoRegexp('(a|aa)*c').test('a'.repeat(50_000))).toBe(false);
    expect(compileGoRegexp('^(a*)*$').test('a'.repeat(50_000))).toBe(true);
  });

  it('a hostile pattern in a schema is checked against a hostile value, and the request is answered', () => {
    const schema = compileSchema({ type: 'object', properties: { spec: { type: 'object', properties: { v: { type: 'string', pattern: '^(([a-z])+.)+[A-Z]([a-z])+$' } } } } });
    const value = 'a'.repeat(20_000);
    expect(schema.validate({ spec: { v: value } })).toEqual([
      { reason: 'FieldValueInvalid', field: 'spec.v', message: `Invalid value: "${value}": spec.v in body should match '^(([a-z])+.)+[A-Z]([a-z])+$'` },
    ]);
  });
});

describe('where JavaScript differs from Go, Go wins', () => {
  it.each([
    // `$` without (?m) is the end of the text only, never before a final newline.
    ['x$', 'x\n', false],
    ['x\\z', 'x', true],
    ['x\\z', 'x\n', false],
    // (?m) lines end at \n alone; JavaScript's also end at \r, U+2028 and U+2029.
    ['(?m)^b$', 'a\r\nb\r\nc', false],
    ['(?m)^b$', 'a\u2028b\u2028c', false],
    ['(?m)^b$', 'a\nb\nc', true],
    // Flags anywhere, and scoped to a group.
    ['a(?i)b', 'aB', true],
    ['a(?i)b', 'AB', false],
    ['(?i:a)b', 'AB', false],
    // (?i) matches Go's whole case-fold orbits (unicode.SimpleFold), not just lower and upper case.
    ['^(?i)k$', '\u212a', true],
    ['^(?i)\u212a$', 'k', true],
    ['^(?i)[k]$', 'K', true],
    ['^(?i)s$', '\u017f', true],
    ['^(?i)\u017f$', 'S', true],
    ['^(?i)[a-z]+$', 'Kelvin\u212a\u017f', true],
    ['^(?i)σ$', 'ς', true],
    ['^(?i)ς$', 'Σ', true],
    ['^(?i)ß$', '\u1e9e', true],
    ['^(?i)å$', '\u212b', true],
    ['^(?i)ǅ$', 'ǆ', true],
    ['^(?i)θ$', 'ϑ', true],
    // Dotless and dotted I fold with nothing else (Turkish mappings are not simple folds).
    ['^(?i)ı$', 'I', false],
    ['^(?i)i$', 'İ', false],
    ['^(?i)[^k]$', '\u212a', false],
    ['^k$', '\u212a', false],
    ['(?s:.)', '\n', true],
    ['^.$', '\r', true],
    ['^.$', '\u2028', true],
    // Unicode classes, with and without braces, scripts and negations.
    ['^\\pL+$', 'héllo', true],
    ['^\\p{Greek}+$', 'αβγ', true],
    ['^\\PL$', 'é', false],
    ['^[\\p{Lu}\\d]+$', 'É9', true],
    // One character is one code point (Go: one UTF-8 rune), not one UTF-16 unit.
    ['^.$', '😀', true],
    ['^..$', '😀', false],
    ['^[^a]$', '😀', true],
    ['^[😀-😂]$', '😁', true],
    // POSIX classes, negated too.
    ['^[[:^alpha:]]+$', '123', true],
    ['^[[:word:]]+$', 'a_1', true],
    // \b and \w are ASCII in Go.
    ['\\bé', ' é', false],
    ['^\\w$', 'é', false],
  ])('%s against %j is %s', (pattern, input, want) => {
    expect(compileGoRegexp(pattern).test(input)).toBe(want);
  });
});

describe("find and findAll as Go's FindString and FindAllString", () => {
  it.each([
    ['[0-9]+', 'abc 123 45', '123', ['123', '45']],
    ['a+?', 'aaa', 'a', ['a', 'a', 'a']],
    ['(?U)a+', 'aaa', 'a', ['a', 'a', 'a']],
    ['(?U)a+?', 'aaa', 'aaa', ['aaa']],
    ['a|ab', 'ab', 'a', ['a']],
    ['ab|a', 'ab', 'ab', ['ab']],
    ['[a-c]{2,30}', 'zabcabcz', 'abcabc', ['abcabc']],
    // An empty match right after a match is skipped; after an empty match the search moves one character on.
    ['x*', 'axxb', '', ['', 'xx', '']],
    ['a*', 'baaa', '', ['', 'aaa']],
    ['', '😀b', '', ['', '', '']],
    ['\\b', 'ab cd', '', ['', '', '', '']],
    ['.', 'a😀b', 'a', ['a', '😀', 'b']],
    // A repeated part whose preferred turn is empty stays empty (golang/go#46123: (|a)* as (|a)+).
    ['(|a)*', 'aaa', '', ['', '', '', '']],
    ['(|a)+', 'aaa', '', ['', '', '', '']],
    ['(a|)+', 'aaa', 'aaa', ['aaa']],
    ['(|a){2,}', 'aa', '', ['', '', '']],
    ['(?m)^\\w+$', 'ab\ncd', 'ab', ['ab', 'cd']],
    ['^a', 'aaa', 'a', ['a']],
    ['(?:^a|b)', 'aab', 'a', ['a', 'b']],
    ['\\pL+', 'héllo wörld', 'héllo', ['héllo', 'wörld']],
  ])('%s in %j: %j, all %j', (pattern, input, first, all) => {
    const re = compileGoRegexp(pattern);
    expect(re.find(input)).toBe(first);
    expect(re.findAll(input)).toEqual(all);
    expect(re.findAll(input, 1)).toEqual(all.slice(0, 1));
  });

  it('finds nothing as Go does', () => {
    expect(compileGoRegexp('xyz').find('abc')).toBe('');
    expect(compileGoRegexp('xyz').findAll('abc')).toEqual([]);
  });
});

describe('every pattern Go accepts runs, in linear time', () => {
  it.each([
    ['(a+)+$', `${'a'.repeat(100_000)}b`],
    ['^(a|aa)*c', 'a'.repeat(50_000)],
    ['^([a-z0-9]{1,63}\\.)*[a-z]{2,}$', `${'a.'.repeat(30_000)}!`],
    ['^(\\pL{1,5})+$', `${'é'.repeat(50_000)}1`],
    ['(x+x+)+y', `${'😀x'.repeat(20_000)}`],
    // Anchored: nothing can begin after the first character fails.
    ['^[a-z]+$', `A${'a'.repeat(1_000_000)}`],
    ['(^a|^b)+c', `${'ab'.repeat(50_000)}`],
  ])('%s against a long value', (pattern, input) => {
    const re = compileGoRegexp(pattern);
    expect(re.test(input)).toBe(false);
    expect(re.find(input)).toBe('');
    expect(re.findAll(input)).toEqual([]);
  });
});

describe('as JavaScript answers, where Go and JavaScript mean the same', () => {
  // Seeded small patterns in the syntax both share, over ASCII inputs without \r (where `.` and
  // `\s` agree). Repetitions of what can match empty are left out: there JavaScript prefers other
  // matches than Go (golang/go#46123), which the table above checks.
  let seed = 20261126;
  const random = (): number => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)];
  const ATOMS = ['a', 'b', 'A', '.', '[ab]', '[^a]', '\\b', '\\B', '^', '$', '\\w', '\\s', '[a-c]', '\\d'];
  const REPEATS = ['*', '+', '?', '*?', '+?', '??', '{1,3}', '{2}', '{0,2}?', '{2,}'];
  const pattern = (depth: number): string => {
    const r = random();
    if (depth > 2 || r < 0.35) return pick(ATOMS);
    if (r < 0.55) return pattern(depth + 1) + pattern(depth + 1);
    if (r < 0.7) return `(${pattern(depth + 1)}|${pattern(depth + 1)})`;
    if (r < 0.8) return `(${pattern(depth + 1)}|)`;
    return `(${pattern(depth + 1)})${pick(REPEATS)}`;
  };
  const repeatsEmpty = (ast: Ast): boolean =>
    ast.k === 'rep' ? nullable(ast.sub) || repeatsEmpty(ast.sub) : ast.k === 'cat' || ast.k === 'alt' ? ast.subs.some(repeatsEmpty) : false;

  /** Go's FindAllString over JavaScript's engine. */
  const allByJavaScript = (re: RegExp, s: string): string[] => {
    const out: string[] = [];
    let prevEnd = -1;
    for (let pos = 0; pos <= s.length; ) {
      re.lastIndex = pos;
      const m = re.exec(s);
      if (!m) break;
      const end = m.index + m[0].length;
      if (!(m[0] === '' && m.index === prevEnd)) out.push(m[0]);
      pos = m[0] === '' ? end + 1 : end;
      prevEnd = end;
    }
    return out;
  };

  it('on whether there is a match, the first match and every match', () => {
    let compared = 0;
    for (let i = 0; i < 1500; i++) {
      const source = pattern(0);
      if (repeatsEmpty(new Parser(source).parse())) continue;
      const ours = compileGoRegexp(source);
      const theirs = new RegExp(source, 'g');
      for (let j = 0; j < 10; j++) {
        const input = Array.from({ length: Math.floor(random() * 10) }, () => pick(['a', 'b', 'A', '1', ' ', '\n'])).join('');
        const where = `${source} on ${JSON.stringify(input)}`;
        const all = allByJavaScript(theirs, input);
        theirs.lastIndex = 0;
        expect(ours.test(input), where).toBe(theirs.test(input));
        theirs.lastIndex = 0;
        expect(ours.find(input), where).toBe(theirs.exec(input)?.[0] ?? '');
        expect(ours.findAll(input), where).toEqual(all);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(8000);
  });
});
