// kubectl's JSONPath templates (k8s.io/client-go/util/jsonpath): text with `{...}` actions made
// of fields, `..`, `*`, indexes and slices, unions, filters `[?(@.x == "y")]`, quoted text and
// `range`/`end`. The parser accepts exactly what kube's accepts and fails with its messages;
// evaluation walks plain JSON values as kube walks unstructured content, so a printer column
// shows what kube-apiserver shows. Go's map order is random where kube iterates a map (`*`,
// `..`); here it is the object's key order.

export class JSONPathError extends Error {}

export interface SliceParam {
  value: number;
  known: boolean;
  /** The end of a plain index `[i]`, taken as start + 1. */
  derived: boolean;
}

export type JSONPathNode =
  | { type: 'list'; nodes: JSONPathNode[] }
  | { type: 'text'; text: string }
  | { type: 'field'; name: string }
  | { type: 'array'; params: [SliceParam, SliceParam, SliceParam] }
  | { type: 'filter'; left: JSONPathList; right: JSONPathList; operator: string }
  | { type: 'int'; value: number }
  | { type: 'float'; value: number }
  | { type: 'bool'; value: boolean }
  | { type: 'wildcard' }
  | { type: 'recursive' }
  | { type: 'union'; nodes: JSONPathList[] }
  | { type: 'identifier'; name: string };

export type JSONPathList = Extract<JSONPathNode, { type: 'list' }>;

/** A parsed template: its top-level nodes (text, and one list per `{...}` action). */
export interface ParsedJSONPath {
  template: string;
  root: JSONPathList;
}

const EOF = '';
const SLICE = /^(-?\d*)(:-?\d*)?(:-?\d*)?$/;
const DICT_KEY = /^'([^']*)'$/;
const FILTER = /^([^!<>=]+)([!<>=]+)(.+?)$/;

const isSpace = (r: string) => r === ' ' || r === '\t';
const isEndOfLine = (r: string) => r === '\r' || r === '\n';
const isTerminator = (r: string) => r === EOF || isSpace(r) || isEndOfLine(r) || '.,[]$@{}'.includes(r);
const isAlphaNumeric = (r: string) => r === '_' || /^[\p{L}\p{Nd}]$/u.test(r);
const isDigit = (r: string) => /^\p{Nd}$/u.test(r);

/** Go's strconv.Atoi: an optional sign and ASCII digits only, within 64 bits. */
function atoi(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = Number(s);
  return Number.isSafeInteger(n) || Math.abs(n) < 2 ** 63 ? n : undefined;
}

/** Go's %#U of a rune: `U+0021 '!'`. */
function goRune(r: string): string {
  const cp = r.codePointAt(0) ?? 0;
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(r) ? `${hex} '${r}'` : hex;
}

/** strconv.UnquoteChar's escapes, for single- and double-quoted text (UnquoteExtend). */
function unquoteExtend(s: string): string {
  const quote = s[0];
  if (s.length < 2 || (quote !== '"' && quote !== "'") || s[s.length - 1] !== quote) throw new JSONPathError('invalid syntax');
  const body = s.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === quote) throw new JSONPathError('invalid syntax');
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = body[++i];
    const simple: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '\\': '\\' };
    if (e === undefined) throw new JSONPathError('invalid syntax');
    if (simple[e] !== undefined) out += simple[e];
    else if (e === quote) out += e;
    else if (e === 'x' || e === 'u' || e === 'U') {
      const width = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = body.slice(i + 1, i + 1 + width);
      if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) throw new JSONPathError('invalid syntax');
      const cp = parseInt(hex, 16);
      if (e !== 'x' && (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) throw new JSONPathError('invalid syntax');
      out += e === 'x' ? String.fromCharCode(cp) : String.fromCodePoint(cp);
      i += width;
    } else if (/[0-7]/.test(e)) {
      const oct = body.slice(i, i + 3);
      if (!/^[0-7]{3}$/.test(oct) || parseInt(oct, 8) > 255) throw new JSONPathError('invalid syntax');
      out += String.fromCharCode(parseInt(oct, 8));
      i += 2;
    } else throw new JSONPathError('invalid syntax');
  }
  return out;
}

class Parser {
  private pos = 0;
  private start = 0;
  private width = 0;
  readonly root: JSONPathList = { type: 'list', nodes: [] };

  constructor(private readonly input: string) {}

