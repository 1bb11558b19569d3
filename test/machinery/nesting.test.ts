// The nesting limit's measurements: JSON text, parsed values and YAML (text, syntax tree and the
// values aliases expand to), each without using the call stack.
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { MAX_NESTING_DEPTH, NestingTooDeep, jsonNestingBracket, nestsDeeperThan, parseYamlBounded, yamlMayNestDeeperThan, yamlNestsDeeperThan } from '../../runtime/machinery/nesting.js';

const bytes = (s: string) => Buffer.from(s, 'utf8');
const arrays = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
const blockYaml = (levels: number) => Array.from({ length: levels }, (_, i) => `${' '.repeat(2 * i)}a:`).join('\n') + ' 1\n';

describe('JSON text', () => {
  it('finds the first bracket past the limit, in text order', () => {
    expect(jsonNestingBracket(bytes(arrays(MAX_NESTING_DEPTH)))).toBeUndefined();
    expect(jsonNestingBracket(bytes(arrays(MAX_NESTING_DEPTH + 1)))).toBe('[');
    expect(jsonNestingBracket(bytes(`{"a":${arrays(3)},"b":{"c":{"d":[{}]}}}`), 4)).toBe('{');
    expect(jsonNestingBracket(bytes(`[{"a":${arrays(4)}}]`), 4)).toBe('[');
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const text = `{"a":"${'['.repeat(600)}\\"${'{'.repeat(600)}\\\\","b":[[1]]}`;
    expect(JSON.parse(text)).toBeTruthy();
    expect(jsonNestingBracket(bytes(text), 3)).toBeUndefined();
    expect(jsonNestingBracket(bytes(text), 2)).toBe('[');
  });

  it('reads a million levels', () => {
    expect(jsonNestingBracket(bytes(arrays(1_000_000)))).toBe('[');
  });
});

describe('parsed values', () => {
  it('counts containers, the outermost as one', () => {
    expect(nestsDeeperThan({ a: [{ b: [] }] }, 4)).toBe(false);
    expect(nestsDeeperThan({ a: [{ b: [[]] }] }, 4)).toBe(true);
    expect(nestsDeeperThan('scalar', 0)).toBe(false);
    let deep: unknown = [];
    for (let i = 1; i < 1_000_000; i++) deep = [deep];
    expect(nestsDeeperThan(deep)).toBe(true);
  });
});

describe('YAML', () => {
  it('measures flow and block nesting from the syntax tree', () => {
    expect(yamlNestsDeeperThan(blockYaml(MAX_NESTING_DEPTH))).toBe(false);
    expect(yamlNestsDeeperThan(blockYaml(MAX_NESTING_DEPTH + 1))).toBe(true);
    expect(yamlNestsDeeperThan(`a: ${arrays(MAX_NESTING_DEPTH - 1)}`)).toBe(false);
    expect(yamlNestsDeeperThan(`a: ${arrays(MAX_NESTING_DEPTH)}`)).toBe(true);
    expect(yamlNestsDeeperThan(`${'- '.repeat(MAX_NESTING_DEPTH)}x`)).toBe(false);
    expect(yamlNestsDeeperThan(`${'- '.repeat(MAX_NESTING_DEPTH + 1)}x`)).toBe(true);
    expect(yamlNestsDeeperThan(arrays(100_000))).toBe(true);
  });

  it('skips the syntax tree only when a cheap bound proves the text shallow', () => {
    const manifest = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'nginx', env: [{ name: 'A', value: 'b' }] }] } };
    expect(yamlMayNestDeeperThan(stringify(manifest), MAX_NESTING_DEPTH)).toBe(false);
    expect(yamlMayNestDeeperThan(JSON.stringify(manifest), MAX_NESTING_DEPTH)).toBe(false);
    for (const deep of [blockYaml(MAX_NESTING_DEPTH + 1), arrays(MAX_NESTING_DEPTH + 1), `${'- '.repeat(MAX_NESTING_DEPTH + 1)}x`, `${'? '.repeat(MAX_NESTING_DEPTH + 1)}x`]) {
      expect(yamlMayNestDeeperThan(deep, MAX_NESTING_DEPTH)).toBe(true);
    }
  });

  it('parses documents within the limit and refuses deeper ones, aliases expanded', () => {
    expect(parseYamlBounded(blockYaml(3), {})).toEqual({ a: { a: { a: 1 } } });
    expect(() => parseYamlBounded(blockYaml(MAX_NESTING_DEPTH + 1), {})).toThrow(NestingTooDeep);
    expect(() => parseYamlBounded(arrays(40_000), {})).toThrow(`yaml: exceeded max depth of ${MAX_NESTING_DEPTH}`);
    // Each alias stands for a whole anchored collection: the text is shallow, its value is not.
    const aliased = `x: &x ${arrays(200)}\ny: ${'['.repeat(100)}*x${']'.repeat(100)}\n`;
    expect(yamlNestsDeeperThan(aliased)).toBe(false);
    expect(() => parseYamlBounded(aliased, {})).toThrow(NestingTooDeep);
  });
});

describe('YAML syntax errors', () => {
  it('stops at the first one, worded and placed as the library words it', () => {
    expect(() => parseYamlBounded(`a: [${']'.repeat(1_000_000)}`, {})).toThrow('Unexpected flow-seq-end token in YAML stream: "]" at line 1, column 6:');
    expect(() => parseYamlBounded(`a: b\n${'}'.repeat(1_000_000)}`, {})).toThrow('Unexpected flow-map-end token in YAML stream: "}" at line 2, column 1:');
    expect(() => parseYamlBounded('kind: A\n  b: c\n d: e', {})).toThrow('Nested mappings are not allowed in compact mappings at line 1, column 7:');
    expect(() => parseYamlBounded('a: 1\n---\nb: 2\n', {})).toThrow('Source contains multiple documents; please use YAML.parseAllDocuments() at line 2, column 1:');
    expect(parseYamlBounded('a: [1, {b: c}]\n', {})).toEqual({ a: [1, { b: 'c' }] });
  });
});
