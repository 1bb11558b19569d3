// The YAML writer for values too deep for the yaml package writes what the package writes with
// encodeYAML's options, and takes any depth.
import { describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { deepYAML } from '../../runtime/api/deep-yaml.js';
import { encodeYAML } from '../../runtime/api/serializers.js';

const OPTIONS = { indentSeq: false, lineWidth: 0, minContentWidth: 0 };

describe('deepYAML', () => {
  it.each([
    { a: 1, b: 'x', c: null, d: true, e: [], f: {}, g: [1, 'two', null, [], {}], h: { i: { j: 'k' } } },
    [[1, 2], [3], { a: 1, b: [{ c: 2, d: [[4]] }] }],
    { s: 'multi\nline\ntext', t: 'trailing\n', u: '  lead', v: 'a: b', w: '- x', x: '', y: '123', z: 'true', '': 1, 'k y': 2, 'q"': 3, 'a\nb': 4, '#c': 5 },
    { list: [{ s: 'multi\nline' }, 'x\ny'], n: { m: ['p\nq'] } },
    [{ a: { b: [] } }],
    { deep: [[[{ a: [[{ b: 'c' }]] }]]] },
    'scalar',
    42,
    null,
    [],
    {},
  ])('writes %j as the yaml package does', (value) => {
    expect(deepYAML(value)).toBe(stringify(value, OPTIONS));
  });

  /** `levels` mappings, each with a sequence holding the next mapping and a number, and a string after it. */
  function nested(levels: number): Record<string, unknown> {
    const root: Record<string, unknown> = {};
    let at = root;
    for (let i = 1; i < levels; i++) {
      const next: Record<string, unknown> = {};
      at.a = [next, i];
      at.b = `v${i}`;
      at = next;
    }
    return root;
  }
  /** Lines of its YAML: "a:" (on the dash's line below the top) and "b: v<i>" per mapping, "- <i>" per sequence, "- {}" last. */
  const linesOf = (levels: number) => 3 * levels - 2;

  it('writes what the package writes as deep as the package goes', () => {
    const text = deepYAML(nested(200));
    expect(text).toBe(stringify(nested(200), OPTIONS));
    expect(text.split('\n').length - 1).toBe(linesOf(200));
  });

  it('writes a value nested 10,000 levels, which the package cannot, through encodeYAML', () => {
    expect(() => stringify(nested(10_000), OPTIONS)).toThrow(RangeError);
    const text = encodeYAML(nested(10_000));
    expect(text.split('\n', 4)).toEqual(['a:', '- a:', '  - a:', '    - a:']);
    expect(text.split('\n').length - 1).toBe(linesOf(10_000));
    expect(text.endsWith('\n- 1\nb: v1\n')).toBe(true);
  });
});
