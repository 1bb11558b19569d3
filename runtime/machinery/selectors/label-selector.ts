// The label selector language of list and watch (`labelSelector=`): a lexer and a recursive
// descent parser following k8s.io/apimachinery/pkg/labels, so that both accepted syntax and the
// error sentences match kube-apiserver (a parse error is a 400 BadRequest with that sentence).

import { isLabelValue, isQualifiedName } from '../formats.js';
import { getMember } from '../own-member.js';
import { aggregate, invalidValue } from './label-validation.js';

export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  key: string;
  operator: LabelOperator;
  values: string[];
}

export interface LabelSelector {
  requirements: LabelRequirement[];
  matches(labels: Record<string, string> | undefined): boolean;
  empty: boolean;
}

export class LabelSelectorError extends Error {}

type Tok = 'ident' | 'end' | 'error' | ')' | ',' | '!' | '==' | '=' | '>' | 'in' | '<' | '!=' | 'notin' | '(';
interface Item {
  tok: Tok;
  lit: string;
}

const SYMBOLS: Record<string, Tok> = { ')': ')', ',': ',', '!': '!', '==': '==', '=': '=', '>': '>', '<': '<', '!=': '!=', '(': '(' };
const KEYWORDS: Record<string, Tok> = { in: 'in', notin: 'notin' };
const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

const isWhitespace = (c: string): boolean => c === ' ' || c === '\t' || c === '\r' || c === '\n';
const isSpecial = (c: string): boolean => '=!(),><'.includes(c);

