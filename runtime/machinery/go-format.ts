// Renders values the way kube-apiserver's Go code prints them inside field error messages, so our
// messages are byte-identical: strings with Go's %q quoting, numbers and booleans bare, anything
// else as Go's encoding/json would marshal it (map keys sorted, HTML-sensitive characters escaped).
import { setMember } from './own-member.js';

const NAMED_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '\\': '\\\\',
  '"': '\\"',
};

/** Unicode categories Go's strconv.IsPrint rejects: controls, format chars, unassigned, separators other than space. */
const NON_PRINTABLE = /^(?! )[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]$/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

const PLAIN_ASCII = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** Go's strconv.Quote (what `%q` prints for a string). */
export function goQuote(s: string): string {
  // Printable ASCII other than `"` and `\` is written as it is: the common case, and cheap for long values.
  if (PLAIN_ASCII.test(s)) return `"${s}"`;
  let out = '"';
  for (const ch of s) {
    const named = NAMED_ESCAPES[ch];
    if (named) {
      out += named;
      continue;
    }
    const cp = ch.codePointAt(0) ?? 0;
    // Lone surrogates cannot come from valid UTF-8; Go would have seen U+FFFD there.
    if (cp >= 0xd800 && cp <= 0xdfff) {
      out += '\\ufffd';
    } else if (!NON_PRINTABLE.test(ch)) {
      out += ch;
    } else if (cp < 0x80) {
      out += `\\x${hex(cp, 2)}`;
    } else if (cp < 0x10000) {
      out += `\\u${hex(cp, 4)}`;
    } else {
      out += `\\U${hex(cp, 8)}`;
    }
  }
  return `${out}"`;
}

/** A JSON value with object keys sorted at every level, as Go writes a decoded map. */
export function sortKeysDeep(value: unknown): unknown {
  return sortedCopy(value, 0);
}

/**
 * Levels copied by recursion, the quickest for the shallow objects nearly every request holds;
 * below them the rest of a value (JSON may nest 10,000 levels) is copied with an explicit stack.
 */
const RECURSIVE_LEVELS = 256;

function sortedCopy(value: unknown, depth: number): unknown {
  if (!value || typeof value !== 'object') return value;
  if (depth === RECURSIVE_LEVELS) return sortedCopyIterative(value);
  if (Array.isArray(value)) {
    const out: unknown[] = [];
    for (const item of value) out.push(sortedCopy(item, depth + 1));
    return out;
  }
  const sorted: Record<string, unknown> = {};
  const keys = Object.keys(value);
  // Many objects (FieldsV1 leaves, anything sorted before) need no sort: a scan is cheaper.
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1] > keys[i]) {
      keys.sort();
      break;
    }
  }
  for (const key of keys) setMember(sorted, key, sortedCopy((value as Record<string, unknown>)[key], depth + 1));
  // Given many members one store at a time, V8 may leave an object in dictionary mode (a custom
  // resource's spec of 30 fields is), which every JSON.stringify of it and of what is built from
  // it pays for; a spread copy of it is in fast mode, like the objects JSON.parse makes.
  return keys.length > FEW_MEMBERS ? { ...sorted } : sorted;
}

/** Members up to which an object built by stores stays in fast mode. */
const FEW_MEMBERS = 8;

/**
 * sortedCopy with an explicit stack: each copy is made empty when its parent is filled, then
 * filled in turn, so every object receives its keys in sorted order.
 */
function sortedCopyIterative(value: object): unknown {
  const root = emptyCopy(value);
  const sources: object[] = [value];
  const copies: unknown[] = [root];
  while (sources.length > 0) {
    const source = sources.pop()!;
    const copy = copies.pop();
    if (Array.isArray(source)) {
      const out = copy as unknown[];
      for (let i = 0; i < source.length; i++) {
        const item: unknown = source[i];
        if (item === null || typeof item !== 'object') {
          out[i] = item;
          continue;
        }
        const child = emptyCopy(item);
        out[i] = child;
        sources.push(item);
        copies.push(child);
      }
      continue;
    }
    const out = copy as Record<string, unknown>;
    const from = source as Record<string, unknown>;
    for (const key of Object.keys(from).sort()) {
      const item = from[key];
      if (item === null || typeof item !== 'object') {
        setMember(out, key, item);
        continue;
      }
      const child = emptyCopy(item);
      setMember(out, key, child);
      sources.push(item);
      copies.push(child);
    }
  }
  return root;
}

const emptyCopy = (value: object): unknown => (Array.isArray(value) ? [] : {});

/** Go's encoding/json output for a decoded JSON value (maps sorted by key, <>& escaped). */
export function goJSON(value: unknown): string {
  const text = JSON.stringify(sortKeysDeep(value)) ?? 'null';
  return text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${hex(c.charCodeAt(0), 4)}`);
}

/**
 * Go's encoding/json output for a Go struct built as an object whose keys are already in field
 * order (an internal type without JSON tags, as some field errors print one).
 */
export function goStructJSON(value: Record<string, unknown>): string {
  return (JSON.stringify(value) ?? 'null').replace(/[<>&\u2028\u2029]/g, (c) => `\\u${hex(c.charCodeAt(0), 4)}`);
}

/**
 * A value with a String() method (a resource.Quantity): field.Error.ErrorBody prints such a
 * BadValue as String() gives it, unquoted, where a plain string is quoted.
 */
export class GoStringer {
  constructor(readonly text: string) {}
}

/** The value part of a field error, as field.Error.ErrorBody prints BadValue. */
export function goValue(value: unknown): string {
  if (typeof value === 'string') return goQuote(value);
  if (value instanceof GoStringer) return value.text;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === undefined || value === null) return 'null';
  return goJSON(value);
}
