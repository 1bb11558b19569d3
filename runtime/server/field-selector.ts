// Field selectors (`?fieldSelector=metadata.name=foo,status.phase!=Running`), parsed the way
// k8s.io/apimachinery/pkg/fields does: terms split on unescaped commas, the first operator in a
// term splits it (`!=`, `==`, `=`), and values may escape `\`, `,` and `=` with a backslash.

export type FieldSelectorOperator = '=' | '==' | '!=';

export interface FieldSelectorTerm {
  field: string;
  operator: FieldSelectorOperator;
  /** The unescaped value. */
  value: string;
}

export class FieldSelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FieldSelectorError';
  }
}

// Longer operators first, so `!=` and `==` are never read as `=`.
const OPERATORS: FieldSelectorOperator[] = ['!=', '==', '='];

function splitTerms(selector: string): string[] {
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

function splitTerm(term: string): [string, FieldSelectorOperator, string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of OPERATORS) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

function unescapeValue(raw: string): string {
  if (!/[\\,=]/.test(raw)) return raw;
  let out = '';
  let escaped = false;
  for (const c of raw) {
    if (escaped) {
      if (c !== '\\' && c !== ',' && c !== '=') {
        throw new FieldSelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      }
      out += c;
      escaped = false;
    } else if (c === '\\') {
      escaped = true;
    } else if (c === ',' || c === '=') {
      // apimachinery prints the rune with %v, i.e. its code point.
      throw new FieldSelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    } else {
      out += c;
    }
  }
  if (escaped) throw new FieldSelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Parses a field selector; an empty selector selects everything (no terms). Terms come sorted, as upstream sorts them. */
export function parseFieldSelector(selector: string): FieldSelectorTerm[] {
  if (selector === '') return [];
  const parts = splitTerms(selector).sort();
  const terms: FieldSelectorTerm[] = [];
  for (const part of parts) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) throw new FieldSelectorError(`invalid selector: '${selector}'; can't understand '${part}'`);
    const [field, operator, rawValue] = split;
    terms.push({ field, operator, value: unescapeValue(rawValue) });
  }
  return terms;
}

/** The value a selector pins `field` to with `=` or `==`, as apimachinery's RequiresExactMatch answers. */
export function requiredExactMatch(terms: FieldSelectorTerm[], field: string): string | undefined {
  for (const t of terms) {
    if (t.field === field && t.operator !== '!=') return t.value;
  }
  return undefined;
}
