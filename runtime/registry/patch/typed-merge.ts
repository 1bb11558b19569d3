// Operations on JSON values typed by a TypeNode, as structured-merge-diff performs them: the set
// of fields a value sets, the merge of an applied configuration into the live object, the
// comparison of two values (added, modified, removed paths), and the removal of a set of paths.
// Atomic lists and maps are one leaf; set lists are keyed by value, map lists by their key fields.

import { deepEqual } from '../../machinery/object.js';
import { getMember, setMember } from '../../machinery/own-member.js';
import { FieldSet, compareElements, fieldElement, fieldName, keyElement, objectOf, pathString, valueElement, type Path, type PathElement } from '../apply/fieldpath.js';
import { DEDUCED, isObjectValue, type FieldType, type TypeNode } from '../apply/schema.js';

type ListNode = Extract<TypeNode, { kind: 'list' }>;
type MapNode = Extract<TypeNode, { kind: 'map' }>;

const SCALAR: TypeNode = { kind: 'scalar' };
const DEDUCED_FIELD: FieldType = { node: DEDUCED, declared: false };
const DEDUCED_MAP: MapNode = { kind: 'map', atomic: false, field: () => DEDUCED_FIELD };
const DEDUCED_LIST: ListNode = { kind: 'list', listType: 'atomic', keys: [], item: () => DEDUCED, keyDefault: () => undefined };

/** A value that does not fit its schema; `errors` are `<path>: <problem>` lines. */
export class TypedValueError extends Error {
  constructor(readonly errors: string[]) {
    super(errors.length === 1 ? errors[0] : `errors:\n  ${errors.join('\n  ')}`);
    this.name = 'TypedValueError';
  }
}

/** Untyped nodes take the shape of their value: objects are granular maps, lists are atomic. */
function effective(node: TypeNode, value: unknown): Exclude<TypeNode, { kind: 'deduced' }> {
  if (node.kind !== 'deduced') return node;
  if (isObjectValue(value)) return DEDUCED_MAP;
  if (Array.isArray(value)) return DEDUCED_LIST;
  return SCALAR as Exclude<TypeNode, { kind: 'deduced' }>;
}

function fieldOf(node: MapNode, name: string): FieldType {
  return node.field(name) ?? DEDUCED_FIELD;
}

/** The path element naming one item of a set or map list; undefined (with an error) when it has none. */
function listItemElement(node: ListNode, item: unknown, index: number, path: Path, errors: string[]): PathElement | undefined {
  if (node.listType === 'set') return valueElement(item);
  if (!isObjectValue(item)) {
    errors.push(`${pathString(path)}: element ${index}: associative list with keys has an element that is not a map`);
    return undefined;
  }
  const keys: Record<string, unknown> = {};
  for (const key of node.keys) {
    const value = getMember(item, key) ?? node.keyDefault(key);
    if (value === undefined || value === null) {
      errors.push(`${pathString(path)}: element ${index}: associative list with keys has an element that omits key field ${JSON.stringify(key)} (and doesn't have default value)`);
      return undefined;
    }
    setMember(keys, key, value);
  }
  return keyElement(keys);
}

/** Items of a set or map list by element, first occurrence winning; duplicates reported when asked. */
function indexList(node: ListNode, list: unknown[], path: Path, errors: string[], reportDuplicates: boolean) {
  const order: PathElement[] = [];
  const items = new Map<PathElement, unknown>();
  list.forEach((item, i) => {
    const pe = listItemElement(node, item, i, path, errors);
    if (pe === undefined) return;
    if (items.has(pe)) {
      if (reportDuplicates) errors.push(`${pathString(path)}: duplicate entries for key ${pathString([pe])}`);
      return;
    }
    items.set(pe, item);
    order.push(pe);
  });
  return { order, items };
}

/**
 * The fields a value sets: every scalar, atomic list or map, map entry and list item, plus
 * struct fields that are null or empty objects. Undeclared fields and bad list items are errors.
 */
