// Go's encoding/json syntax errors, for messages kube-apiserver passes through verbatim: a body
// that does not parse, a patch that does not parse, a dockercfg Secret whose JSON is broken.
// Written by hand (no library words its errors as Go does): a state machine over the bytes, as
// Go's scanner reads them, with the nesting kept on an explicit stack so no input can exhaust the
// call stack. It runs only after JSON.parse has failed (or on the few values that need Go's exact
// outcome), so well-formed bodies never pay for it.

import { MAX_NESTING_DEPTH } from './nesting.js';

/** Go's scanner refuses input nested deeper than this (maxNestingDepth of encoding/json). */
export const GO_JSON_MAX_DEPTH = 10000;

/** Go's quoteChar: the byte as a quoted rune (a byte above 0x7f shows as the Latin-1 rune of its value). */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return '\'"\'';
  if (c >= 0x20 && c < 0x7f) return `'${String.fromCharCode(c)}'`;
  const named: Record<number, string> = { 0x07: '\\a', 0x08: '\\b', 0x09: '\\t', 0x0a: '\\n', 0x0b: '\\v', 0x0c: '\\f', 0x0d: '\\r' };
  if (named[c]) return `'${named[c]}'`;
  if (c < 0x20 || c === 0x7f) return `'\\x${c.toString(16).padStart(2, '0')}'`;
  // strconv.Quote escapes the runes it cannot print: C1 controls, NBSP and the soft hyphen.
  if (c < 0xa0 || c === 0xa0 || c === 0xad) return `'\\u${c.toString(16).padStart(4, '0')}'`;
  return `'${String.fromCharCode(c)}'`;
}

// Go's scanner ends input by feeding it one space: a value cut short inside a literal, number or
// escape is complained about as if a space followed it; anywhere else the input just ended.
const SPACE = 0x20;
const isSpace = (c: number) => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const isHex = (c: number) => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** What the scanner is inside of, innermost last: an object before or after its colon, or an array. */
const OBJECT_KEY = 0;
const OBJECT_VALUE = 1;
const ARRAY_VALUE = 2;

/**
 * The message of Go's SyntaxError for `bytes`, or undefined when they are one well-formed JSON
 * value no deeper than `maxDepth`. The first offending byte decides, as in Go's checkValid.
 */
