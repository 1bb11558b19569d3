// The field selector language (`fieldSelector=`): comma-separated `field=value`, `field==value`
// or `field!=value` terms with backslash escaping, as k8s.io/apimachinery/pkg/fields parses it.
// Which fields a kind can be selected by is the kind's business (Strategy.selectableFields);
// asking for any other is a 400 `field label not supported: <field>`.

export class FieldSelectorError extends Error {}

export interface FieldRequirement {
  field: string;
  operator: '=' | '!=';
  value: string;
}

export interface FieldSelector {
  requirements: FieldRequirement[];
  empty: boolean;
  matches(fields: Record<string, string>): boolean;
}

function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

/** The first operator occurrence splits the term; "==" is tried before "=" so no '=' is left on the value. */
function splitTerm(term: string): [string, string, string] | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of ['!=', '==', '=']) {
      if (term.startsWith(op, i)) return [term.slice(0, i), op, term.slice(i + op.length)];
    }
  }
  return undefined;
}

function unescapeValue(s: string): string {
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === '\\' || c === ',' || c === '=') out += c;
      else throw new FieldSelectorError(`invalid field selector: invalid escape sequence: \\${c}`);
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    // Go prints the offending rune with %v, which renders its code point.
    else if (c === ',' || c === '=') throw new FieldSelectorError(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw new FieldSelectorError('invalid field selector: invalid escape sequence: \\');
  return out;
}

export interface FieldSelectorTerm {
  field: string;
  operator: '=' | '==' | '!=';
  value: string;
}

/**
 * The syntax alone: the terms of a selector, sorted as upstream sorts them; '' selects everything.
 * Request info uses this to find a watch's `metadata.name`; lists check fields against the kind.
 */
export function parseFieldSelectorTerms(text: string): FieldSelectorTerm[] {
  const terms: FieldSelectorTerm[] = [];
  for (const part of splitTerms(text).sort()) {
    if (part === '') continue;
    const split = splitTerm(part);
    if (!split) throw new FieldSelectorError(`invalid selector: '${text}'; can't understand '${part}'`);
    const [field, operator, raw] = split;
    terms.push({ field, operator: operator as FieldSelectorTerm['operator'], value: unescapeValue(raw) });
  }
  return terms;
}

/** The value a selector pins `field` to with `=` or `==`, as apimachinery's RequiresExactMatch answers. */
export function requiredExactMatch(terms: FieldSelectorTerm[], field: string): string | undefined {
  return terms.find((t) => t.field === field && t.operator !== '!=')?.value;
}

/**
 * Parses `fieldSelector`; `supported` lists the selectable fields of the kind. Throws
 * FieldSelectorError carrying kube-apiserver's message for syntax errors and unknown fields.
 */
export function parseFieldSelector(text: string, supported: ReadonlySet<string>): FieldSelector {
  const requirements: FieldRequirement[] = parseFieldSelectorTerms(text).map((t) => ({
    field: t.field,
    operator: t.operator === '!=' ? '!=' : '=',
    value: t.value,
  }));
  for (const r of requirements) {
    if (!supported.has(r.field)) throw new FieldSelectorError(`field label not supported: ${r.field}`);
  }
  return {
    requirements,
    empty: requirements.length === 0,
    matches: (fields) =>
      requirements.every((r) => ((fields[r.field] ?? '') === r.value) === (r.operator === '=')),
  };
}