export function toFieldSet(value: unknown, node: TypeNode, strict = false): FieldSet {
  const set = new FieldSet();
  const errors: string[] = [];
  collect(value, node, [], set, errors, strict);
  if (errors.length) throw new TypedValueError(errors);
  return set;
}

function collect(value: unknown, node: TypeNode, path: Path, set: FieldSet, errors: string[], strict: boolean): void {
  const n = effective(node, value);
  if (n.kind === 'scalar') {
    set.insert(path);
  } else if (n.kind === 'list') {
    if (n.listType === 'atomic') set.insert(path);
    else if (Array.isArray(value)) {
      const { order, items } = indexList(n, value, path, errors, strict);
      for (const pe of order) {
        const itemPath = [...path, pe];
        set.insert(itemPath);
        collect(items.get(pe), n.item(), itemPath, set, errors, strict);
      }
    }
  } else if (n.atomic) {
    set.insert(path);
  } else if (isObjectValue(value)) {
    for (const [key, child] of Object.entries(value)) {
      const childPath = [...path, fieldElement(key)];
      // Stored objects may hold fields the schema lost; only an applied configuration is refused for them.
      const field = n.field(key) ?? (strict ? undefined : DEDUCED_FIELD);
      if (!field) {
        errors.push(`${pathString(childPath)}: field not declared in schema`);
        continue;
      }
      if (child === null || (isObjectValue(child) && Object.keys(child).length === 0) || !field.declared) set.insert(childPath);
      collect(child, field.node, childPath, set, errors, strict);
    }
  }
}

/** The live object with the applied configuration merged in (inputs untouched). */
export function merge(live: unknown, config: unknown, node: TypeNode): unknown {
  if (config === undefined) return live;
  if (live === undefined) return config;
  const n = effective(node, config);
  if (n.kind === 'map' && !n.atomic && isObjectValue(live) && isObjectValue(config)) {
    const out: Record<string, unknown> = { ...live };
    for (const [key, value] of Object.entries(config)) setMember(out, key, merge(getMember(live, key), value, fieldOf(n, key).node));
    return out;
  }
  if (n.kind === 'list' && n.listType !== 'atomic' && Array.isArray(live) && Array.isArray(config)) {
    return mergeList(live, config, n);
  }
  return config;
}

/**
 * Items of both lists, merged by element. Live items the configuration lacks keep their place;
 * items both have follow the configuration's order, as structured-merge-diff orders them.
 */
function mergeList(live: unknown[], config: unknown[], node: ListNode): unknown[] {
  const ignored: string[] = [];
  const lhs = indexList(node, live, [], ignored, false);
  const rhs = indexList(node, config, [], ignored, false);
  const shared = rhs.order.filter((pe) => lhs.items.has(pe));
  let sharedAt = 0;
  const out: unknown[] = [];
  const item = node.item();
  let li = 0;
  let ri = 0;
  while (li < lhs.order.length || ri < rhs.order.length) {
    const before = li + ri;
    const nextShared = shared[sharedAt];
    if (li < lhs.order.length && ri < rhs.order.length) {
      const pe = lhs.order[li];
      if (pe === rhs.order[ri]) {
        out.push(merge(lhs.items.get(pe), rhs.items.get(pe), item));
        li++;
        ri++;
        sharedAt++;
        continue;
      }
      // A shared item that comes later in the configuration's order: it is placed when reached there.
      if (rhs.items.has(pe) && nextShared !== undefined && nextShared !== pe) {
        li++;
        continue;
      }
    }
    if (li < lhs.order.length && !rhs.items.has(lhs.order[li])) {
      out.push(lhs.items.get(lhs.order[li]));
      li++;
      continue;
    }
    if (ri < rhs.order.length) {
      const pe = rhs.order[ri];
      out.push(merge(lhs.items.get(pe), rhs.items.get(pe), item));
      ri++;
      if (nextShared === pe) sharedAt++;
    }
    if (li + ri === before) li++;
  }
  return out;
}

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** What changed from `lhs` to `rhs`, path by path; containers that appear or vanish count too. */
export function compare(lhs: unknown, rhs: unknown, node: TypeNode): Comparison {
  const c: Comparison = { added: new FieldSet(), modified: new FieldSet(), removed: new FieldSet() };
  walkCompare(lhs, rhs, node, [], c);
  return c;
}

