// The texts of the Go decoders the decode-time type check replays: resource.ParseQuantity,
// time.Parse with metav1.Time's and metav1.MicroTime's layouts, and fmt's %v of a patch map.
import { describe, expect, it } from 'vitest';
import { QUANTITY_FORMAT_WRONG, QUANTITY_SUFFIX_WRONG, quantityParseError } from '../../runtime/machinery/go-decode/go-quantity.js';
import { RFC3339, RFC3339_MICRO, timeParseError, timeQuote } from '../../runtime/machinery/go-decode/go-time.js';
import { unstructuredConvertError } from '../../runtime/machinery/go-decode/index.js';
import { overflowingNumber } from '../../runtime/machinery/go-decode/number-literals.js';
import { goPrint } from '../../runtime/machinery/go-decode/unstructured-decode.js';
import { decodeApplyPatch } from '../../runtime/registry/apply/apply.js';

describe('resource.ParseQuantity', () => {
  it.each([
    ['1Gi', undefined],
    ['100m', undefined],
    ['1e3', undefined],
    ['1E+3', undefined],
    ['1e-3', undefined],
    ['.5', undefined],
    ['-1.5Ki', undefined],
    // The scanner reads these as zero, whatever the regular expression of its message says.
    ['m', undefined],
    ['-', undefined],
    ['', QUANTITY_FORMAT_WRONG],
    ['1 GB', QUANTITY_FORMAT_WRONG],
    ['1GB', QUANTITY_FORMAT_WRONG],
    ['abc', QUANTITY_FORMAT_WRONG],
    ['1.5.5', QUANTITY_FORMAT_WRONG],
    ['{"a":1}', QUANTITY_FORMAT_WRONG],
    ['1kk', QUANTITY_SUFFIX_WRONG],
    ['1m3', QUANTITY_SUFFIX_WRONG],
    ['1e', QUANTITY_SUFFIX_WRONG],
  ])('%j', (text, expected) => {
    expect(quantityParseError(text)).toBe(expected);
  });
});

describe('time.Parse', () => {
  const as = (value: string, rest: string, elem: string, layout = RFC3339) => `parsing time "${value}" as "${layout}": cannot parse "${rest}" as "${elem}"`;
  it.each([
    ['2024-01-01T00:00:00Z', undefined],
    ['2024-01-01T00:00:00.123+01:00', undefined],
    ['2024-02-29T23:59:59-05:30', undefined],
    ['2024-01-01T0:00:00Z', undefined], // the hour may have one digit
    ['garbage', as('garbage', 'garbage', '2006')],
    ['', as('', '', '2006')],
    ['2024/01/01T00:00:00Z', as('2024/01/01T00:00:00Z', '/01/01T00:00:00Z', '-')],
    ['2024-1-01T00:00:00Z', as('2024-1-01T00:00:00Z', '1-01T00:00:00Z', '01')],
    ['2024-01-01 00:00:00Z', as('2024-01-01 00:00:00Z', ' 00:00:00Z', 'T')],
    ['2024-01-01T00:00:00', as('2024-01-01T00:00:00', '', 'Z07:00')],
    ['2024-01-01T00:00:00+0100', as('2024-01-01T00:00:00+0100', '+0100', 'Z07:00')],
    ['2024-13-01T00:00:00Z', 'parsing time "2024-13-01T00:00:00Z": month out of range'],
    ['2023-02-29T00:00:00Z', 'parsing time "2023-02-29T00:00:00Z": day out of range'],
    ['2024-01-01T24:00:00Z', 'parsing time "2024-01-01T24:00:00Z": hour out of range'],
    ['2024-01-01T00:60:00Z', 'parsing time "2024-01-01T00:60:00Z": minute out of range'],
    ['2024-01-01T00:00:61Z', 'parsing time "2024-01-01T00:00:61Z": second out of range'],
    ['2024-01-01T00:00:00+25:00', 'parsing time "2024-01-01T00:00:00+25:00": time zone offset hour out of range'],
    ['2024-01-01T00:00:00Z trailing', 'parsing time "2024-01-01T00:00:00Z trailing": extra text: " trailing"'],
  ])('RFC 3339 %j', (value, expected) => {
    expect(timeParseError(value, RFC3339)).toBe(expected);
  });

  it.each([
    ['2024-01-01T00:00:00.123456Z', undefined],
    ['2024-01-01T00:00:00Z', `parsing time "2024-01-01T00:00:00Z" as "${RFC3339_MICRO}": cannot parse "Z" as ".000000"`],
    ['2024-01-01T00:00:00.123Z', `parsing time "2024-01-01T00:00:00.123Z" as "${RFC3339_MICRO}": cannot parse ".123Z" as ".000000"`],
    ['2024-01-01T00:00:00.1234567Z', `parsing time "2024-01-01T00:00:00.1234567Z" as "${RFC3339_MICRO}": cannot parse "7Z" as "Z07:00"`],
  ])('RFC 3339 with microseconds %j', (value, expected) => {
    expect(timeParseError(value, RFC3339_MICRO)).toBe(expected);
  });

  it('quotes as the time package does: non-ASCII as bytes, quotes and backslashes escaped', () => {
    expect(timeQuote('é"\\')).toBe('"\\xc3\\xa9\\"\\\\"');
  });
});

