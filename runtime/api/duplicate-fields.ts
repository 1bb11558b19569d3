// Duplicate members of request bodies. JSON.parse and the yaml package silently keep the last of
// two equal keys; kube-apiserver's strict decoders report each repetition, which fieldValidation
// then turns into a 400 (Strict) or a Warning (Warn). The wording is the decoders':
//   JSON (sigs.k8s.io/json):  duplicate field "spec.replicas"
//   YAML (go-yaml, strict):   line 9: key "replicas" already set in map

import { LineCounter, isMap, isScalar, parseDocument, visit } from 'yaml';

/** A strict-decoding complaint with its position, so complaints of several passes can be merged in document order. */
export interface FieldComplaint {
  message: string;
  /** Offset of the member in the body text. */
  at: number;
}

export interface JsonMemberIndex {
  duplicates: FieldComplaint[];
  /** Offset of the first occurrence of every member path (`a.b`, `items[0].c`). */
  firstSeen: Map<string, number>;
}

/**
 * Scans JSON text (already known to parse) for repeated object members, naming each by its path
 * as sigs.k8s.io/json does: members joined with ".", array elements as "[i]".
 */
export function scanJsonMembers(text: string): JsonMemberIndex {
  const duplicates: FieldComplaint[] = [];
  const firstSeen = new Map<string, number>();
  let i = 0;
  const skipSpace = () => {
    while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  };
  /** Moves past a string; true when it holds an escape. */
  const skipString = (): boolean => {
    let escaped = false;
    i++; // opening quote
    for (let c = text.charCodeAt(i); c !== 34 /* " */ && i < text.length; c = text.charCodeAt(i)) {
      if (c === 92 /* \\ */) {
        escaped = true;
        i += 2;
      } else i++;
    }
    i++;
    return escaped;
  };
  // Member names are decoded (only those with an escape need the JSON decoder); values are skipped.
  const readString = (): string => {
    const start = i;
    return skipString() ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1);
  };
  // The containers open around the value being read (JSON may nest 10,000 levels, so no recursion):
  // an object's members seen so far, or an array's index.
  const open: { path: string; seen?: Set<string>; n: number }[] = [];
  /** Reads a member name and its colon; the member's path. */
  const member = (container: { path: string; seen?: Set<string> }): string => {
    skipSpace();
    const at = i;
    const key = readString();
    const child = container.path ? `${container.path}.${key}` : key;
    if (container.seen!.has(key)) duplicates.push({ message: `duplicate field ${JSON.stringify(child)}`, at });
    else container.seen!.add(key);
    // Paths longer than any schema's are not kept: every level's would add up to gigabytes in a deep body.
    if (child.length <= MAX_INDEXED_PATH && !firstSeen.has(child)) firstSeen.set(child, at);
    skipSpace();
    i++; // colon
    return child;
  };
  let path = '';
  for (;;) {
    skipSpace();
    const c = text[i];
    if (c === '{' || c === '[') {
      i++;
      skipSpace();
      if (text[i] !== (c === '{' ? '}' : ']')) {
        const container = c === '{' ? { path, seen: new Set<string>(), n: 0 } : { path, n: 0 };
        open.push(container);
        path = c === '{' ? member(container) : `${path}[0]`;
        continue;
      }
      i++;
    } else if (c === '"') {
      skipString();
    } else {
      // A number or literal: runs to the next delimiter.
      while (i < text.length && !',}] \n\r\t'.includes(text[i])) i++;
    }
    // A value is complete: close the containers it completes, then read the next member or element.
    for (;;) {
      const container = open.at(-1);
      if (!container) return { duplicates, firstSeen };
      skipSpace();
      if (text[i++] === ',') {
        path = container.seen ? member(container) : `${container.path}[${++container.n}]`;
        break;
      }
      open.pop();
    }
  }
}

/** The longest member path whose first position is kept for ordering complaints. */
const MAX_INDEXED_PATH = 4096;

/**
 * Whether JSON text repeats a member anywhere, given how many members its parsed value holds
 * (memberCount): exactly when the text names more, JSON.parse having kept one of each. Counts
 * member names on the bytes (a string followed by a colon; UTF-8 continuation bytes never look
 * like a quote, backslash or colon) and allocates nothing, so a body without repetitions, nearly
 * every body, is never tokenized in full.
 */
export function repeatsMembers(json: Uint8Array, held: number): boolean {
  let named = 0;
  const n = json.length;
  for (let i = 0; i < n; ) {
    if (json[i] !== QUOTE) {
      i++;
      continue;
    }
    for (i++; i < n && json[i] !== QUOTE; ) i += json[i] === BACKSLASH ? 2 : 1;
    for (i++; i < n && (json[i] === 0x20 || json[i] === 0x0a || json[i] === 0x0d || json[i] === 0x09); ) i++;
    if (json[i] === COLON) named++;
  }
  return named > held;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/** go-yaml's %#v of a key: strings quoted, numbers and booleans bare. */
function yamlKeyText(key: unknown): string {
  return typeof key === 'string' ? JSON.stringify(key) : String(key);
}

/** Repeated keys of every mapping in a YAML text, each with the line of the repetition. */
export function scanYamlDuplicates(text: string): FieldComplaint[] {
  const lines = new LineCounter();
  const doc = parseDocument(text, { uniqueKeys: false, lineCounter: lines });
  const out: FieldComplaint[] = [];
  visit(doc, {
    Map(_, node) {
      if (!isMap(node)) return;
      const seen = new Set<unknown>();
      for (const pair of node.items) {
        const key = isScalar(pair.key) ? pair.key.value : pair.key;
        if (!isScalar(pair.key)) continue;
        if (seen.has(key)) {
          const at = pair.key.range?.[0] ?? 0;
          out.push({ message: `line ${lines.linePos(at).line}: key ${yamlKeyText(key)} already set in map`, at });
        } else seen.add(key);
      }
    },
  });
  return out;
}