/**
 * `compare({}, value, node).added`, built straight into one set: every path a create writes, its
 * containers included. The one comparison every create makes, so it is walked without the
 * general comparison's per-path arrays and three result sets.
 */
export function addedFields(value: unknown, node: TypeNode): FieldSet {
  const set = new FieldSet();
  const n = effective(node, value);
  if (n.kind === 'map' && !n.atomic && isObjectValue(value)) {
    for (const key of Object.keys(value)) {
      const field = fieldOf(n, key);
      addAdded(set, field.element ?? fieldElement(key), value[key], field.node);
    }
  } else if (n.kind === 'list' && n.listType !== 'atomic' && Array.isArray(value)) {
    const { order, items } = indexList(n, value, [], [], false);
    for (const pe of order) addAdded(set, pe, items.get(pe), n.item());
  }
  return set;
}

/**
 * `addedFields(value, node).withoutPrefixes(dropped).difference(removed).toFieldsV1()` in one
 * walk, without building the sets: what a create records as its writer's fields. `dropped` names
 * paths left out with everything below them, `removed` exact paths left out (their children
 * stay). Undefined when nothing is left. A value nested deeper than the walk recurses is left to
 * the set operations, which walk with explicit stacks.
 */
export function addedFieldsV1(value: unknown, node: TypeNode, dropped: FieldSet, removed: FieldSet): Record<string, unknown> | undefined {
  try {
    const entries = addedEntries(value, node, dropped, removed, 0);
    return entries.length ? objectOf(entries) : undefined;
  } catch (e) {
    if (e !== TOO_DEEP) throw e;
    const set = addedFields(value, node).withoutPrefixes(dropped).difference(removed);
    return set.empty() ? undefined : set.toFieldsV1();
  }
}

// A symbol, not an Error: an Error made as the module loads keeps its stack, and with it the
// bytecode of the bundle's whole top-level function (about 0.8 MB), which V8 otherwise flushes
// once it has long run.
const TOO_DEEP = Symbol('nested deeper than the walk recurses');
const EMPTY_SET = new FieldSet();

/** The FieldsV1 entries below a value that was absent before, each element in FieldsV1 order. */
function addedEntries(value: unknown, node: TypeNode, dropped: FieldSet, removed: FieldSet, depth: number): [PathElement, unknown][] {
  if (depth === RECURSIVE_LEVELS) throw TOO_DEEP;
  const n = effective(node, value);
  const entries: [PathElement, unknown][] = [];
  let fieldsOnly = true;
  if (n.kind === 'map' && !n.atomic && isObjectValue(value)) {
    for (const key of Object.keys(value)) {
      const field = fieldOf(n, key);
      addEntry(entries, field.element ?? fieldElement(key), value[key], field.node, dropped, removed, depth);
    }
  } else if (n.kind === 'list' && n.listType !== 'atomic' && Array.isArray(value)) {
    const { order, items } = indexList(n, value, [], [], false);
    for (const pe of order) addEntry(entries, pe, items.get(pe), n.item(), dropped, removed, depth);
    fieldsOnly = false;
  }
  if (entries.length > 1) entries.sort(fieldsOnly ? byPlainElement : byElement);
  return entries;
}

