// The `test` operation's comparison as gopkg.in/evanphx/json-patch.v4 makes it: objects compare
// member by member (order ignored, a null member only equals a null member) and arrays item by
// item, but every other value compares as raw JSON bytes, compacted. The document side is the
// live object as Go's encoding/json writes it (<, > and & escaped, non-ASCII as is, numbers in
// Go's shortest form); the patch side is the patch's own text. So 1.0 does not equal 1, and
// "a&b" written plainly does not equal the live "a&b" (kubernetes/apiserver#100): kube-apiserver
// behaves so, and clients that encode like Go (kubectl) never notice.

import { goJSON } from '../../machinery/go-format.js';
import { setMember } from '../../machinery/own-member.js';

/** A JSON value of the patch, with its scalars kept as their source text. */
export type RawNode = { kind: 'object'; members: Map<string, RawNode> } | { kind: 'array'; items: RawNode[] } | { kind: 'scalar'; raw: string };

const WHITESPACE = /[ \t\n\r]*/y;
const SCALAR = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

/** Reads JSON text that is known to be valid (JSON.parse accepted it) into RawNodes. */
export class RawJsonReader {
  private pos = 0;

  constructor(private readonly text: string) {}

  private skip(): void {
    WHITESPACE.lastIndex = this.pos;
    WHITESPACE.exec(this.text);
    this.pos = WHITESPACE.lastIndex;
  }

  read(): RawNode {
    this.skip();
    const c = this.text[this.pos];
    if (c === '{') {
      this.pos++;
      const members = new Map<string, RawNode>();
      this.skip();
      if (this.text[this.pos] === '}') {
        this.pos++;
        return { kind: 'object', members };
      }
      for (;;) {
        this.skip();
        const key = this.scalar();
        this.skip();
        this.pos++; // ':'
        // A repeated member keeps its last value, as Go's map decoding does.
        members.set(JSON.parse(key) as string, this.read());
        this.skip();
        if (this.text[this.pos++] === '}') return { kind: 'object', members };
      }
    }
    if (c === '[') {
      this.pos++;
      const items: RawNode[] = [];
      this.skip();
      if (this.text[this.pos] === ']') {
        this.pos++;
        return { kind: 'array', items };
      }
      for (;;) {
        items.push(this.read());
        this.skip();
        if (this.text[this.pos++] === ']') return { kind: 'array', items };
      }
    }
    return { kind: 'scalar', raw: this.scalar() };
  }

  private scalar(): string {
    SCALAR.lastIndex = this.pos;
    const m = SCALAR.exec(this.text);
    if (!m) throw new Error(`json: unexpected input at offset ${this.pos}`);
    this.pos = SCALAR.lastIndex;
    return m[0];
  }
}

/**
 * A non-null scalar an operation put into the document, with the text the patch wrote it in. v4
 * keeps the patch's bytes for every value an operation adds or replaces (and a move carries them
 * along), so a later `test` compares against that text, not against Go's encoding of the value:
 * after `add /a 1.0`, `test /a 1.0` holds and `test /a 1` fails. Lives only while a patch applies.
 */
export class RawScalar {
  constructor(
    readonly value: unknown,
    readonly raw: string,
  ) {}
}

/**
 * v4 dereferences a nil node when a `test` compares arrays and meets a null item on either side
 * (and when a `test` of the whole document has no value); kube-apiserver recovers the panic as a
 * 500. Objects are spared: their null members are checked before the comparison recurses.
 */
export class NilNodePanic extends Error {}

/** The operation's value with its scalars tagged by their patch text (nulls stay null). */
export function withRawText(value: unknown, node: RawNode | undefined): unknown {
  if (node === undefined || value === null) return value;
  if (Array.isArray(value)) return value.map((item, i) => withRawText(item, node.kind === 'array' ? node.items[i] : undefined));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value as Record<string, unknown>)) {
      setMember(out, key, withRawText(member, node.kind === 'object' ? node.members.get(key) : undefined));
    }
    return out;
  }
  return node.kind === 'scalar' ? new RawScalar(value, node.raw) : value;
}

/**
 * The deep copy a `copy` makes: v4 re-encodes the value through encoding/json, which keeps a
 * scalar's text but escapes <, > and & (and U+2028, U+2029) in it as Go always does.
 */
export function copyWithRawText(value: unknown): unknown {
  if (value instanceof RawScalar) return new RawScalar(value.value, value.raw.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  if (Array.isArray(value)) return value.map(copyWithRawText);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(value as Record<string, unknown>)) setMember(out, key, copyWithRawText(member));
    return out;
  }
  return value;
}

/**
 * The plain JSON value, every RawScalar replaced by its value (containers are changed in place).
 * Walked with an explicit stack: the patched document may nest 10,000 levels.
 */
export function dropRawText(value: unknown): unknown {
  if (value instanceof RawScalar) return value.value;
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const con = pending.pop();
    if (con === null || typeof con !== 'object') continue;
    if (Array.isArray(con)) {
      for (let i = 0; i < con.length; i++) {
        const item: unknown = con[i];
        if (item instanceof RawScalar) con[i] = item.value;
        else pending.push(item);
      }
      continue;
    }
    const obj = con as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      const member = obj[key];
      if (member instanceof RawScalar) setMember(obj, key, member.value);
      else pending.push(member);
    }
  }
  return value;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof RawScalar);
const isNullNode = (n: RawNode | undefined) => n === undefined || (n.kind === 'scalar' && n.raw === 'null');

/** A live (document) value's raw JSON as Go writes it. */
function goRaw(value: unknown): string {
  return goJSON(value);
}

/** The live value `doc` equals the patch value `node`, by the library's rules. */
export function rawEqual(doc: unknown, node: RawNode): boolean {
  if (isObject(doc)) {
    // Only an object matches. A null reaches here only as a test's whole value, which v4 holds
    // as no text at all (not as "null"), so it cannot be read as an empty map.
    if (node.kind !== 'object') return false;
    const members = node.members;
    const keys = Object.keys(doc).filter((k) => doc[k] !== undefined);
    if (keys.length !== members.size) return false;
    return keys.every((k) => {
      if (!members.has(k)) return false;
      const theirs = members.get(k);
      const mine = doc[k];
      if ((mine === null) !== isNullNode(theirs)) return false;
      return mine === null || rawEqual(mine, theirs!);
    });
  }
  if (Array.isArray(doc)) {
    if (node.kind !== 'array' || node.items.length !== doc.length) return false;
    // Items compare in order until the first difference; a null reached on either side panics.
    return doc.every((v, i) => {
      if (v === null || v === undefined || isNullNode(node.items[i])) throw new NilNodePanic('nil node in an array compared by test');
      return rawEqual(v, node.items[i]);
    });
  }
  if (doc instanceof RawScalar) return node.kind === 'scalar' && doc.raw === node.raw;
  return node.kind === 'scalar' && goRaw(doc) === node.raw;
}
