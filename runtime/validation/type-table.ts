// The per-type facts generated validators carry for what ajv's JSON Schema cannot say: which
// objects are maps and which are structs (for kube-apiserver field paths), defaults, immutable
// fields, CEL rules, cross-field key rules and list-map keys. Generated code builds these tables
// as plain literals; everything here interprets them.

import type { CompiledDefault, CompiledRule } from './cel.js';

export type Shape =
  | { t: 'scalar' }
  | { t: 'ref'; type: string }
  | { t: 'list'; of: Shape }
  | { t: 'map'; of: Shape };

export interface FieldInfo {
  shape: Shape;
  /** Filled in by applyDefaults when the field is absent. */
  default?: unknown;
  /** A change on update is `Invalid value: <new>: field is immutable`. */
  immutable?: boolean;
  /** Go pointer field: absent stays absent (defaults inside are not forced into existence). */
  pointer?: boolean;
  /** Keys of this map may not also appear in the named sibling map. */
  disjointKeys?: { with: string; message: string };
  /** Size rules of a string map, reported at the field (storage's parameters and attachment metadata). */
  mapSize?: { maxEntries?: number; nonEmptyKeys?: boolean; maxBytes?: number };
  /**
   * A member Go always writes (no omitempty): a non-pointer struct is created empty when absent,
   * a list or map is written as null, as defaults are filled.
   */
  alwaysEmitted?: boolean;
  /** Validated as "" when absent, as kube-apiserver validates the Go zero value (no Required). */
  zeroWhenAbsent?: boolean;
  /** Over this many elements the list's TooMany is its only cause: the elements are not validated. */
  stopsAtMaxItems?: number;
  /** Element errors are reported at the field itself, without `[i]` / `[key]` (kube-apiserver quirk). */
  reportAtField?: boolean;
  /** Elements are identified by these keys, which must be unique (only where the spec demands it). */
  listMapKeys?: string[];
  /** Only elements without causes of their own join the keys seen; see element-order.ts. */
  uniqueAmongValid?: boolean;
  /** Fields of each element in the order kube-apiserver reports their causes; see element-order.ts. */
  elementOrder?: string[];
  /** Fields of one union group: at most one may be set. */
  oneOf?: string;
  /** Rules over each element of the list (or value of the map), reported below field[i]. */
  itemRules?: CompiledRule[];
  /** Defaults by condition over the holding object, tried in order when the field is absent or empty. */
  defaultWhen?: CompiledDefault[];
  /** Served only while this feature gate is on: dropped on write otherwise (see drop-disabled.ts). */
  featureGate?: string;
}

export interface TypeInfo {
  fields: Record<string, FieldInfo>;
  rules?: CompiledRule[];
  /** True when a default exists somewhere below, so absent non-pointer structs are created. */
  hasDefaults?: boolean;
}

export type TypeTable = Record<string, TypeInfo>;

export const scalar: Shape = { t: 'scalar' };
export const ref = (type: string): Shape => ({ t: 'ref', type });
export const list = (of: Shape): Shape => ({ t: 'list', of });
export const map = (of: Shape): Shape => ({ t: 'map', of });

/** A test of fields, kept in a constant: reachesField remembers its answers per table and test. */
export type FieldTest = (field: FieldInfo) => boolean;

const reachingTypes = new WeakMap<TypeTable, Map<FieldTest, Set<string>>>();

/**
 * Whether a field meeting `test` is reachable from `rootType`; without a root, whether the table
 * has one anywhere. A module's table holds the types of all its kinds, and each kind asks once
 * (most then learn they can skip a walk on every write): the table is read once per test, and the
 * answer for every type kept, rather than the types below each kind walked again.
 */
export function reachesField(table: TypeTable, rootType: string | undefined, test: FieldTest): boolean {
  if (rootType === undefined) return Object.values(table).some((t) => Object.values(t.fields).some(test));
  let byTest = reachingTypes.get(table);
  if (!byTest) reachingTypes.set(table, (byTest = new Map()));
  let reaching = byTest.get(test);
  if (!reaching) byTest.set(test, (reaching = typesReaching(table, test)));
  return reaching.has(rootType);
}

/** The types with a field meeting `test`, and every type that refers to one of them, however deep. */
function typesReaching(table: TypeTable, test: FieldTest): Set<string> {
  const referrers = new Map<string, string[]>();
  const found = new Set<string>();
  for (const [name, info] of Object.entries(table)) {
    for (const field of Object.values(info.fields)) {
      if (test(field)) found.add(name);
      // The type the field refers to, through lists and maps.
      let shape = field.shape;
      while (shape.t === 'list' || shape.t === 'map') shape = shape.of;
      if (shape.t !== 'ref') continue;
      const from = referrers.get(shape.type);
      if (from) from.push(name);
      else referrers.set(shape.type, [name]);
    }
  }
  const pending = [...found];
  while (pending.length > 0) {
    for (const referrer of referrers.get(pending.pop() as string) ?? []) {
      if (found.has(referrer)) continue;
      found.add(referrer);
      pending.push(referrer);
    }
  }
  return found;
}

export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

export function childPath(parent: string, field: string): string {
  return parent ? `${parent}.${field}` : field;
}

export function keyPath(parent: string, key: string | number): string {
  return `${parent}[${key}]`;
}

/**
 * Turns an ajv instancePath (a JSON pointer) into kube-apiserver's field path: struct fields
 * joined by '.', list indexes and map keys in brackets.
 */
export function kubePath(table: TypeTable, rootType: string, pointer: string): string {
  const segments = pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let path = '';
  let shape: Shape | undefined = { t: 'ref', type: rootType };
  let frozen = false;
  for (const seg of segments) {
    if (frozen) continue;
    let field: FieldInfo | undefined;
    if (shape?.t === 'ref') {
      field = table[shape.type]?.fields[seg];
      path = childPath(path, seg);
      shape = field?.shape;
      if (field?.reportAtField) frozen = true;
    } else if (shape?.t === 'list' || shape?.t === 'map') {
      path = keyPath(path, seg);
      shape = shape.of;
    } else {
      // Beyond what the table knows (e.g. inside a raw object): keep a readable path.
      path = /^\d+$/.test(seg) ? keyPath(path, seg) : childPath(path, seg);
    }
  }
  return path;
}

/** The field an ajv instancePath designates, when it is a field of a struct the table knows. */
export function fieldAt(table: TypeTable, rootType: string, pointer: string): FieldInfo | undefined {
  const segments = pointer === '' ? [] : pointer.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  let shape: Shape | undefined = { t: 'ref', type: rootType };
  let field: FieldInfo | undefined;
  for (const seg of segments) {
    if (shape?.t === 'ref') {
      field = table[shape.type]?.fields[seg];
      shape = field?.shape;
    } else if (shape?.t === 'list' || shape?.t === 'map') {
      field = undefined;
      shape = shape.of;
    } else return undefined;
  }
  return field;
}

/** The decoded value a pointer designates, for echoing it in messages. */
export function valueAt(obj: unknown, pointer: string): unknown {
  if (pointer === '') return obj;
  let cur: unknown = obj;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) cur = cur[Number(seg)];
    else if (isObj(cur)) cur = cur[seg];
    else return undefined;
  }
  return cur;
}