describe("fmt's %v of a patch map", () => {
  it.each([
    [{ data: 5 }, 'map[data:5]'],
    [{ b: [1, 'x', null], a: { z: true, y: 1.5 } }, 'map[a:map[y:1.5 z:true] b:[1 x <nil>]]'],
    [{ f: 0.00001, g: 1234567.5 }, 'map[f:1e-05 g:1.2345675e+06]'],
  ])('%j', (value, expected) => {
    expect(goPrint(value)).toBe(expected);
  });
});

describe('runtime.DefaultUnstructuredConverter.FromUnstructured of integers', () => {
  const event = (count: unknown) => ({ apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, count });
  it.each([
    [7, 7],
    [3000000000, -1294967296],
    [-2147483649, 2147483647],
    [1e23, 0],
    [-1e23, 0],
    [2 ** 63, 0],
  ])('an int32 given %s holds %s', (given, held) => {
    const obj = event(given);
    expect(unstructuredConvertError('io.k8s.api.core.v1.Event', obj)).toBeUndefined();
    expect(obj.count).toBe(held);
  });

  it('refuses a fraction and leaves the value', () => {
    const obj = event(1.5);
    expect(unstructuredConvertError('io.k8s.api.core.v1.Event', obj)).toBe('cannot convert float64 to int32');
    expect(obj.count).toBe(1.5);
  });
});

describe('numbers a float64 cannot hold', () => {
  it.each([
    ['{"a":1e400}', '1e400'],
    ['{"a":"1e400","b":-1E+400}', '-1E+400'],
    [`{"a":1${'0'.repeat(309)}}`, `1${'0'.repeat(309)}`],
    ['{"a":1e308,"b":1e-400}', undefined],
    ['{"a":"1e999"}', undefined],
  ])('%s', (text, literal) => {
    expect(overflowingNumber(text)).toBe(literal);
  });
});

describe('apply bodies read as go-yaml reads them', () => {
  it('keeps a number beyond a float64 as its text and refuses infinities and NaN', () => {
    expect(decodeApplyPatch('a: 1e400\nb: [-1E+400]\nc: 1.5\n')).toEqual({ a: '1e400', b: ['-1E+400'], c: 1.5 });
    expect(() => decodeApplyPatch('a: .inf')).toThrow('error decoding YAML: error converting YAML to JSON: json: unsupported value: +Inf');
    expect(() => decodeApplyPatch('a: -.Inf')).toThrow('error decoding YAML: error converting YAML to JSON: json: unsupported value: -Inf');
    expect(() => decodeApplyPatch('a: .NaN')).toThrow('error decoding YAML: error converting YAML to JSON: json: unsupported value: NaN');
  });
});
