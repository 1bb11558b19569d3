// The `test` operation's comparison as gopkg.in/evanphx/json-patch.v4 makes it: objects compare
// member by member (order ignored, a null member only equals a null member) and arrays item by
// item, but every other value compares as raw JSON bytes, compacted. The document side is the
// live object as Go's encoding/json writes it (<, > and & escaped, non-ASCII as is, numbers in
// Go's shortest form); the patch side is the patch's own text. So 1.0 does not equal 1, and
// "a&b" written plainly does not equal the live "a&b" (kubernetes/apiserver#100): kube-apiserver
// behaves so, and clients that encode like Go (kubectl) never notice.

import { goJSON } from '../../validation/go-format.js';

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

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNullNode = (n: RawNode | undefined) => n === undefined || (n.kind === 'scalar' && n.raw === 'null');

/** A live (document) value's raw JSON as Go writes it. */
function goRaw(value: unknown): string {
  return goJSON(value);
}

/** The live value `doc` equals the patch value `node`, by the library's rules. */
export function rawEqual(doc: unknown, node: RawNode): boolean {
  if (isObject(doc)) {
    // The patch side decodes into a map; null decodes into an empty one.
    const members = node.kind === 'object' ? node.members : node.kind === 'scalar' && node.raw === 'null' ? new Map<string, RawNode>() : undefined;
    if (!members) return false;
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
    return doc.every((v, i) => rawEqual(v ?? null, node.items[i]));
  }
  return node.kind === 'scalar' && goRaw(doc) === node.raw;
}
