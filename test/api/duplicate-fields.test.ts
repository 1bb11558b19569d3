// The JSON member scan behind strict decoding's "duplicate field" complaints: escaped names are
// compared decoded (two spellings of one name repeat it), string values with quotes and braces
// inside do not end a member early, and every member's first offset is kept for ordering.
import { describe, expect, it } from 'vitest';
import { scanJsonMembers } from '../../runtime/api/duplicate-fields.js';

describe('scanJsonMembers', () => {
  it('names repetitions by path, decoding escaped names and skipping string values whole', () => {
    const text = '{"a\\"b":1,"a\\u0022b":2,"c":"x\\"}],y","d":[{"e":"}","e":2}],"f":{"g\\\\":true}}';
    expect(JSON.parse(text)).toEqual({ 'a"b': 2, c: 'x"}],y', d: [{ e: 2 }], f: { 'g\\': true } });
    const { duplicates, firstSeen } = scanJsonMembers(text);
    expect(duplicates.map((d) => d.message)).toEqual(['duplicate field "a\\"b"', 'duplicate field "d[0].e"']);
    expect(duplicates.map((d) => d.at)).toEqual([text.indexOf('"a\\u0022b"'), text.lastIndexOf('"e"')]);
    expect([...firstSeen.keys()]).toEqual(['a"b', 'c', 'd', 'd[0].e', 'f', 'f.g\\']);
    expect(firstSeen.get('d[0].e')).toBe(text.indexOf('"e"'));
  });

  it('finds nothing in a body without repetitions, whatever its values hold', () => {
    const text = JSON.stringify({ spec: { s1: 'value "quoted" {x}', list: [1, 'two', null, { k: '\u00e9\n' }] }, z: false });
    const { duplicates, firstSeen } = scanJsonMembers(text);
    expect(duplicates).toEqual([]);
    expect([...firstSeen.keys()]).toEqual(['spec', 'spec.s1', 'spec.list', 'spec.list[3].k', 'z']);
  });
});
