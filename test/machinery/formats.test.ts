// Named formats and Go-style value rendering, as a table per function.

import { describe, expect, it } from 'vitest';
import { FORMAT_CHECKS, ajvFormats } from '../../runtime/machinery/formats.js';
import { goQuote, goValue } from '../../runtime/machinery/go-format.js';
import { FORMAT_NAMES } from '../../generator/formats.js';
import specFormat from '../../generator/spec-format.schema.json' with { type: 'json' };

describe('named formats', () => {
  it.each([
    ['dns1123Label', 'my-name', []],
    ['dns1123Label', 'a.b', ['must not contain dots']],
    ['dns1123Subdomain', 'example.com', []],
    ['qualifiedName', 'example.com/MyName', []],
    ['qualifiedName', 'a/b/c', ["a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]],
    ['qualifiedName', 'x/', ['name part must be non-empty', "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"]],
    ['labelValue', '', []],
    ['configMapKey', 'KEY_NAME', []],
    ['pathSegment', 'a%b', ["may not contain '%'"]],
    ['pathSegment', '..', ["may not be '..'"]],
    ['ip', '10.9.8.7', []],
    ['ip', '2001:db8::ffff', []],
    ['ip', '1.2.3', ['must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']],
    ['quantity', '100m', []],
    ['rfc3339', '2024-01-02T03:04:05Z', []],
    ['kubeFinalizerName', 'kubernetes', []],
  ] as [string, string, string[]][])('%s(%j)', (format, value, messages) => {
    expect(FORMAT_CHECKS[format]?.(value)).toEqual(messages);
    expect(ajvFormats[format]?.validate(value)).toBe(messages.length === 0);
  });

  it('names the same formats in the spec schema, the generator and the runtime', () => {
    const schemaNames = (specFormat.definitions.format as { enum: string[] }).enum;
    expect([...FORMAT_NAMES].sort()).toEqual([...schemaNames].sort());
    expect(Object.keys(FORMAT_CHECKS).sort()).toEqual([...schemaNames].sort());
  });
});

describe('Go value rendering', () => {
  it.each([
    ['plain', '"plain"'],
    ['tab\there', '"tab\\there"'],
    ['quote"', '"quote\\""'],
    ['\x00\x7f', '"\\x00\\x7f"'],
    ['ünïcode', '"ünïcode"'],
    ['\u200b', '"\\u200b"'],
  ])('quotes %j like strconv.Quote', (input, want) => {
    expect(goQuote(input)).toBe(want);
  });

  it('prints numbers, booleans and objects as Go does', () => {
    expect(goValue(3)).toBe('3');
    expect(goValue(true)).toBe('true');
    expect(goValue({ b: 1, a: '<' })).toBe('{"a":"\\u003c","b":1}');
    expect(goValue(null)).toBe('null');
  });
});
