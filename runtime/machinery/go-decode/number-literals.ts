// Go's decoder sees a JSON number's literal text: "1.0" or "1e3" is no int32 to it and the error
// quotes the literal ("number 1.0"), and integers beyond 2^53 keep every digit. JSON.parse keeps
// only the value, so a parsed JSON body gets its literals recorded beside it, for the numbers
// whose text the value would not give back.

const literals = new WeakMap<object, Map<string, string>>();

/** The literal recorded for `container[key]`, if it differs from what the value prints as. */
export function literalOf(container: object, key: string | number): string | undefined {
  return literals.get(container)?.get(String(key));
}

/**
 * Gives `to[toKey]` the literal of `from[fromKey]`, or none when that has none: a value a patch
 * puts into an object keeps the spelling the patch gave it, as the patch libraries keep raw bytes.
 */
export function carryLiteral(from: object, fromKey: string | number, to: object, toKey: string | number): void {
  const lit = literals.get(from)?.get(String(fromKey));
  let map = literals.get(to);
  if (lit === undefined) {
    map?.delete(String(toKey));
    return;
  }
  if (!map) literals.set(to, (map = new Map()));
  map.set(String(toKey), lit);
}

/** Whether a recorded literal still spells the value (an array's items may have moved since). */
export function spells(lit: string, value: unknown): boolean {
  return typeof value === 'number' && (Number(lit) === value || (Number.isNaN(Number(lit)) && Number.isNaN(value)));
}

/**
 * Go's JSON of a patched document (map keys sorted, <, > and & escaped) with every number the
 * patch wrote spelled as it wrote it: 99999999999999999999999, not 1e+23.
 */
export function goJSONWithLiterals(value: unknown): string {
  return literalJSON(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function literalJSON(value: unknown, container?: object, key?: string | number): string {
  if (Array.isArray(value)) return `[${value.map((item, i) => literalJSON(item, value, i)).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    const members = Object.keys(obj)
      .filter((k) => obj[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${literalJSON(obj[k], obj, k)}`);
    return `{${members.join(',')}}`;
  }
  const lit = container && key !== undefined ? literalOf(container, key) : undefined;
  if (lit !== undefined && spells(lit, value)) return lit;
  return JSON.stringify(value) ?? 'null';
}

/** Whether a number literal reads back from its value (plain integers within double precision do). */
const plain = (lit: string) => /^-?(0|[1-9][0-9]{0,14})$/.test(lit);

/**
 * Walks the text of a valid JSON document beside its parsed value and records each number literal
 * that is not plain. Cheap when there is nothing to record: the text is walked only when a number
 * outside its strings has a fraction, an exponent or sixteen digits.
 */
export function recordNumberLiterals(text: string, value: unknown): void {
  if (!/[0-9][.eE]|[0-9]{16}/.test(text) || !holdsUnplainNumber(text)) return;
  try {
    new LiteralScanner(text).value(value, undefined, '');
  } catch (e) {
    // Nesting deeper than the stack allows, or text that is not JSON after all: the numbers are
    // then judged by their values alone.
    if (!(e instanceof RangeError) && !(e instanceof SyntaxError)) throw e;
  }
}

/**
 * Whether a number of the valid JSON text, outside its strings, has a fraction, an exponent or
 * sixteen digits. Strings are skipped by a native search for their closing quote: in a body whose
 * strings hold versions and addresses ("nginx:1.25.3", "10.0.0.1"), and no number written so,
 * nothing is walked by hand but the few bytes between strings.
 */
export function holdsUnplainNumber(text: string): boolean {
  const n = text.length;
  for (let i = 0; i < n; ) {
    const quote = text.indexOf('"', i);
    const end = quote === -1 ? n : quote;
    let digits = 0;
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0x30 && c <= 0x39) {
        if (++digits >= 16) return true;
      } else {
        if (digits > 0 && (c === 0x2e || c === 0x65 || c === 0x45)) return true;
        digits = 0;
      }
    }
    if (quote === -1) return false;
    const close = closingQuote(text, quote);
    if (close === -1) return false;
    i = close + 1;
  }
  return false;
}

