// The error Go's encoding/json gives when unmarshalling bytes into map[string]interface{}, for
// messages kube-apiserver passes through verbatim (ValidateSecret's dockercfg checks). Go scans
// the whole input for syntax first (its messages name the offending byte and what the scanner
// was looking for), then decodes, where a top level that is not an object (or null) is a type
// error. Bytes are read one by one, as Go's scanner does, so a non-ASCII byte shows as its rune.

/** Go's quoteChar: the byte as a quoted rune. */
function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return '\'"\'';
  const code = c.charCodeAt(0);
  if (code >= 0x20 && code < 0x7f) return `'${c}'`;
  const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f', '\v': '\\v', '\x07': '\\a', '\0': '\\x00' };
  if (named[c]) return `'${named[c]}'`;
  if (code < 0x20 || code === 0x7f) return `'\\x${code.toString(16).padStart(2, '0')}'`;
  // A byte above 0x7f is shown as the rune of that value (Latin-1), as Go's rune(c) does.
  return code >= 0xa0 ? `'${c}'` : `'\\u${code.toString(16).padStart(4, '0')}'`;
}

class SyntaxError extends Error {}

class Scanner {
  private i = 0;
  constructor(private readonly s: string) {}

  private fail(c: string, context: string): never {
    throw new SyntaxError(`invalid character ${quoteChar(c)} ${context}`);
  }
  private eof(): never {
    throw new SyntaxError('unexpected end of JSON input');
  }
  private ws(): void {
    while (this.i < this.s.length && ' \t\r\n'.includes(this.s[this.i])) this.i++;
  }
  private next(): string {
    if (this.i >= this.s.length) this.eof();
    return this.s[this.i++];
  }

  document(): void {
    this.value();
    this.ws();
    if (this.i < this.s.length) this.fail(this.s[this.i], 'after top-level value');
  }

  private value(): void {
    this.ws();
    const c = this.next();
    if (c === '{') return this.object();
    if (c === '[') return this.array();
    if (c === '"') return this.string();
    if (c === '-' || (c >= '0' && c <= '9')) return this.number(c);
    if (c === 't') return this.literal('true');
    if (c === 'f') return this.literal('false');
    if (c === 'n') return this.literal('null');
    this.fail(c, 'looking for beginning of value');
  }

  private object(): void {
    this.ws();
    let c = this.next();
    if (c === '}') return;
    for (;;) {
      if (c !== '"') this.fail(c, 'looking for beginning of object key string');
      this.string();
      this.ws();
      c = this.next();
      if (c !== ':') this.fail(c, 'after object key');
      this.value();
      this.ws();
      c = this.next();
      if (c === '}') return;
      if (c !== ',') this.fail(c, 'after object key:value pair');
      this.ws();
      c = this.next();
    }
  }

  private array(): void {
    this.ws();
    if (this.s[this.i] === ']') {
      this.i++;
      return;
    }
    for (;;) {
      this.value();
      this.ws();
      const c = this.next();
      if (c === ']') return;
      if (c !== ',') this.fail(c, 'after array element');
    }
  }

  private string(): void {
    for (;;) {
      const c = this.next();
      if (c === '"') return;
      if (c.charCodeAt(0) < 0x20) this.fail(c, 'in string literal');
      if (c !== '\\') continue;
      const e = this.next();
      if (e === 'u') {
        for (let k = 0; k < 4; k++) {
          const h = this.next();
          if (!/[0-9a-fA-F]/.test(h)) this.fail(h, 'in \\u hexadecimal character escape');
        }
      } else if (!'"\\/bfnrt'.includes(e)) this.fail(e, 'in string escape code');
    }
  }

  private digits(): void {
    while (this.i < this.s.length && this.s[this.i] >= '0' && this.s[this.i] <= '9') this.i++;
  }

  private number(first: string): void {
    let c = first;
    if (c === '-') {
      c = this.next();
      if (c < '0' || c > '9') this.fail(c, 'in numeric literal');
    }
    if (c !== '0') this.digits();
    if (this.s[this.i] === '.') {
      this.i++;
      const d = this.next();
      if (d < '0' || d > '9') this.fail(d, 'after decimal point in numeric literal');
      this.digits();
    }
    if (this.s[this.i] === 'e' || this.s[this.i] === 'E') {
      this.i++;
      let d = this.next();
      if (d === '+' || d === '-') d = this.next();
      if (d < '0' || d > '9') this.fail(d, 'in exponent of numeric literal');
      this.digits();
    }
  }

  private literal(word: string): void {
    for (const expected of word.slice(1)) {
      const c = this.next();
      if (c !== expected) this.fail(c, `in literal ${word} (expecting ${quoteChar(expected)})`);
    }
  }
}

/** '' when `bytes` unmarshal into a Go map[string]interface{}; otherwise Go's error text. */
export function goUnmarshalObjectError(bytes: Uint8Array): string {
  const text = Buffer.from(bytes).toString('latin1');
  try {
    new Scanner(text).document();
  } catch (err) {
    if (err instanceof SyntaxError) return err.message;
    throw err;
  }
  const first = text.trimStart()[0];
  const kind = first === '[' ? 'array' : first === '"' ? 'string' : first === 't' || first === 'f' ? 'bool' : first === '{' || first === 'n' ? '' : 'number';
  return kind ? `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}` : '';
}
