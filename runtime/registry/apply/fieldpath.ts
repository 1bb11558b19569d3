// Sets of field paths, as structured-merge-diff keeps them for ownership, and their FieldsV1
// encoding in metadata.managedFields. A path element is held in its FieldsV1 spelling:
//   f:<name>        a field of a struct or an entry of a map
//   k:<json>        an item of a list-type=map list, named by its key fields (sorted, compact JSON)
//   v:<json>        an item of a list-type=set list, named by its value
//   i:<n>           an item of a list named by position
// A set is a trie: each node has members (paths that end there) and children (paths that go on).

export type PathElement = string;
export type Path = PathElement[];

/** Compact JSON with object keys sorted, as the key and value elements of FieldsV1 are spelled. */
export function canonicalJSON(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJSON).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value as Record<string, unknown>)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJSON((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

export const fieldElement = (name: string): PathElement => `f:${name}`;
export const keyElement = (keys: Record<string, unknown>): PathElement => `k:${canonicalJSON(keys)}`;
export const valueElement = (value: unknown): PathElement => `v:${canonicalJSON(value)}`;
export const indexElement = (index: number): PathElement => `i:${index}`;

/** The field name of an `f:` element, undefined for any other kind of element. */
export function fieldName(pe: PathElement): string | undefined {
  return pe.startsWith('f:') ? pe.slice(2) : undefined;
}

/** A path as structured-merge-diff prints it in conflicts: `.data.a`, `.spec.ports[port=80,protocol="TCP"]`. */
export function pathString(path: Path): string {
  return path.map(elementString).join('');
}

function elementString(pe: PathElement): string {
  const body = pe.slice(2);
  switch (pe.slice(0, 2)) {
    case 'f:':
      return `.${body}`;
    case 'k:': {
      const keys = JSON.parse(body) as Record<string, unknown>;
      return `[${Object.keys(keys).map((k) => `${k}=${canonicalJSON(keys[k])}`).join(',')}]`;
    }
    case 'v:':
      return `[=${body}]`;
    case 'i:':
      return `[${body}]`;
    default:
      return '{{invalid path element}}';
  }
}

// structured-merge-diff orders elements by kind (field names, then keys, then values, then
// indexes) and within a kind by content; FieldsV1 is written in that order.
// Every element is spelled `<letter>:`, so its first character names its kind; elements of one
// kind share that prefix and compare as whole strings.
function kindOrder(pe: PathElement): number {
  if (pe.charCodeAt(1) !== 58 /* : */) return 4;
  switch (pe.charCodeAt(0)) {
    case 102 /* f */:
      return 0;
    case 107 /* k */:
      return 1;
    case 118 /* v */:
      return 2;
    case 105 /* i */:
      return 3;
    default:
      return 4;
  }
}

export function compareElements(a: PathElement, b: PathElement): number {
  const ka = kindOrder(a);
  const kb = kindOrder(b);
  if (ka !== kb) return ka - kb;
  if (ka === 3) return Number(a.slice(2)) - Number(b.slice(2));
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The elements a node holds (members and children), each once, in FieldsV1 order. */
function sortedElements(node: FieldSet): PathElement[] {
  const elements = [...node.members];
  let fieldsOnly = true;
  for (const pe of elements) if (kindOrder(pe) !== 0) fieldsOnly = false;
  for (const pe of node.children.keys()) {
    if (node.members.has(pe)) continue;
    elements.push(pe);
    if (kindOrder(pe) !== 0) fieldsOnly = false;
  }
  // Field names alone (most nodes) order as plain strings, which the default sort does fastest.
  return fieldsOnly ? elements.sort() : elements.sort(compareElements);
}

/**
 * Object.fromEntries(entries) for FieldsV1's elements, a few times quicker: names stored one by
 * one into a scratch object (which may go to dictionary mode), then copied by a spread, which
 * gives a fast-mode object as fromEntries would. No element is spelled `__proto__` (each starts
 * with a kind prefix or is "."), so plain stores keep every entry as an own member.
 */
export function objectOf(entries: [PathElement, unknown][]): Record<string, unknown> {
  const scratch: Record<string, unknown> = {};
  for (const [pe, value] of entries) scratch[pe] = value;
  return { ...scratch };
}

export class FieldSet {
  readonly members = new Set<PathElement>();
  readonly children = new Map<PathElement, FieldSet>();

  static of(...paths: Path[]): FieldSet {
    const set = new FieldSet();
    for (const p of paths) set.insert(p);
    return set;
  }

  /** Adds a path while the set is being built (results of the set operations share nodes with their operands: never insert into those). */
  insert(path: Path): void {
    if (path.length === 0) return;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.child(path[i]);
    node.members.add(path[path.length - 1]);
  }

  /** The child node for an element, created when absent. */
  child(pe: PathElement): FieldSet {
    let c = this.children.get(pe);
    if (!c) {
      c = new FieldSet();
      this.children.set(pe, c);
    }
    return c;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node; i++) node = node.children.get(path[i]);
    return node?.members.has(path[path.length - 1]) ?? false;
  }

  /** The paths below one element, without it (an empty set when there are none). */
  withPrefix(pe: PathElement): FieldSet {
    return this.children.get(pe) ?? new FieldSet();
  }

  empty(): boolean {
    const pending: FieldSet[] = [this];
    while (pending.length > 0) {
      const node = pending.pop()!;
      if (node.members.size) return false;
      for (const c of node.children.values()) pending.push(c);
    }
    return true;
  }

  // The set operations below share the subtrees they leave unchanged with their operands rather
  // than copying them: a set is only changed while it is being built (insert), never after. They
  // walk with explicit stacks, as managedFields (free-form JSON in every kind) and the objects
  // they describe may nest 10,000 levels.

  union(other: FieldSet): FieldSet {
    const out = new FieldSet();
    const pending: [FieldSet, FieldSet, FieldSet][] = [[this, other, out]];
    while (pending.length > 0) {
      const [a, b, o] = pending.pop()!;
      for (const m of a.members) o.members.add(m);
      for (const m of b.members) o.members.add(m);
      for (const [pe, c] of a.children) {
        const d = b.children.get(pe);
        if (!d) {
          o.children.set(pe, c);
          continue;
        }
        const both = new FieldSet();
        o.children.set(pe, both);
        pending.push([c, d, both]);
      }
      for (const [pe, d] of b.children) if (!a.children.has(pe)) o.children.set(pe, d);
    }
    return out;
  }

  /** Paths of this set that are not in `other` (exact paths: a member of `other` does not remove descendants). */
  difference(other: FieldSet): FieldSet {
    return this.differenceAt(other, 0);
  }

  private differenceAt(other: FieldSet, depth: number): FieldSet {
    if (depth === RECURSIVE_LEVELS) return this.combined(other, differenceStep);
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe);
      const d = o ? c.differenceAt(o, depth + 1) : c;
      if (!d.empty()) out.children.set(pe, d);
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    return this.intersectionAt(other, 0);
  }

  private intersectionAt(other: FieldSet, depth: number): FieldSet {
    if (depth === RECURSIVE_LEVELS) return this.combined(other, intersectionStep);
    const out = new FieldSet();
    for (const m of this.members) if (other.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe);
      if (!o) continue;
      const i = c.intersectionAt(o, depth + 1);
      if (!i.empty()) out.children.set(pe, i);
    }
    return out;
  }

  /** This set without every path that starts with one of `prefixes` (the paths themselves included). */
  withoutPrefixes(prefixes: FieldSet): FieldSet {
    return this.withoutPrefixesAt(prefixes, 0);
  }

  private withoutPrefixesAt(prefixes: FieldSet, depth: number): FieldSet {
    if (depth === RECURSIVE_LEVELS) return this.combined(prefixes, withoutPrefixesStep);
    const out = new FieldSet();
    for (const m of this.members) if (!prefixes.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      if (prefixes.members.has(pe)) continue;
      const p = prefixes.children.get(pe);
      const kept = p ? c.withoutPrefixesAt(p, depth + 1) : c;
      if (!kept.empty()) out.children.set(pe, kept);
    }
    return out;
  }

  /**
   * A set operation past RECURSIVE_LEVELS, where the recursion of the operations above hands over
   * to an explicit stack. The result is built from this set and `other` node by node, top down: `step` fills the result node
   * of a pair of nodes and asks with `below` for the result of a pair of their children. Results
   * left empty are then dropped, deepest first, as a result node is kept only when not empty.
   */
  private combined(other: FieldSet, step: CombineStep): FieldSet {
    const out = new FieldSet();
    const pending: [FieldSet, FieldSet, FieldSet][] = [[this, other, out]];
    const made: [FieldSet, PathElement, FieldSet][] = [];
    let parent = out;
    const below = (pe: PathElement, a: FieldSet, b: FieldSet) => {
      const node = new FieldSet();
      parent.children.set(pe, node);
      made.push([parent, pe, node]);
      pending.push([a, b, node]);
    };
    while (pending.length > 0) {
      const [a, b, o] = pending.pop()!;
      parent = o;
      step(a, b, o, below);
    }
    for (let i = made.length - 1; i >= 0; i--) {
      const [holder, pe, node] = made[i];
      if (node.members.size === 0 && node.children.size === 0) holder.children.delete(pe);
    }
    return out;
  }

  clone(): FieldSet {
    const out = new FieldSet();
    const pending: [FieldSet, FieldSet][] = [[this, out]];
    while (pending.length > 0) {
      const [from, to] = pending.pop()!;
      for (const m of from.members) to.members.add(m);
      for (const [pe, c] of from.children) {
        const copy = new FieldSet();
        to.children.set(pe, copy);
        pending.push([c, copy]);
      }
    }
    return out;
  }

  /** Every path of the set, in FieldsV1 order. */
  paths(): Path[] {
    const out: Path[] = [];
    // One path, grown and shrunk as the walk goes down and up, copied for each member.
    const path: Path = [];
    const open: { node: FieldSet; elements: PathElement[]; next: number }[] = [{ node: this, elements: sortedElements(this), next: 0 }];
    while (open.length > 0) {
      const frame = open[open.length - 1];
      if (frame.next === frame.elements.length) {
        open.pop();
        path.pop();
        continue;
      }
      const pe = frame.elements[frame.next++];
      if (frame.node.members.has(pe)) out.push([...path, pe]);
      const c = frame.node.children.get(pe);
      if (c) {
        path.push(pe);
        open.push({ node: c, elements: sortedElements(c), next: 0 });
      }
    }
    return out;
  }

  equals(other: FieldSet): boolean {
    return this.difference(other).empty() && other.difference(this).empty();
  }

  /**
   * The FieldsV1 form: an object per element, `{}` for a member without children, and a `.` entry
   * for an element that is both a member and has children. Objects are made from whole entry
   * lists (objectOf): V8 keeps those in fast mode, where adding many names one store at a time can
   * leave a large node in dictionary mode, slower for every later JSON.stringify of the object.
   * Built with an explicit stack, children before the object that holds them; a child that yields
   * no entries holds no member, and counts as absent.
   */
  toFieldsV1(): Record<string, unknown> {
    interface Frame {
      node: FieldSet;
      elements: PathElement[];
      next: number;
      entries: [string, unknown][];
      pe: PathElement;
      member: boolean;
    }
    const open: Frame[] = [{ node: this, elements: sortedElements(this), next: 0, entries: [], pe: '', member: false }];
    for (;;) {
      const frame = open[open.length - 1];
      if (frame.next < frame.elements.length) {
        const pe = frame.elements[frame.next++];
        const member = frame.node.members.has(pe);
        const c = frame.node.children.get(pe);
        if (c) open.push({ node: c, elements: sortedElements(c), next: 0, entries: member ? [['.', {}]] : [], pe, member });
        else if (member) frame.entries.push([pe, {}]);
        continue;
      }
      open.pop();
      const holder = open[open.length - 1];
      if (!holder) return objectOf(frame.entries);
      // A member's entries start with its "."; beyond that, none means nothing was below it.
      if (frame.entries.length > (frame.member ? 1 : 0)) holder.entries.push([frame.pe, objectOf(frame.entries)]);
      else if (frame.member) holder.entries.push([frame.pe, {}]);
    }
  }

  /** Reads FieldsV1 with an explicit stack; the node of each level is made when something is put in or below it. */
  static fromFieldsV1(fields: unknown): FieldSet {
    const set = new FieldSet();
    const root = openFieldsV1(fields, undefined, '');
    root.node = set;
    const stack: FieldsV1Frame[] = [root];
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      if (frame.next === frame.entries.length) {
        stack.pop();
        continue;
      }
      const entry = frame.entries[frame.next++];
      const key = entry[0];
      if (key === '.') {
        if (frame.parent) (frame.parent.node ?? nodeOf(frame.parent)).members.add(frame.pe);
        continue;
      }
      if (!/^[fkvi]:/.test(key)) throw new Error(`unexpected FieldsV1 key ${JSON.stringify(key)}`);
      const value = entry[1];
      let hasEntries = false;
      if (value !== null && typeof value === 'object') for (const _ in value) {
        hasEntries = true;
        break;
      }
      if (hasEntries) stack.push(openFieldsV1(value, frame, key));
      else (frame.node ?? nodeOf(frame)).members.add(key);
    }
    return set;
  }
}

