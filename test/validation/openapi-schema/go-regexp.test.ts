// Schema patterns follow Go's regexp (RE2): what Go refuses is refused at CRD write with Go's
// message, and matching is linear in the input, so no pattern can stall a request.

import { describe, expect, it } from 'vitest';
import { compileGoRegexp } from '../../../runtime/validation/openapi-schema/go-regexp.js';
import { compileSchema } from '../../../runtime/validation/openapi-schema/index.js';

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
