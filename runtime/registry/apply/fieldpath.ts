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
    if (this.members.size) return false;
    for (const c of this.children.values()) if (!c.empty()) return false;
    return true;
  }

  // The set operations below share the subtrees they leave unchanged with their operands rather
  // than copying them: a set is only changed while it is being built (insert), never after.

  union(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const m of other.members) out.members.add(m);
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe);
      out.children.set(pe, o ? c.union(o) : c);
    }
    for (const [pe, o] of other.children) if (!this.children.has(pe)) out.children.set(pe, o);
    return out;
  }

  /** Paths of this set that are not in `other` (exact paths: a member of `other` does not remove descendants). */
  difference(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!other.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe);
      const d = o ? c.difference(o) : c;
      if (!d.empty()) out.children.set(pe, d);
    }
    return out;
  }

  intersection(other: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (other.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      const o = other.children.get(pe);
      if (!o) continue;
      const i = c.intersection(o);
      if (!i.empty()) out.children.set(pe, i);
    }
    return out;
  }

  /** This set without every path that starts with one of `prefixes` (the paths themselves included). */
  withoutPrefixes(prefixes: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) if (!prefixes.members.has(m)) out.members.add(m);
    for (const [pe, c] of this.children) {
      if (prefixes.members.has(pe)) continue;
      const p = prefixes.children.get(pe);
      const kept = p ? c.withoutPrefixes(p) : c;
      if (!kept.empty()) out.children.set(pe, kept);
    }
    return out;
  }

  clone(): FieldSet {
    const out = new FieldSet();
    for (const m of this.members) out.members.add(m);
    for (const [pe, c] of this.children) out.children.set(pe, c.clone());
    return out;
  }

  /** Every path of the set, in FieldsV1 order. */
  paths(): Path[] {
    const out: Path[] = [];
    const walk = (node: FieldSet, prefix: Path) => {
      for (const pe of sortedElements(node)) {
        if (node.members.has(pe)) out.push([...prefix, pe]);
        const c = node.children.get(pe);
        if (c) walk(c, [...prefix, pe]);
      }
    };
    walk(this, []);
    return out;
  }

  equals(other: FieldSet): boolean {
    return this.difference(other).empty() && other.difference(this).empty();
  }

  /**
   * The FieldsV1 form: an object per element, `{}` for a member without children, and a `.` entry
   * for an element that is both a member and has children.
   */
  toFieldsV1(): Record<string, unknown> {
    return Object.fromEntries(this.entriesV1(false));
  }

  /**
   * This node's FieldsV1 entries, a `.` entry first when `member`. Objects are made from whole
   * entry lists: V8 keeps those in fast mode, where adding many names one store at a time can
   * leave a large node in dictionary mode, slower for every later JSON.stringify of the object.
   */
  private entriesV1(member: boolean): [string, unknown][] {
    const entries: [string, unknown][] = member ? [['.', {}]] : [];
    for (const pe of sortedElements(this)) {
      const c = this.children.get(pe);
      if (c && !c.empty()) entries.push([pe, Object.fromEntries(c.entriesV1(this.members.has(pe)))]);
      else if (this.members.has(pe)) entries.push([pe, {}]);
    }
    return entries;
  }

  static fromFieldsV1(fields: unknown): FieldSet {
    const set = new FieldSet();
    set.readFieldsV1(fields, []);
    return set;
  }

  private readFieldsV1(node: unknown, at: Path): void {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) {
      throw new Error(`expected an object in FieldsV1 at ${JSON.stringify(at)}`);
    }
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === '.') {
        if (at.length) this.insert(at);
        continue;
      }
      if (!/^[fkvi]:/.test(key)) throw new Error(`unexpected FieldsV1 key ${JSON.stringify(key)}`);
      const path = [...at, key];
      const entries = value && typeof value === 'object' ? Object.keys(value) : [];
      if (entries.length === 0) this.insert(path);
      else this.readFieldsV1(value, path);
    }
  }
}