function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos])) pos++;
    if (pos >= s.length) {
      items.push({ tok: 'end', lit: '' });
      return items;
    }
    if (isSpecial(s[pos])) {
      // The longest run of symbol characters that still forms an operator wins ("!=" over "!").
      let buffer = '';
      let last: Item | undefined;
      while (pos < s.length && isSpecial(s[pos])) {
        buffer += s[pos];
        const tok = SYMBOLS[buffer];
        if (tok) {
          last = { tok, lit: buffer };
          pos++;
        } else if (last) {
          break;
        } else {
          pos++;
        }
      }
      items.push(last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` });
      continue;
    }
    let word = '';
    while (pos < s.length && !isSpecial(s[pos]) && !isWhitespace(s[pos])) word += s[pos++];
    items.push({ tok: (getMember(KEYWORDS, word) as Tok | undefined) ?? 'ident', lit: word });
  }
}

class Parser {
  private pos = 0;
  constructor(private readonly items: Item[]) {}

  /** In value position the keywords `in` and `notin` are plain identifiers. */
  private peek(values: boolean): Item {
    const it = this.items[this.pos];
    return values && (it.tok === 'in' || it.tok === 'notin') ? { tok: 'ident', lit: it.lit } : it;
  }
  private next(values: boolean): Item {
    const it = this.peek(values);
    this.pos++;
    return it;
  }

  parse(): LabelRequirement[] {
    const out: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.peek(true);
      if (tok === 'end') return out;
      if (tok !== 'ident' && tok !== '!') throw new LabelSelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        out.push(this.requirement());
      } catch (e) {
        throw new LabelSelectorError(`unable to parse requirement: ${(e as Error).message}`);
      }
      const after = this.next(true);
      if (after.tok === 'end') return out;
      if (after.tok !== ',') throw new LabelSelectorError(`found '${after.lit}', expected: ',' or 'end of string'`);
      const following = this.peek(true);
      if (following.tok !== 'ident' && following.tok !== '!') {
        throw new LabelSelectorError(`found '${following.lit}', expected: identifier after ','`);
      }
    }
  }

  private requirement(): LabelRequirement {
    let operator: LabelOperator | undefined;
    let { tok, lit } = this.next(true);
    if (tok === '!') {
      operator = '!';
      ({ tok, lit } = this.next(true));
    }
    if (tok !== 'ident') throw new Error(`found '${lit}', expected: identifier`);
    const keyErrs = isQualifiedName(lit);
    if (keyErrs.length) throw new Error(invalidValue('<nil>', lit, keyErrs.join('; ')));
    const key = lit;
    const ahead = this.peek(true).tok;
    if (ahead === 'end' || ahead === ',') return newRequirement(key, operator ?? 'exists', []);
    if (operator === '!') return newRequirement(key, '!', []);
    const op = this.next(false);
    switch (op.tok) {
      case 'in':
      case 'notin':
        return newRequirement(key, op.tok, this.setValues());
      case '=':
      case '==':
      case '!=':
        return newRequirement(key, op.tok, this.exactValue());
      case '>':
        return newRequirement(key, 'gt', this.exactValue());
      case '<':
        return newRequirement(key, 'lt', this.exactValue());
      default:
        throw new Error(`found '${op.lit}', expected: ${BINARY_OPERATORS}`);
    }
  }

  private setValues(): string[] {
    const open = this.next(true);
    if (open.tok !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const first = this.peek(true);
    if (first.tok === ')') {
      this.pos++;
      return [''];
    }
    if (first.tok !== 'ident' && first.tok !== ',') throw new Error(`found '${first.lit}', expected: ',', ')' or identifier`);
    const values = new Set<string>();
    for (;;) {
      const it = this.next(true);
      if (it.tok === 'ident') {
        values.add(it.lit);
        const after = this.peek(true);
        if (after.tok === ',') continue;
        if (after.tok === ')') break;
        throw new Error(`found '${after.lit}', expected: ',' or ')'`);
      } else if (it.tok === ',') {
        // Empty members, as in "(,a)" or "(a,)", stand for the empty value.
        if (values.size === 0) values.add('');
        const after = this.peek(true);
        if (after.tok === ')') {
          values.add('');
          break;
        }
        if (after.tok === ',') {
          this.pos++;
          values.add('');
        }
      } else {
        throw new Error(`found '${it.lit}', expected: ',', or identifier`);
      }
    }
    const close = this.next(true);
    if (close.tok !== ')') throw new Error(`found '${first.lit}', expected: ')'`);
    return [...values].sort();
  }

  private exactValue(): string[] {
    const ahead = this.peek(true);
    if (ahead.tok === 'end' || ahead.tok === ',') return [''];
    const it = this.next(true);
    if (it.tok === 'ident') return [it.lit];
    throw new Error(`found '${it.lit}', expected: identifier`);
  }
}

function newRequirement(key: string, operator: LabelOperator, values: string[]): LabelRequirement {
  const errs: string[] = [];
  if ((operator === 'in' || operator === 'notin') && values.length === 0) {
    errs.push(invalidValue('values', values, "for 'in', 'notin' operators, values set can't be empty"));
  }
  if (operator === 'gt' || operator === 'lt') {
    values.forEach((v, i) => {
      if (!/^[+-]?\d+$/.test(v)) errs.push(invalidValue(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
    });
  }
  values.forEach((v, i) => {
    const msgs = isLabelValue(v);
    if (msgs.length) errs.push(invalidValue(`values[${i}][${key}]`, v, msgs.join('; ')));
  });
  if (errs.length) throw new Error(aggregate(errs));
  return { key, operator, values };
}

function requirementMatches(r: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value as string);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value as string);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^[+-]?\d+$/.test(value as string)) return false;
      const n = BigInt(value as string);
      const bound = BigInt(r.values[0]);
      return r.operator === 'gt' ? n > bound : n < bound;
    }
  }
}

/** Parses `labelSelector`; throws LabelSelectorError with kube-apiserver's message. Empty matches everything. */
export function parseLabelSelector(text: string): LabelSelector {
  const requirements = new Parser(lex(text)).parse();
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return {
    requirements,
    empty: requirements.length === 0,
    matches: (labels) => requirements.every((r) => requirementMatches(r, labels ?? {})),
  };
}