  parse(): JSONPathList {
    this.parseText(this.root);
    return this.root;
  }

  private consumeText(): string {
    const value = this.input.slice(this.start, this.pos);
    this.start = this.pos;
    return value;
  }

  private next(): string {
    if (this.pos >= this.input.length) {
      this.width = 0;
      return EOF;
    }
    const r = String.fromCodePoint(this.input.codePointAt(this.pos) ?? 0);
    this.width = r.length;
    this.pos += r.length;
    return r;
  }

  private peek(): string {
    const r = this.next();
    this.backup();
    return r;
  }

  private backup(): void {
    this.pos -= this.width;
  }

  private rest(): string {
    return this.input.slice(this.pos);
  }

  private parseText(cur: JSONPathList): void {
    for (;;) {
      if (this.rest().startsWith('{')) {
        if (this.pos > this.start) cur.nodes.push({ type: 'text', text: this.consumeText() });
        this.parseLeftDelim(cur);
        return;
      }
      if (this.next() === EOF) break;
    }
    if (this.pos > this.start) cur.nodes.push({ type: 'text', text: this.consumeText() });
  }

  private parseLeftDelim(cur: JSONPathList): void {
    this.pos += 1;
    this.consumeText();
    const list: JSONPathList = { type: 'list', nodes: [] };
    cur.nodes.push(list);
    this.parseInsideAction(list);
  }

  // Written as a loop where kube's parser recurses once per token, so a long path cannot exhaust the stack.
  private parseInsideAction(cur: JSONPathList): void {
    for (;;) {
      const rest = this.rest();
      if (rest.startsWith('}')) {
        this.pos += 1;
        this.consumeText();
        this.parseText(this.root);
        return;
      }
      if (rest.startsWith('[?(')) {
        this.parseFilter(cur);
        continue;
      }
      if (rest.startsWith('..')) {
        this.parseRecursive(cur);
        continue;
      }
      const r = this.next();
      if (r === EOF || isEndOfLine(r)) throw new JSONPathError('unclosed action');
      if (r === ' ' || r === '@' || r === '$') this.consumeText();
      else if (r === '[') this.parseArray(cur);
      else if (r === '"' || r === "'") this.parseQuote(cur, r);
      else if (r === '.') this.parseField(cur);
      else if (r === '+' || r === '-' || isDigit(r)) {
        this.backup();
        this.parseNumber(cur);
      } else if (isAlphaNumeric(r)) {
        this.backup();
        this.parseIdentifier(cur);
      } else throw new JSONPathError(`unrecognized character in action: ${goRune(r)}`);
    }
  }