/**
 * Levels the set operations walk by recursion, the quickest for the shallow sets of nearly every
 * object; deeper (managedFields may nest 10,000 levels) they go on with an explicit stack.
 */
const RECURSIVE_LEVELS = 256;

type CombineStep = (a: FieldSet, b: FieldSet, out: FieldSet, below: (pe: PathElement, a: FieldSet, b: FieldSet) => void) => void;

const differenceStep: CombineStep = (a, b, o, below) => {
  for (const m of a.members) if (!b.members.has(m)) o.members.add(m);
  for (const [pe, c] of a.children) {
    const d = b.children.get(pe);
    if (d) below(pe, c, d);
    else if (!c.empty()) o.children.set(pe, c);
  }
};

const intersectionStep: CombineStep = (a, b, o, below) => {
  for (const m of a.members) if (b.members.has(m)) o.members.add(m);
  for (const [pe, c] of a.children) {
    const d = b.children.get(pe);
    if (d) below(pe, c, d);
  }
};

const withoutPrefixesStep: CombineStep = (a, p, o, below) => {
  for (const m of a.members) if (!p.members.has(m)) o.members.add(m);
  for (const [pe, c] of a.children) {
    if (p.members.has(pe)) continue;
    const q = p.children.get(pe);
    if (q) below(pe, c, q);
    else if (!c.empty()) o.children.set(pe, c);
  }
};

/** An object of FieldsV1 being read: its entries, the next to read, and its node once made. */
interface FieldsV1Frame {
  entries: [string, unknown][];
  next: number;
  parent: FieldsV1Frame | undefined;
  pe: PathElement;
  node: FieldSet | undefined;
}

function openFieldsV1(value: unknown, parent: FieldsV1Frame | undefined, pe: PathElement): FieldsV1Frame {
  const frame: FieldsV1Frame = { entries: [], next: 0, parent, pe, node: undefined };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const path: Path = [];
    for (let f: FieldsV1Frame | undefined = frame; f?.parent; f = f.parent) path.push(f.pe);
    throw new Error(`expected an object in FieldsV1 at ${JSON.stringify(path.reverse())}`);
  }
  frame.entries = Object.entries(value as Record<string, unknown>);
  return frame;
}

/** The node of a frame's path, made (with those of the frames above it) when missing. */
function nodeOf(frame: FieldsV1Frame): FieldSet {
  const missing: FieldsV1Frame[] = [];
  let f = frame;
  for (; !f.node; f = f.parent!) missing.push(f);
  for (let i = missing.length - 1; i >= 0; i--) missing[i].node = missing[i].parent!.node!.child(missing[i].pe);
  return frame.node!;
}