export function goJsonSyntaxError(bytes: Uint8Array, maxDepth = GO_JSON_MAX_DEPTH): string | undefined {
  const n = bytes.length;
  const stack: number[] = [];
  let i = 0;
  const fail = (c: number, context: string) => `invalid character ${quoteChar(c)} ${context}`;
  const skipSpace = () => {
    while (i < n && isSpace(bytes[i])) i++;
  };
  const digits = () => {
    while (i < n && isDigit(bytes[i])) i++;
  };
  // Each turn of the loop reads one value (at `i`, after optional space), then what follows it.
  for (;;) {
    skipSpace();
    if (i >= n) return 'unexpected end of JSON input';
    let c = bytes[i++];
    if (c === 0x7b || c === 0x5b) {
      stack.push(c === 0x7b ? OBJECT_KEY : ARRAY_VALUE);
      if (stack.length > maxDepth) return fail(c, 'exceeded max depth');
      skipSpace();
      if (i >= n) return 'unexpected end of JSON input';
      const close = c === 0x7b ? 0x7d : 0x5d;
      if (bytes[i] === close) {
        i++;
        stack.pop();
      } else if (c === 0x7b) {
        if (bytes[i] !== 0x22) return fail(bytes[i], 'looking for beginning of object key string');
        // The key is read as a value below; OBJECT_KEY tells what must follow it.
        continue;
      } else {
        continue;
      }
    } else if (c === 0x22) {
      for (;;) {
        if (i >= n) return 'unexpected end of JSON input';
        c = bytes[i++];
        if (c === 0x22) break;
        if (c < 0x20) return fail(c, 'in string literal');
        if (c !== 0x5c) continue;
        if (i >= n) return fail(SPACE, 'in string escape code');
        c = bytes[i++];
        if (c === 0x75) {
          for (let k = 0; k < 4; k++) {
            if (i >= n) return fail(SPACE, 'in \\u hexadecimal character escape');
            if (!isHex(bytes[i])) return fail(bytes[i], 'in \\u hexadecimal character escape');
            i++;
          }
        } else if (!(c === 0x22 || c === 0x5c || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74)) {
          return fail(c, 'in string escape code');
        }
      }
    } else if (c === 0x2d || isDigit(c)) {
      if (c === 0x2d) {
        if (i >= n) return fail(SPACE, 'in numeric literal');
        c = bytes[i++];
        if (!isDigit(c)) return fail(c, 'in numeric literal');
      }
      if (c !== 0x30) digits();
      if (i < n && bytes[i] === 0x2e) {
        i++;
        if (i >= n) return fail(SPACE, 'after decimal point in numeric literal');
        if (!isDigit(bytes[i])) return fail(bytes[i], 'after decimal point in numeric literal');
        digits();
      }
      if (i < n && (bytes[i] === 0x65 || bytes[i] === 0x45)) {
        i++;
        if (i < n && (bytes[i] === 0x2b || bytes[i] === 0x2d)) i++;
        if (i >= n) return fail(SPACE, 'in exponent of numeric literal');
        if (!isDigit(bytes[i])) return fail(bytes[i], 'in exponent of numeric literal');
        digits();
      }
    } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
      const word = c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null';
      for (let k = 1; k < word.length; k++) {
        const want = word.charCodeAt(k);
        if (i >= n) return fail(SPACE, `in literal ${word} (expecting ${quoteChar(want)})`);
        if (bytes[i] !== want) return fail(bytes[i], `in literal ${word} (expecting ${quoteChar(want)})`);
        i++;
      }
    } else {
      const top = stack[stack.length - 1];
      // After `{"a":1,` Go wants a key; anywhere else a value.
      return fail(c, top === OBJECT_KEY ? 'looking for beginning of object key string' : 'looking for beginning of value');
    }
    // A value is complete: close every container it completes, then expect the next value.
    for (;;) {
      skipSpace();
      if (stack.length === 0) {
        if (i < n) return fail(bytes[i], 'after top-level value');
        return undefined;
      }
      if (i >= n) return 'unexpected end of JSON input';
      c = bytes[i++];
      const state = stack[stack.length - 1];
      if (state === OBJECT_KEY) {
        if (c !== 0x3a) return fail(c, 'after object key');
        stack[stack.length - 1] = OBJECT_VALUE;
        break;
      }
      if (state === OBJECT_VALUE) {
        if (c === 0x2c) {
          stack[stack.length - 1] = OBJECT_KEY;
          skipSpace();
          if (i >= n) return 'unexpected end of JSON input';
          if (bytes[i] !== 0x22) return fail(bytes[i], 'looking for beginning of object key string');
          break;
        }
        if (c === 0x7d) {
          stack.pop();
          continue;
        }
        return fail(c, 'after object key:value pair');
      }
      if (c === 0x2c) break;
      if (c === 0x5d) {
        stack.pop();
        continue;
      }
      return fail(c, 'after array element');
    }
  }
}

/** '' when `bytes` unmarshal into a Go map[string]interface{}; otherwise Go's error text. */
export function goUnmarshalObjectError(bytes: Uint8Array): string {
  const syntax = goJsonSyntaxError(bytes);
  if (syntax !== undefined) return syntax;
  const text = Buffer.from(bytes).toString('latin1');
  const first = text.trimStart()[0];
  const kind = first === '[' ? 'array' : first === '"' ? 'string' : first === 't' || first === 'f' ? 'bool' : first === '{' || first === 'n' ? '' : 'number';
  return kind ? `json: cannot unmarshal ${kind} into Go value of type map[string]interface {}` : '';
}

/** Go's SyntaxError text for JSON that JSON.parse refused. */
export function goJsonError(body: Uint8Array): string {
  return goJsonSyntaxError(body, MAX_NESTING_DEPTH) ?? 'unexpected end of JSON input';
}

/** Go's SyntaxError for JSON nested past the limit, naming the bracket that went too deep. */
export function tooDeepJson(bracket: string): string {
  return `invalid character '${bracket}' exceeded max depth`;
}
