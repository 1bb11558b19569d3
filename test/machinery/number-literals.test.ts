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

// The scanner as it was before it skipped strings natively (session 12), the oracle of the literals recorded.
class OldLiteralScanner {
  constructor(
    private readonly s: string,
    private readonly literals: WeakMap<object, Map<string, string>>,
  ) {}

  private i = 0;

  private ws(): void {
    while (this.i < this.s.length && ' \t\r\n'.includes(this.s[this.i])) this.i++;
  }

  /** Scans one value; `container[key]` is where it was parsed to. */
  value(parsed: unknown, container: object | undefined, key: string): void {
    this.ws();
    const c = this.s[this.i];
    if (c === '{') return this.object(parsed);
    if (c === '[') return this.array(parsed);
    if (c === '"') {
      this.string();
      return;
    }
    const start = this.i;
    while (this.i < this.s.length && !',}] \t\r\n'.includes(this.s[this.i])) this.i++;
    const lit = this.s.slice(start, this.i);
    if (container && (c === '-' || (c >= '0' && c <= '9')) && !/^-?(0|[1-9][0-9]{0,14})$/.test(lit)) {
      let map = this.literals.get(container);
      if (!map) this.literals.set(container, (map = new Map()));
      map.set(key, lit);
    }
  }

  private string(): string {
    const start = this.i;
    this.i++;
    while (this.s[this.i] !== '"') this.i += this.s[this.i] === '\\' ? 2 : 1;
    this.i++;
    return JSON.parse(this.s.slice(start, this.i)) as string;
  }

  private object(parsed: unknown): void {
    this.i++;
    const target = typeof parsed === 'object' && parsed !== null ? parsed : undefined;
    for (;;) {
      this.ws();
      if (this.s[this.i] === '}') break;
      const key = this.string();
      this.ws();
      this.i++; // ':'
      // Repeated keys: JSON.parse keeps the last value, and so does the last literal recorded here.
      this.value(target ? (target as Record<string, unknown>)[key] : undefined, target, key);
      this.ws();
      if (this.s[this.i] === ',') this.i++;
    }
    this.i++;
  }

  private array(parsed: unknown): void {
    this.i++;
    const target = Array.isArray(parsed) ? parsed : undefined;
    for (let index = 0; ; index++) {
      this.ws();
      if (this.s[this.i] === ']') break;
      this.value(target?.[index], target, String(index));
      this.ws();
      if (this.s[this.i] === ',') this.i++;
    }
    this.i++;
  }
}

/** Every number of a parsed value with the literal recorded for it, by its path. */
function recorded(value: unknown, literal: (container: object, key: string) => string | undefined): string[] {
  const out: string[] = [];
  const visit = (v: unknown, path: string) => {
    if (typeof v !== 'object' || v === null) return;
    for (const [k, item] of Object.entries(v)) {
      const lit = literal(v, k);
      if (lit !== undefined) out.push(`${path}/${k}=${lit}`);
      visit(item, `${path}/${k}`);
    }
  };
  visit(value, '');
  return out;
}

/** The literals the old scanner records for a text, and those recorded now, each as path=literal lines. */
function bothRecorded(text: string): { old: string[]; now: string[] } {
  const oldLiterals = new WeakMap<object, Map<string, string>>();
  const a = JSON.parse(text);
  new OldLiteralScanner(text, oldLiterals).value(a, undefined, '');
  const b = JSON.parse(text);
  recordNumberLiterals(text, b);
  return { old: recorded(a, (c, k) => oldLiterals.get(c)?.get(k)), now: recorded(b, (c, k) => literalOf(c, k)) };
}

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
      // Every number of the fixture written with a fraction: each one's literal recorded where it was before.
      const fractions = spiced.replace(/(:\s*-?[0-9]+)(?=\s*[,}\]])/g, '$1.0');
      for (const body of [text, spiced, fractions]) {
        const { old, now } = bothRecorded(body);
        expect(now, file).toEqual(old);
      }
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

  it.each([
    '{"a\\"b":1.5,"c\\\\":[2e3,{"d\\u0041":-0.0}],"e":"x\\"1.5"}',
    '{ "k" :\n [ 1.25 , 3 ,\t4E+2 ] , "s" : "1.5" }',
    '{"__proto__":{"x":1.5},"constructor":[0.5]}',
  ])('records the literals the old scanner recorded in %s', (text) => {
    const { old, now } = bothRecorded(text);
    expect(old.length).toBeGreaterThan(0);
    expect(now).toEqual(old);
  });

  it('records nothing for a text whose only such numbers are in strings', () => {
    const text = '{"image":"web:1.25.3","ip":"10.0.0.1","n":1}';
    const value = JSON.parse(text);
    recordNumberLiterals(text, value);
    expect(literalOf(value, 'n')).toBeUndefined();
    expect(holdsUnplainNumber(text)).toBe(false);
  });

  // Every caller passes text JSON.parse accepted; text that is not JSON must still end the scan.
  it('returns on text whose last string never closes, escaped quotes and all', () => {
    for (const text of ['{"n": 1.5, "s": "open', '{"n": 1.5, "s": "a\\"', '{"n": 1.5, "s": "\\\\\\"']) {
      const value = { n: 1.5, s: '' };
      recordNumberLiterals(text, value);
      expect(literalOf(value, 'n')).toBe('1.5');
      expect(holdsUnplainNumber(text.replace('1.5', '1'))).toBe(false);
    }
  });
});
