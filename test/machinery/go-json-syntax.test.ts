// Go's encoding/json SyntaxError texts, as scanner.go words them (the state machine's contexts,
// quoteChar's quoting of the offending byte, the space it feeds at the end of input, and the
// nesting limit), for the bodies kube-apiserver quotes them for.
import { describe, expect, it } from 'vitest';
import { GO_JSON_MAX_DEPTH, goJsonSyntaxError } from '../../runtime/machinery/go-json.js';

const check = (input: string | Uint8Array, maxDepth?: number) => goJsonSyntaxError(typeof input === 'string' ? Buffer.from(input, 'utf8') : input, maxDepth);

describe("Go's JSON syntax errors", () => {
  it.each<[string, string]>([
    ['', 'unexpected end of JSON input'],
    [' \n\t\r ', 'unexpected end of JSON input'],
    ['apiVersion: v1\nkind: Namespace\n', "invalid character 'a' looking for beginning of value"],
    ['x', "invalid character 'x' looking for beginning of value"],
    ['{', 'unexpected end of JSON input'],
    ['[', 'unexpected end of JSON input'],
    ['{"a"', 'unexpected end of JSON input'],
    ['{"a":', 'unexpected end of JSON input'],
    ['{"a":1', 'unexpected end of JSON input'],
    ['{"a":"b', 'unexpected end of JSON input'],
    ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
    ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1,"b"}', "invalid character '}' after object key"],
    ['{"a":1 "b":2}', 'invalid character \'"\' after object key:value pair'],
    ['{"a":1]', "invalid character ']' after object key:value pair"],
    ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
    ['{,}', "invalid character ',' looking for beginning of object key string"],
    ['[1 2]', "invalid character '2' after array element"],
    ['[1}', "invalid character '}' after array element"],
    ['[1,]', "invalid character ']' looking for beginning of value"],
    ['[,1]', "invalid character ',' looking for beginning of value"],
    ['{} {}', "invalid character '{' after top-level value"],
    ['{"a":1}}', "invalid character '}' after top-level value"],
    ['01', "invalid character '1' after top-level value"],
    ['{"a":01}', "invalid character '1' after object key:value pair"],
    ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
    ['{"a":fals', "invalid character ' ' in literal false (expecting 'e')"],
    ['nul', "invalid character ' ' in literal null (expecting 'l')"],
    ['nUll', "invalid character 'U' in literal null (expecting 'u')"],
    ['{"a":"\\x"}', "invalid character 'x' in string escape code"],
    ['"\\', "invalid character ' ' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ['"\\u12', "invalid character ' ' in \\u hexadecimal character escape"],
    ['{"a":"\n"}', "invalid character '\\n' in string literal"],
    ['"\t"', "invalid character '\\t' in string literal"],
    ['{"a":-}', "invalid character '}' in numeric literal"],
    ['-', "invalid character ' ' in numeric literal"],
    ['-x', "invalid character 'x' in numeric literal"],
    ['{"a":1.}', "invalid character '}' after decimal point in numeric literal"],
    ['1.', "invalid character ' ' after decimal point in numeric literal"],
    ['{"a":1e}', "invalid character '}' in exponent of numeric literal"],
    ['1e+', "invalid character ' ' in exponent of numeric literal"],
    ['+1', "invalid character '+' looking for beginning of value"],
    ['.5', "invalid character '.' looking for beginning of value"],
    ['\u0001', "invalid character '\\x01' looking for beginning of value"],
    ['\u007f', "invalid character '\\x7f' looking for beginning of value"],
    ['\u000b', "invalid character '\\v' looking for beginning of value"],
  ])('%j', (input, want) => {
    expect(check(input)).toBe(want);
  });

  it('quotes a byte above 0x7f as the rune of its value, as Go converts a byte to a string', () => {
    // A UTF-8 byte-order mark starts with 0xef: Go shows 'ï'.
    expect(check(Uint8Array.of(0xef, 0xbb, 0xbf, 0x7b, 0x7d))).toBe("invalid character 'ï' looking for beginning of value");
    expect(check(Uint8Array.of(0x80))).toBe("invalid character '\\u0080' looking for beginning of value");
    expect(check(Uint8Array.of(0xa0))).toBe("invalid character '\\u00a0' looking for beginning of value");
    expect(check(Uint8Array.of(0xad))).toBe("invalid character '\\u00ad' looking for beginning of value");
    // Inside strings any byte from 0x20 up is content, invalid UTF-8 included.
    expect(check(Uint8Array.of(0x22, 0xff, 0xfe, 0x22))).toBeUndefined();
  });

  it.each([
    '{}',
    '[]',
    '0',
    '-0.5e-3',
    '1E+10',
    'true',
    'false',
    'null',
    '"\\u00e9\\"\\\\\\/\\b\\f\\n\\r\\t"',
    ' {"a":[1,{"b":[]},"c"],"d":{},"e":null} ',
  ])('accepts %j', (input) => {
    expect(check(input)).toBeUndefined();
  });

  it('agrees with JSON.parse on whether documents parse', () => {
    const samples = ['{"a":[1,2,{"b":"c"}]}', '[1,2', '{"a":}', '{"a":1,"a":2}', '"\\ud800"', '[1e5,-0,0.0]', '{"":""}', '[[]]]', '{"a":[}'];
    for (const s of samples) {
      let parses = true;
      try {
        JSON.parse(s);
      } catch {
        parses = false;
      }
      expect(check(s) === undefined, s).toBe(parses);
    }
  });

  it('refuses nesting past the limit at the bracket that goes too deep, before any later error', () => {
    expect(check('[[[]]]', 3)).toBeUndefined();
    expect(check('[[[[]]]]', 3)).toBe("invalid character '[' exceeded max depth");
    expect(check('[{"a":{"b":1}}]', 2)).toBe("invalid character '{' exceeded max depth");
    expect(check('[[[[x', 3)).toBe("invalid character '[' exceeded max depth");
    expect(check('[[x', 3)).toBe("invalid character 'x' looking for beginning of value");
  });

  it("takes Go's 10,000 levels by default and refuses the next, without using the call stack", () => {
    const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
    expect(check(deep(GO_JSON_MAX_DEPTH))).toBeUndefined();
    expect(check(deep(GO_JSON_MAX_DEPTH + 1))).toBe("invalid character '[' exceeded max depth");
    expect(check('['.repeat(1_000_000), 2_000_000)).toBe('unexpected end of JSON input');
  });
});