/**
 * Where the string opened by the quote at `open` closes: the next quote not escaped by an odd run
 * of backslashes. -1 when none does (not JSON).
 */
function closingQuote(text: string, open: number): number {
  for (let close = text.indexOf('"', open + 1); close !== -1; close = text.indexOf('"', close + 1)) {
    let before = close - 1;
    while (text.charCodeAt(before) === 0x5c) before--;
    if ((close - 1 - before) % 2 === 0) return close;
  }
  return -1;
}

class LiteralScanner {
  private i = 0;
  constructor(private readonly s: string) {}

  private ws(): void {
    for (let c = this.s.charCodeAt(this.i); c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09; c = this.s.charCodeAt(++this.i));
  }

  /** Scans one value; `container[key]` is where it was parsed to. */
  value(parsed: unknown, container: object | undefined, key: string): void {
    this.ws();
    const c = this.s.charCodeAt(this.i);
    if (c === 0x7b /* { */) return this.object(parsed);
    if (c === 0x5b /* [ */) return this.array(parsed);
    if (c === 0x22 /* " */) {
      this.skipString();
      return;
    }
    const start = this.i;
    for (let d = c; this.i < this.s.length && d !== 0x2c && d !== 0x7d && d !== 0x5d && d !== 0x20 && d !== 0x0a && d !== 0x0d && d !== 0x09; d = this.s.charCodeAt(++this.i));
    if (container && (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39))) {
      const lit = this.s.slice(start, this.i);
      if (plain(lit)) return;
      let map = literals.get(container);
      if (!map) literals.set(container, (map = new Map()));
      map.set(key, lit);
    }
  }

  /** Moves past a string; text that is not JSON (a string never closed) ends the scan. */
  private skipString(): void {
    const close = closingQuote(this.s, this.i);
    if (close === -1) throw new SyntaxError('number literals: a string is never closed');
    this.i = close + 1;
  }

  /** A member name, decoded only when it holds an escape. */
  private name(): string {
    const start = this.i;
    this.skipString();
    const text = this.s.slice(start, this.i);
    return text.includes('\\') ? (JSON.parse(text) as string) : text.slice(1, -1);
  }

  private object(parsed: unknown): void {
    this.i++;
    const target = typeof parsed === 'object' && parsed !== null ? parsed : undefined;
    for (;;) {
      this.ws();
      if (this.s.charCodeAt(this.i) === 0x7d /* } */) break;
      const key = this.name();
      this.ws();
      this.i++; // ':'
      // Repeated keys: JSON.parse keeps the last value, and so does the last literal recorded here.
      this.value(target ? (target as Record<string, unknown>)[key] : undefined, target, key);
      this.ws();
      if (this.s.charCodeAt(this.i) === 0x2c /* , */) this.i++;
    }
    this.i++;
  }

  private array(parsed: unknown): void {
    this.i++;
    const target = Array.isArray(parsed) ? parsed : undefined;
    for (let index = 0; ; index++) {
      this.ws();
      if (this.s.charCodeAt(this.i) === 0x5d /* ] */) break;
      this.value(target?.[index], target, String(index));
      this.ws();
      if (this.s.charCodeAt(this.i) === 0x2c /* , */) this.i++;
    }
    this.i++;
  }
}

/** A JSON string or number token, so that digits inside strings are skipped. */
const TOKEN = /"(?:[^"\\]|\\.)*"|-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/g;

/**
 * The first number literal of a valid JSON text that a float64 cannot hold (1e400, or 310
 * digits): Go's decoder refuses it when the value goes into an interface{} ("cannot unmarshal
 * number 1e400 into Go value of type float64"), where JSON.parse would make it Infinity. Only
 * texts with a long exponent or a long run of digits are scanned.
 */
export function overflowingNumber(text: string): string | undefined {
  if (!/[eE]\+?[0-9]{3}|[0-9]{309}/.test(text)) return undefined;
  for (const [token] of text.matchAll(TOKEN)) {
    if (token[0] !== '"' && !Number.isFinite(Number(token))) return token;
  }
  return undefined;
}
