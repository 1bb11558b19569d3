import { describe, expect, it } from 'vitest';
import { compare, merge, removeItems, toFieldSet, TypedValueError } from '../../runtime/registry/patch/typed-merge.js';
import { FieldSet, fieldElement as f, keyElement as k, valueElement as v } from '../../runtime/registry/apply/fieldpath.js';
import { widgetNode } from './widget-schema.js';

describe('toFieldSet', () => {
  it('owns atomic lists whole, set items by value, map items by key', () => {
    const set = toFieldSet(
      {
        spec: {
          tags: ['a', 'b'],
          flags: ['x', 'y'],
          ports: [{ port: 80, name: 'http' }],
          selector: { app: 'w' },
        },
      },
      widgetNode,
    );
    expect(set.toFieldsV1()).toEqual({
      'f:spec': {
        'f:tags': {},
        'f:flags': { 'v:"x"': {}, 'v:"y"': {} },
        'f:ports': { 'k:{"port":80,"protocol":"TCP"}': { '.': {}, 'f:port': {}, 'f:name': {} } },
        'f:selector': {},
      },
    });
  });

  it('treats a merge patch strategy with a merge key as a map list', () => {
    const set = toFieldSet({ spec: { containers: [{ name: 'app', image: 'i', args: ['1'] }] } }, widgetNode);
    expect(set.has([f('spec'), f('containers'), k({ name: 'app' }), f('args')])).toBe(true);
    expect(set.has([f('spec'), f('containers'), k({ name: 'app' })])).toBe(true);
  });

  it('owns map entries (and null or empty struct fields) as members', () => {
    const set = toFieldSet({ data: { a: '1' }, spec: {}, metadata: { labels: { x: 'y' } } }, widgetNode);
    expect(set.has([f('data'), f('a')])).toBe(true);
    expect(set.has([f('data')])).toBe(false);
    expect(set.has([f('spec')])).toBe(true);
    expect(set.has([f('metadata'), f('labels'), f('x')])).toBe(true);
  });

  it('deduces the shape of preserve-unknown-fields values', () => {
    const set = toFieldSet({ spec: { extra: { deep: { a: 1 }, list: [1, 2] } } }, widgetNode);
    expect(set.has([f('spec'), f('extra'), f('deep')])).toBe(true);
    expect(set.has([f('spec'), f('extra'), f('deep'), f('a')])).toBe(true);
    expect(set.has([f('spec'), f('extra'), f('list')])).toBe(true);
  });

  it('reports undeclared fields, missing keys and duplicates with their paths', () => {
    expect(() => toFieldSet({ sops: {} }, widgetNode, true)).toThrow('.sops: field not declared in schema');
    expect(() => toFieldSet({ spec: { ports: [{ name: 'x' }] } }, widgetNode, true)).toThrow(
      '.spec.ports: element 0: associative list with keys has an element that omits key field "port" (and doesn\'t have default value)',
    );
    try {
      toFieldSet({ spec: { containers: [{ name: 'a' }, { name: 'a' }], flags: ['x', 'x'] } }, widgetNode, true);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(TypedValueError);
      expect((e as Error).message).toBe(
        'errors:\n  .spec.containers: duplicate entries for key [name="a"]\n  .spec.flags: duplicate entries for key [="x"]',
      );
    }
  });
});

describe('merge', () => {
  it('replaces atomic lists and maps, unions sets, merges map lists by key', () => {
    const live = {
      spec: {
        tags: ['a', 'b'],
        flags: ['x'],
        selector: { app: 'w', tier: 'web' },
        containers: [
          { name: 'one', image: 'i1' },
          { name: 'two', image: 'i2' },
        ],
      },
    };
    const config = { spec: { tags: ['c'], flags: ['y', 'x'], selector: { app: 'v' }, containers: [{ name: 'two', image: 'new' }] } };
    expect(merge(live, config, widgetNode)).toEqual({
      spec: {
        tags: ['c'],
        flags: ['y', 'x'],
        selector: { app: 'v' },
        containers: [
          { name: 'one', image: 'i1' },
          { name: 'two', image: 'new' },
        ],
      },
    });
  });

  it('puts shared items in the order of the configuration, keeping live-only items in place', () => {
    const live = { spec: { containers: [{ name: 'a' }, { name: 'b' }, { name: 'c' }] } };
    const config = { spec: { containers: [{ name: 'c' }, { name: 'a' }] } };
    const merged = merge(live, config, widgetNode) as { spec: { containers: { name: string }[] } };
    expect(merged.spec.containers.map((c) => c.name)).toEqual(['b', 'c', 'a']);
  });
});

describe('compare', () => {
  it('reports added containers along with their contents, and changes by path', () => {
    const c = compare({ data: { a: '1' } }, { data: { a: '2' }, metadata: { labels: { x: 'y' } } }, widgetNode);
    expect(c.modified.paths()).toEqual([[f('data'), f('a')]]);
    expect(c.added.paths()).toEqual([[f('metadata')], [f('metadata'), f('labels')], [f('metadata'), f('labels'), f('x')]]);
    expect(c.removed.empty()).toBe(true);
  });

  it('compares set and map list items by element', () => {
    const c = compare({ spec: { flags: ['x', 'y'] } }, { spec: { flags: ['y', 'z'] } }, widgetNode);
    expect(c.added.paths()).toEqual([[f('spec'), f('flags'), v('z')]]);
    expect(c.removed.paths()).toEqual([[f('spec'), f('flags'), v('x')]]);
  });

  it('treats an atomic list as one leaf', () => {
    const c = compare({ spec: { tags: ['a'] } }, { spec: { tags: ['a', 'b'] } }, widgetNode);
    expect(c.modified.paths()).toEqual([[f('spec'), f('tags')]]);
  });
});

describe('removeItems', () => {
  it('removes subtrees and containers left empty', () => {
    const value = { spec: { flags: ['x', 'y'], ports: [{ port: 80 }, { port: 81 }] }, data: { a: '1' } };
    const out = removeItems(
      value,
      FieldSet.of([f('spec'), f('flags'), v('x')], [f('spec'), f('ports'), k({ port: 80, protocol: 'TCP' })], [f('data'), f('a')]),
      widgetNode,
    );
    expect(out).toEqual({ spec: { flags: ['y'], ports: [{ port: 81 }] } });
  });
});