  private parseIdentifier(cur: JSONPathList): void {
    for (;;) {
      if (isTerminator(this.next())) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    if (value === 'true' || value === 'false') cur.nodes.push({ type: 'bool', value: value === 'true' });
    else cur.nodes.push({ type: 'identifier', name: value });
  }

  private parseRecursive(cur: JSONPathList): void {
    if (cur.nodes[cur.nodes.length - 1]?.type === 'recursive') throw new JSONPathError('invalid multiple recursive descent');
    this.pos += 2;
    this.consumeText();
    cur.nodes.push({ type: 'recursive' });
    if (isAlphaNumeric(this.peek())) this.parseField(cur);
  }

  private parseNumber(cur: JSONPathList): void {
    const sign = this.peek();
    if (sign === '+' || sign === '-') this.next();
    for (;;) {
      const r = this.next();
      if (r !== '.' && !isDigit(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    const i = atoi(value);
    if (i !== undefined) {
      cur.nodes.push({ type: 'int', value: i });
      return;
    }
    // strconv.ParseFloat: digits with at most one point, at least one digit.
    if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(value)) {
      cur.nodes.push({ type: 'float', value: Number(value) });
      return;
    }
    throw new JSONPathError(`cannot parse number ${value}`);
  }

  private parseArray(cur: JSONPathList): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JSONPathError('unterminated array');
      if (r === ']') break;
    }
    let text = this.consumeText().slice(1, -1);
    if (text === '*') text = ':';

    const parts = text.split(',');
    if (parts.length > 1) {
      const union: JSONPathList[] = parts.map((part) => parseAction(`[${part.replace(/^ +| +$/g, '')}]`));
      cur.nodes.push({ type: 'union', nodes: union });
      return;
    }

    const key = DICT_KEY.exec(text);
    if (key) {
      cur.nodes.push(...parseAction(`.${key[1]}`).nodes);
      return;
    }

    const slice = SLICE.exec(text);
    if (!slice) throw new JSONPathError(`invalid array index ${text}`);
    const params: [SliceParam, SliceParam, SliceParam] = [
      { value: 0, known: false, derived: false },
      { value: 0, known: false, derived: false },
      { value: 0, known: false, derived: false },
    ];
    for (let i = 0; i < 3; i++) {
      let part = slice[i + 1] ?? '';
      if (part !== '') {
        if (i > 0) part = part.slice(1);
        if (i > 0 && part === '') continue;
        const n = atoi(part);
        if (n === undefined) throw new JSONPathError(`array index ${part} is not a number`);
        params[i] = { value: n, known: true, derived: false };
      } else if (i === 1) {
        params[1] = { value: params[0].value + 1, known: true, derived: true };
      }
    }
    cur.nodes.push({ type: 'array', params });
  }

  private parseFilter(cur: JSONPathList): void {
    this.pos += 3;
    this.consumeText();
    let begin = false;
    let end = false;
    let pair = '';
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JSONPathError('unterminated filter');
      if (r === '"' || r === "'") {
        if (!begin) {
          begin = true;
          pair = r;
          continue;
        }
        if (this.input[this.pos - 2] !== '\\' && r === pair) end = true;
      } else if (r === ')' && begin === end) break;
    }
    if (this.next() !== ']') throw new JSONPathError('unclosed array expect ]');
    const text = this.consumeText().slice(0, -2);
    const m = FILTER.exec(text);
    if (!m) {
      cur.nodes.push({ type: 'filter', left: parseAction(text), right: { type: 'list', nodes: [] }, operator: 'exists' });
      return;
    }
    cur.nodes.push({ type: 'filter', left: parseAction(m[1]), right: parseAction(m[3]), operator: m[2] });
  }

  private parseQuote(cur: JSONPathList, end: string): void {
    for (;;) {
      const r = this.next();
      if (r === EOF || r === '\n') throw new JSONPathError('unterminated quoted string');
      if (r === end && this.input[this.pos - 2] !== '\\') break;
    }
    const value = this.consumeText();
    let text: string;
    try {
      text = unquoteExtend(value);
    } catch (e) {
      throw new JSONPathError(`unquote string ${value} error ${(e as Error).message}`);
    }
    cur.nodes.push({ type: 'text', text });
  }

  private parseField(cur: JSONPathList): void {
    this.consumeText();
    for (;;) {
      const r = this.next();
      if (r === '\\') this.next();
      else if (isTerminator(r)) {
        this.backup();
        break;
      }
    }
    const value = this.consumeText();
    if (value === '*') cur.nodes.push({ type: 'wildcard' });
    else cur.nodes.push({ type: 'field', name: value.replaceAll('\\', '') });
  }
}

/** The nodes of one action, as kube parses the parts of a union, a dict key or a filter. */
function parseAction(text: string): JSONPathList {
  return new Parser(`{${text}}`).parse().nodes[0] as JSONPathList;
}

/** Parses a JSONPath template (`{.metadata.name}`, `name: {.metadata.name}`); throws JSONPathError with kube's message. */
export function parseJSONPath(template: string): ParsedJSONPath {
  return { template, root: new Parser(template).parse() };
}

/**
 * A CRD printer column's path as kube-apiserver compiles it (tableconvertor.New): the path wrapped
 * in `{}`, so `.status.conditions[?(@.type=="Ready")].status` is one action.
 */
export function parseColumnJSONPath(path: string): ParsedJSONPath {
  return parseJSONPath(`{${path}}`);
}

export interface EvaluateOptions {
  /** A missing field gives no result instead of an error (kubectl's --allow-missing-template-keys; printer columns). */
  allowMissingKeys?: boolean;
}

type Values = unknown[];

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The Go type of a decoded JSON value, as kube's errors name it. */
function goTypeName(v: unknown): string {
  if (Array.isArray(v)) return '[]interface {}';
  if (isObject(v)) return 'map[string]interface {}';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return 'interface {}';
}

/** Go's reflect kinds that a template comparison knows. */
type BasicKind = 'bool' | 'int' | 'float' | 'string';

