// Which JSON texts get their number literals recorded (go-decode/number-literals.ts): the texts
// with a number, outside strings, whose value would not print back as written. The cheap test
// that decides it skips strings, so versions and addresses in strings ("nginx:1.25.3") cost no
// walk of the text, and must agree with a tokenizer on every text, escapes included.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { holdsUnplainNumber, literalOf, recordNumberLiterals } from '../../runtime/machinery/go-decode/number-literals.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../support/upstream.js';

/** The tokenizer's answer: some number token (strings skipped whole) is not plain. */
function tokenized(text: string): boolean {
  for (const [token] of text.matchAll(/"(?:[^"\\]|\\.)*"|-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/g)) {
    if (token[0] !== '"' && !/^-?(0|[1-9][0-9]{0,14})$/.test(token)) return true;
  }
  return false;
}

const TEXTS = [
  '{"image":"nginx:1.25.3","ip":"10.0.0.1","n":3}',
  '{"a":1.5}',
  '{"a":[1,2,1e3]}',
  '{"a":-2E-3}',
  '{"a":1234567890123456}',
  '{"a":123456789012345}',
  '{"a":-123456789012345}',
  '{"s":"1234567890123456789","t":"1e3"}',
  '{"s":"a\\"1.5\\"","n":7}',
  '{"s":"a\\\\","n":7.0}',
  '{"s":"a\\\\\\"2e5","n":[0,-0]}',
  '{ "a" : [ 1 , 2.25 ] }',
  '{"é":"ü1.5","x":{"y":[true,null,false]}}',
  '{"k":"v"}',
  '{}',
];

describe('the texts whose number literals are recorded', () => {
  it.each(TEXTS)('%s', (text) => {
    expect(holdsUnplainNumber(text)).toBe(tokenized(text));
  });

  it.runIf(upstreamAvailable())('agrees with the tokenizer on every upstream JSON fixture', () => {
    const dir = join(UPSTREAM_DIR, 'testdata');
    const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(holdsUnplainNumber(text), file).toBe(tokenized(text));
      // The fixtures again with a fraction and a long number put in among their strings.
      const spiced = text.replace(/^\{/, '{"zzFraction":0.25,"zzLong":12345678901234567890,');
      expect(holdsUnplainNumber(spiced), file).toBe(true);
    }
  });

  it('records the literals of numbers written so, beside strings that only look like them', () => {
    const text = '{"image":"web:1.25.3","spec":{"cpu":1.50,"n":[1e3,7]},"big":12345678901234567890}';
    const value = JSON.parse(text);
    recordNumberLiterals(text, value);
    expect(literalOf(value.spec, 'cpu')).toBe('1.50');
    expect(literalOf(value.spec.n, 0)).toBe('1e3');
    expect(literalOf(value.spec.n, 1)).toBeUndefined();
    expect(literalOf(value, 'big')).toBe('12345678901234567890');
    expect(literalOf(value, 'image')).toBeUndefined();
  });

  it('records nothing for a text whose only such numbers are in strings', () => {
    const text = '{"image":"web:1.25.3","ip":"10.0.0.1","n":1}';
    const value = JSON.parse(text);
    recordNumberLiterals(text, value);
    expect(literalOf(value, 'n')).toBeUndefined();
    expect(holdsUnplainNumber(text)).toBe(false);
  });
});