/** One element's entry, as toFieldsV1 writes it: `{}` for a leaf, its children (after a "." when it is a path itself) for a container. */
function addEntry(entries: [PathElement, unknown][], pe: PathElement, value: unknown, node: TypeNode, dropped: FieldSet, removed: FieldSet, depth: number): void {
  if (value === undefined || dropped.members.has(pe)) return;
  const member = !removed.members.has(pe);
  const n = effective(node, value);
  const leaf = n.kind === 'scalar' || (n.kind === 'list' && n.listType === 'atomic') || (n.kind === 'map' && n.atomic) || isEmptyContainer(value);
  const below = leaf ? [] : addedEntries(value, node, dropped.children.get(pe) ?? EMPTY_SET, removed.children.get(pe) ?? EMPTY_SET, depth + 1);
  if (below.length) entries.push([pe, objectOf(member ? [['.', {}], ...below] : below)]);
  else if (member) entries.push([pe, {}]);
}

const byPlainElement = (a: [PathElement, unknown], b: [PathElement, unknown]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
const byElement = (a: [PathElement, unknown], b: [PathElement, unknown]) => compareElements(a[0], b[0]);

/** Adds the path `pe` under `parent` (it was absent before) and everything below it, as walkCompare does. */
function addAdded(parent: FieldSet, pe: PathElement, value: unknown, node: TypeNode, depth = 0): void {
  if (value === undefined) return;
  if (depth === RECURSIVE_LEVELS) return addAddedIteratively(parent, pe, value, node);
  parent.members.add(pe);
  const n = effective(node, value);
  if (n.kind === 'scalar' || (n.kind === 'list' && n.listType === 'atomic') || (n.kind === 'map' && n.atomic) || isEmptyContainer(value)) return;
  const below = new FieldSet();
  if (n.kind === 'map') {
    if (!isObjectValue(value)) return;
    for (const key of Object.keys(value)) {
      const field = fieldOf(n, key);
      addAdded(below, field.element ?? fieldElement(key), value[key], field.node, depth + 1);
    }
  } else {
    // A list's items: problems naming them (no key, duplicates) leave the item out, as in compare.
    const { order, items } = indexList(n, Array.isArray(value) ? value : [], [], [], false);
    for (const item of order) addAdded(below, item, items.get(item), n.item(), depth + 1);
  }
  if (below.members.size || below.children.size) parent.children.set(pe, below);
}

/**
 * addAdded with an explicit stack. A node's set of children is attached before they are added,
 * when one of them will be (a value that is not undefined adds at least its own path).
 */
function addAddedIteratively(parent0: FieldSet, pe0: PathElement, value0: unknown, node0: TypeNode): void {
  const pending: [FieldSet, PathElement, unknown, TypeNode][] = [[parent0, pe0, value0, node0]];
  while (pending.length > 0) {
    const [parent, pe, value, node] = pending.pop()!;
    if (value === undefined) continue;
    parent.members.add(pe);
    const n = effective(node, value);
    if (n.kind === 'scalar' || (n.kind === 'list' && n.listType === 'atomic') || (n.kind === 'map' && n.atomic) || isEmptyContainer(value)) continue;
    const below = new FieldSet();
    const children: [FieldSet, PathElement, unknown, TypeNode][] = [];
    if (n.kind === 'map') {
      if (!isObjectValue(value)) continue;
      for (const key of Object.keys(value)) {
        const field = fieldOf(n, key);
        children.push([below, field.element ?? fieldElement(key), value[key], field.node]);
      }
    } else {
      const { order, items } = indexList(n, Array.isArray(value) ? value : [], [], [], false);
      for (const item of order) children.push([below, item, items.get(item), n.item()]);
    }
    if (children.some((child) => child[2] !== undefined)) parent.children.set(pe, below);
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
  }
}

function isEmptyContainer(v: unknown): boolean {
  if (v === undefined || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return isObjectValue(v) && Object.keys(v).length === 0;
}

/**
 * Levels the comparison walks by recursion, the quickest for the shallow objects of nearly every
 * write; deeper (an object may nest 10,000 levels) it goes on with an explicit stack.
 */
const RECURSIVE_LEVELS = 256;

function walkCompare(lhs: unknown, rhs: unknown, node: TypeNode, path: Path, c: Comparison, depth = 0): void {
  if (lhs === undefined && rhs === undefined) return;
  if (depth === RECURSIVE_LEVELS) return walkCompareIteratively(lhs, rhs, node, path, c);
  const n = effective(node, rhs !== undefined ? rhs : lhs);
  const leaf = n.kind === 'scalar' || (n.kind === 'list' && n.listType === 'atomic') || (n.kind === 'map' && n.atomic);
  if (leaf || (isEmptyContainer(lhs) && isEmptyContainer(rhs))) {
    if (lhs === undefined) c.added.insert(path);
    else if (rhs === undefined) c.removed.insert(path);
    else if (!deepEqual(lhs, rhs)) c.modified.insert(path);
    return;
  }
  if (n.kind === 'map') {
    const l = isObjectValue(lhs) ? lhs : {};
    const r = isObjectValue(rhs) ? rhs : {};
    // The keys of both sides, each once, without building their union.
    for (const key in l) {
      if (!Object.hasOwn(l, key)) continue;
      const field = fieldOf(n, key);
      walkCompare(l[key], getMember(r, key), field.node, [...path, field.element ?? fieldElement(key)], c, depth + 1);
    }
    for (const key in r) {
      if (!Object.hasOwn(r, key) || Object.hasOwn(l, key)) continue;
      const field = fieldOf(n, key);
      walkCompare(undefined, r[key], field.node, [...path, field.element ?? fieldElement(key)], c, depth + 1);
    }
  } else {
    const ignored: string[] = [];
    const l = indexList(n, Array.isArray(lhs) ? lhs : [], path, ignored, false);
    const r = indexList(n, Array.isArray(rhs) ? rhs : [], path, ignored, false);
    for (const pe of new Set([...l.order, ...r.order])) walkCompare(l.items.get(pe), r.items.get(pe), n.item(), [...path, pe], c, depth + 1);
  }
  // Containers report their own appearance and disappearance, besides their contents'.
  if (lhs === undefined) c.added.insert(path);
  else if (rhs === undefined) c.removed.insert(path);
}

/**
 * A path below the recursion's, one element per level. It is never made into an array: each
 * result set's node for it is made once, when something is recorded at or below it, so that a
 * deep subtree that appeared or vanished costs one step per level rather than a path per level.
 */
interface PathLink {
  parent: PathLink | undefined;
  pe: PathElement;
  /** Its node in each result set (added, modified, removed), once made. */
  nodes: (FieldSet | undefined)[];
}

/**
 * walkCompare with an explicit stack, from `base` down. A container's own appearance is recorded
 * before its contents' rather than after: the results are sets, whatever the order of insertion.
 */
function walkCompareIteratively(lhs0: unknown, rhs0: unknown, node0: TypeNode, base: Path, c: Comparison): void {
  const sets = [c.added, c.modified, c.removed];
  const baseNodes: (FieldSet | undefined)[] = [];
  const nodeOf = (which: number, link: PathLink | undefined): FieldSet => {
    if (!link) {
      let node = baseNodes[which];
      if (!node) {
        node = sets[which];
        for (const pe of base) node = node.child(pe);
        baseNodes[which] = node;
      }
      return node;
    }
    const missing: PathLink[] = [];
    let l: PathLink | undefined = link;
    for (; l && !l.nodes[which]; l = l.parent) missing.push(l);
    let node = l ? l.nodes[which]! : nodeOf(which, undefined);
    for (let i = missing.length - 1; i >= 0; i--) node = missing[i].nodes[which] = node.child(missing[i].pe);
    return node;
  };
  const record = (which: number, link: PathLink | undefined) => {
    if (link) nodeOf(which, link.parent).members.add(link.pe);
    else sets[which].insert(base);
  };
  const ADDED = 0;
  const MODIFIED = 1;
  const REMOVED = 2;
  const below = (link: PathLink | undefined, pe: PathElement): PathLink => ({ parent: link, pe, nodes: [] });
  const pending: [unknown, unknown, TypeNode, PathLink | undefined][] = [[lhs0, rhs0, node0, undefined]];
  while (pending.length > 0) {
    const [lhs, rhs, node, link] = pending.pop()!;
    if (lhs === undefined && rhs === undefined) continue;
    const n = effective(node, rhs !== undefined ? rhs : lhs);
    const leaf = n.kind === 'scalar' || (n.kind === 'list' && n.listType === 'atomic') || (n.kind === 'map' && n.atomic);
    if (leaf || (isEmptyContainer(lhs) && isEmptyContainer(rhs))) {
      if (lhs === undefined) record(ADDED, link);
      else if (rhs === undefined) record(REMOVED, link);
      else if (!deepEqual(lhs, rhs)) record(MODIFIED, link);
      continue;
    }
    if (lhs === undefined) record(ADDED, link);
    else if (rhs === undefined) record(REMOVED, link);
    if (n.kind === 'map') {
      const l = isObjectValue(lhs) ? lhs : {};
      const r = isObjectValue(rhs) ? rhs : {};
      for (const key in l) {
        if (!Object.hasOwn(l, key)) continue;
        const field = fieldOf(n, key);
        pending.push([l[key], getMember(r, key), field.node, below(link, field.element ?? fieldElement(key))]);
      }
      for (const key in r) {
        if (!Object.hasOwn(r, key) || Object.hasOwn(l, key)) continue;
        const field = fieldOf(n, key);
        pending.push([undefined, r[key], field.node, below(link, field.element ?? fieldElement(key))]);
      }
    } else {
      // indexList's complaints are not reported by a comparison: no path is needed for them.
      const ignored: string[] = [];
      const l = indexList(n, Array.isArray(lhs) ? lhs : [], [], ignored, false);
      const r = indexList(n, Array.isArray(rhs) ? rhs : [], [], ignored, false);
      for (const pe of new Set([...l.order, ...r.order])) pending.push([l.items.get(pe), r.items.get(pe), n.item(), below(link, pe)]);
    }
  }
}

/**
 * The value without the paths of `set`; a member path takes its whole subtree. A map entry or list
 * left empty by the removal goes too, as it does when the object is decoded into its typed form.
 */
export function removeItems(value: unknown, set: FieldSet, node: TypeNode): unknown {
  const n = effective(node, value);
  if (n.kind === 'map' && !n.atomic && isObjectValue(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      const pe = fieldElement(key);
      if (set.members.has(pe)) continue;
      const below = set.children.get(pe);
      if (below && !below.empty()) {
        const pruned = removeItems(child, below, fieldOf(n, key).node);
        if (isEmptyContainer(pruned) && !isEmptyContainer(child)) continue;
        setMember(out, key, pruned);
      } else {
        setMember(out, key, child);
      }
    }
    return out;
  }
  if (n.kind === 'list' && n.listType !== 'atomic' && Array.isArray(value)) {
    const out: unknown[] = [];
    const ignored: string[] = [];
    value.forEach((item, i) => {
      const pe = listItemElement(n, item, i, [], ignored);
      if (pe === undefined) {
        out.push(item);
        return;
      }
      if (set.members.has(pe)) return;
      const below = set.children.get(pe);
      out.push(below && !below.empty() ? removeItems(item, below, n.item()) : item);
    });
    return out;
  }
  return value;
}

/**
 * The set plus every declared struct field that has owned fields below it, so that removing what
 * an applier gave up also removes a struct it leaves empty (structured-merge-diff's
 * EnsureNamedFieldsAreMembers).
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, node: TypeNode): FieldSet {
  const out = new FieldSet();
  for (const m of set.members) out.members.add(m);
  for (const [pe, child] of set.children) {
    let childNode: TypeNode = DEDUCED;
    if (node.kind === 'map') {
      const name = fieldName(pe);
      const field = name === undefined ? undefined : node.field(name);
      if (field?.declared) out.members.add(pe);
      childNode = field?.node ?? DEDUCED;
    } else if (node.kind === 'list') {
      childNode = node.item();
    }
    out.children.set(pe, ensureNamedFieldsAreMembers(child, childNode));
  }
  return out;
}