function basicKind(v: unknown): BasicKind {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int' : 'float';
  if (v instanceof FloatValue) return 'float';
  throw new JSONPathError('invalid type for comparison');
}

/** A float literal of the template (`1.0`), which Go keeps apart from an integer of the same value. */
class FloatValue {
  constructor(readonly value: number) {}
}

const plain = (v: unknown): unknown => (v instanceof FloatValue ? v.value : v);

function compare(op: string, left: unknown, right: unknown): boolean {
  const k1 = basicKind(left);
  const k2 = basicKind(right);
  if (k1 !== k2) throw new JSONPathError('incompatible types for comparison');
  const a = plain(left) as number | string | boolean;
  const b = plain(right) as number | string | boolean;
  switch (op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
  }
  if (k1 === 'bool') throw new JSONPathError('invalid type for comparison');
  switch (op) {
    case '<':
      return a < b;
    case '>':
      return a > b;
    case '<=':
      return a <= b;
    case '>=':
      return a >= b;
  }
  throw new JSONPathError(`unrecognized filter operator ${op}`);
}

class Evaluator {
  constructor(private readonly allowMissingKeys: boolean) {}

  walk(input: Values, node: JSONPathNode): Values {
    switch (node.type) {
      case 'list':
        return this.evalList(input, node);
      case 'text':
        return [node.text];
      case 'field':
        return this.evalField(input, node.name);
      case 'array':
        return this.evalArray(input, node.params);
      case 'filter':
        return this.evalFilter(input, node);
      case 'int':
        return input.map(() => node.value);
      case 'float':
        return input.map(() => new FloatValue(node.value));
      case 'wildcard':
        return this.evalWildcard(input);
      case 'recursive':
        return this.evalRecursive(input);
      case 'union':
        return node.nodes.flatMap((list) => this.evalList(input, list));
      case 'identifier':
        if (node.name === 'range' || node.name === 'end') return input;
        throw new JSONPathError(`unrecognized identifier ${node.name}`);
      case 'bool':
        return input.map(() => node.value);
    }
  }

  evalList(input: Values, list: JSONPathList): Values {
    let cur = input;
    for (const node of list.nodes) cur = this.walk(cur, node);
    return cur;
  }

  private evalField(input: Values, name: string): Values {
    if (input.length === 0) return [];
    const results: Values = [];
    for (const value of input) {
      if (isObject(value) && Object.hasOwn(value, name)) results.push(value[name]);
    }
    if (results.length === 0 && !this.allowMissingKeys) throw new JSONPathError(`${name} is not found`);
    return results;
  }

  private evalArray(input: Values, node: [SliceParam, SliceParam, SliceParam]): Values {
    const result: Values = [];
    for (const value of input) {
      if (value === null || value === undefined) continue;
      if (!Array.isArray(value)) throw new JSONPathError(`${goTypeName(value)} is not array or slice`);
      const len = value.length;
      let start = node[0].known ? node[0].value : 0;
      if (start < 0) start += len;
      let end = node[1].known ? node[1].value : len;
      if (end < 0 || (end === 0 && node[1].derived)) end += len;
      if (end === start) return result;
      if (start >= len || start < 0) throw new JSONPathError(`array index out of bounds: index ${start}, length ${len}`);
      if (end > len || end < 0) throw new JSONPathError(`array index out of bounds: index ${end - 1}, length ${len}`);
      if (start > end) throw new JSONPathError(`starting index ${start} is greater than ending index ${end}`);
      let step = 1;
      if (node[2].known) {
        if (node[2].value <= 0) throw new JSONPathError('step must be > 0');
        step = node[2].value;
      }
      for (let i = start; i < end; i += step) result.push(value[i]);
    }
    return result;
  }

  private children(value: unknown): Values {
    if (isObject(value)) return Object.values(value);
    if (Array.isArray(value)) return value;
    // Go indexes a string byte by byte, each a uint8.
    if (typeof value === 'string') return [...Buffer.from(value, 'utf8')];
    return [];
  }

  private evalWildcard(input: Values): Values {
    return input.flatMap((value) => (value === null || value === undefined ? [] : this.children(value)));
  }

  private evalRecursive(input: Values): Values {
    const result: Values = [];
    for (const value of input) {
      if (value === null || value === undefined) continue;
      const children = this.children(value);
      if (children.length === 0) continue;
      result.push(value);
      result.push(...this.evalRecursive(children));
    }
    return result;
  }

