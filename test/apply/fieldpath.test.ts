import { describe, expect, it } from 'vitest';
import { FieldSet, fieldElement as f, keyElement as k, valueElement as v, indexElement as i, pathString } from '../../runtime/registry/apply/fieldpath.js';

describe('FieldsV1 encoding', () => {
  it('writes leaves as {} and marks members with children with "."', () => {
    const set = FieldSet.of(
      [f('metadata'), f('labels'), f('app')],
      [f('metadata'), f('labels')],
      [f('data'), f('b')],
      [f('data'), f('a')],
    );
    expect(set.toFieldsV1()).toEqual({
      'f:data': { 'f:a': {}, 'f:b': {} },
      'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
    });
    // key order follows structured-merge-diff: '.' first, then fields by name
    expect(JSON.stringify(set.toFieldsV1())).toBe('{"f:data":{"f:a":{},"f:b":{}},"f:metadata":{"f:labels":{".":{},"f:app":{}}}}');
  });

  it('spells list keys as sorted compact JSON and values as JSON', () => {
    const set = FieldSet.of(
      [f('spec'), f('ports'), k({ protocol: 'TCP', port: 80 })],
      [f('spec'), f('ports'), k({ protocol: 'TCP', port: 80 }), f('name')],
      [f('metadata'), f('finalizers'), v('a/b')],
    );
    expect(JSON.stringify(set.toFieldsV1())).toBe(
      '{"f:metadata":{"f:finalizers":{"v:\\"a/b\\"":{}}},"f:spec":{"f:ports":{"k:{\\"port\\":80,\\"protocol\\":\\"TCP\\"}":{".":{},"f:name":{}}}}}',
    );
  });

  it('orders fields before keys, values and indexes', () => {
    const set = FieldSet.of([i(10)], [i(1)], [v('x')], [k({ a: 1 })], [f('z')], [i(0)], [i(2)]);
    expect(Object.keys(set.toFieldsV1())).toEqual(['f:z', 'k:{"a":1}', 'v:"x"', 'i:0', 'i:1', 'i:2', 'i:10']);
    // A member with children is written once, its "." entry first.
    const both = FieldSet.of([f('spec')], [f('spec'), f('b')], [f('spec'), f('a')]);
    expect(JSON.stringify(both.toFieldsV1())).toBe('{"f:spec":{".":{},"f:a":{},"f:b":{}}}');
    expect(both.paths().map(pathString)).toEqual(['.spec', '.spec.a', '.spec.b']);
  });

  it('decodes what it encodes', () => {
    const fields = {
      'f:data': { '.': {}, 'f:a': {} },
      'f:spec': { 'f:containers': { 'k:{"name":"app"}': { '.': {}, 'f:image': {}, 'f:ports': { 'i:0': {} } } } },
    };
    const set = FieldSet.fromFieldsV1(fields);
    expect(set.has([f('data')])).toBe(true);
    expect(set.has([f('data'), f('a')])).toBe(true);
    expect(set.has([f('spec')])).toBe(false);
    expect(set.has([f('spec'), f('containers'), k({ name: 'app' })])).toBe(true);
    expect(set.has([f('spec'), f('containers'), k({ name: 'app' }), f('ports'), i(0)])).toBe(true);
    expect(set.toFieldsV1()).toEqual(fields);
  });

  it('refuses malformed FieldsV1', () => {
    expect(() => FieldSet.fromFieldsV1({ 'x:bad': {} })).toThrow();
    expect(() => FieldSet.fromFieldsV1([])).toThrow();
  });

  it('prints paths as conflicts name them', () => {
    expect(pathString([f('data'), f('a')])).toBe('.data.a');
    expect(pathString([f('spec'), f('ports'), k({ protocol: 'TCP', port: 80 })])).toBe('.spec.ports[port=80,protocol="TCP"]');
    expect(pathString([f('metadata'), f('finalizers'), v('x')])).toBe('.metadata.finalizers[="x"]');
    expect(pathString([f('items'), i(2)])).toBe('.items[2]');
  });
});

describe('FieldSet operations', () => {
  const a = FieldSet.of([f('a')], [f('b'), f('c')], [f('b'), f('d')]);
  const b = FieldSet.of([f('b'), f('c')], [f('e')]);

  it('union, intersection and difference work on exact paths', () => {
    expect(a.union(b).paths()).toEqual([[f('a')], [f('b'), f('c')], [f('b'), f('d')], [f('e')]]);
    expect(a.intersection(b).paths()).toEqual([[f('b'), f('c')]]);
    expect(a.difference(b).paths()).toEqual([[f('a')], [f('b'), f('d')]]);
    // a member does not remove what lies below it
    expect(FieldSet.of([f('b'), f('c')]).difference(FieldSet.of([f('b')])).paths()).toEqual([[f('b'), f('c')]]);
  });

  it('withoutPrefixes removes whole subtrees', () => {
    expect(a.withoutPrefixes(FieldSet.of([f('b')])).paths()).toEqual([[f('a')]]);
  });

  it('leaves its operands as they were, deep subtrees included', () => {
    const x = FieldSet.of([f('spec'), f('a'), f('b')], [f('spec'), k({ name: 'n' }), f('c')], [f('data')]);
    const y = FieldSet.of([f('spec'), f('a'), f('z')], [f('status'), f('s')], [f('data')]);
    const before = [x.toFieldsV1(), y.toFieldsV1()];
    const results = [x.union(y), y.union(x), x.difference(y), x.withoutPrefixes(FieldSet.of([f('data')])), x.intersection(y), x.union(new FieldSet())];
    expect([x.toFieldsV1(), y.toFieldsV1()]).toEqual(before);
    expect(results[0].paths().map(pathString)).toEqual(['.data', '.spec.a.b', '.spec.a.z', '.spec[name="n"].c', '.status.s']);
    expect(results[0].equals(results[1])).toBe(true);
    expect(results[2].paths().map(pathString)).toEqual(['.spec.a.b', '.spec[name="n"].c']);
    expect(results[3].paths().map(pathString)).toEqual(['.spec.a.b', '.spec[name="n"].c']);
    expect(results[4].paths().map(pathString)).toEqual(['.data']);
    expect(results[5].equals(x)).toBe(true);
  });

  it('knows when it is empty', () => {
    expect(new FieldSet().empty()).toBe(true);
    expect(a.difference(a).empty()).toBe(true);
    expect(a.equals(a.clone())).toBe(true);
  });
});