  private evalFilter(input: Values, node: Extract<JSONPathNode, { type: 'filter' }>): Values {
    const results: Values = [];
    for (const value of input) {
      if (!Array.isArray(value)) throw new JSONPathError(`${goPrint(value)} is not array or slice and cannot be filtered`);
      for (const item of value) {
        let lefts: Values;
        let leftError: unknown;
        try {
          lefts = this.evalList([item], node.left);
        } catch (e) {
          lefts = [];
          leftError = e;
        }
        if (node.operator === 'exists') {
          if (lefts.length > 0) results.push(item);
          continue;
        }
        if (leftError) throw leftError;
        if (lefts.length === 0) continue;
        if (lefts.length > 1) throw new JSONPathError('can only compare one element at a time');
        const rights = this.evalList([item], node.right);
        if (rights.length === 0) continue;
        if (rights.length > 1) throw new JSONPathError('can only compare one element at a time');
        if (!['<', '>', '==', '!=', '<=', '>='].includes(node.operator)) throw new JSONPathError(`unrecognized filter operator ${node.operator}`);
        if (compare(node.operator, lefts[0], rights[0])) results.push(item);
      }
    }
    return results;
  }
}

/**
 * kube's FindResults: one list of values per top-level node of the template, `range ... end`
 * repeating the nodes between them for each value the range node gave.
 */
export function findJSONPathResults(parsed: ParsedJSONPath, data: unknown, options: EvaluateOptions = {}): unknown[][] {
  const evaluator = new Evaluator(options.allowMissingKeys ?? false);
  const finish = (results: unknown[][]) => results.map((values) => values.map(plain));
  return finish(findResults(evaluator, parsed.root.nodes, data));
}

function rangeBody(nodes: JSONPathNode[], from: number): { body: JSONPathNode[]; after: number } {
  let depth = 0;
  for (let i = from; i < nodes.length; i++) {
    const list = nodes[i];
    const head = list.type === 'list' ? list.nodes[0] : undefined;
    if (head?.type === 'identifier' && head.name === 'range') depth++;
    if (head?.type === 'identifier' && head.name === 'end') {
      if (depth === 0) return { body: nodes.slice(from, i), after: i + 1 };
      depth--;
    }
  }
  throw new JSONPathError('not in range, nothing to end');
}

function findResults(evaluator: Evaluator, nodes: JSONPathNode[], data: unknown): unknown[][] {
  const full: unknown[][] = [];
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    const head = node.type === 'list' ? node.nodes[0] : undefined;
    if (head?.type === 'identifier' && head.name === 'end') throw new JSONPathError('not in range, nothing to end');
    const results = evaluator.walk([data], node);
    if (head?.type === 'identifier' && head.name === 'range') {
      const { body, after } = rangeBody(nodes, i + 1);
      for (const value of results) full.push(...findResults(evaluator, body, plain(value)));
      i = after - 1;
      continue;
    }
    full.push(results);
  }
  return full;
}

/** The values of a template over `obj`, all top-level results in order (kube's printer evaluates them so). */
export function evaluateJSONPath(parsed: ParsedJSONPath, obj: unknown, options: EvaluateOptions = {}): unknown[] {
  return findJSONPathResults(parsed, obj, options).flat();
}

/** Go's strconv.FormatFloat(f, 'g', -1, 64), which fmt's %v prints for a float64. */
export function goFloat(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (!Number.isFinite(f)) return f > 0 ? '+Inf' : '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const [mantissa, expText] = f.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 21) {
    const e = Math.abs(exp);
    return `${mantissa}e${exp < 0 ? '-' : '+'}${e < 10 ? `0${e}` : e}`;
  }
  return String(f);
}

/** fmt.Fprint of a decoded JSON value: what kube's JSONPath printer writes for one result. */
export function goPrint(v: unknown): string {
  if (v === undefined) return '<no value>';
  if (v === null) return '<nil>';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isInteger(v) && Math.abs(v) < 1e21 ? String(v) : goFloat(v);
  if (v instanceof FloatValue) return goFloat(v.value);
  if (Array.isArray(v)) return `[${v.map(goPrint).join(' ')}]`;
  if (isObject(v)) {
    const keys = Object.keys(v).sort();
    return `map[${keys.map((k) => `${k}:${goPrint(v[k])}`).join(' ')}]`;
  }
  return String(v);
}
