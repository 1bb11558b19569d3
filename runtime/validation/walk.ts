// Walks an object along its type table for what the JSON Schema cannot check: defaults, CEL
// rules, immutable fields, keys shared between two maps, list-map key uniqueness and unions.

import type { StatusCause } from '../errors/status-error.js';
import { checkRuleCauses } from './cel.js';
import { deepEqual } from '../machinery/deep-equal.js';
import * as fe from './field-errors.js';
import { childPath, isObj, keyPath, type FieldInfo, type Obj, type Shape, type TypeInfo, type TypeTable } from './type-table.js';

const clone = (v: unknown): unknown => (v === undefined ? v : structuredClone(v));

/** Fills declared defaults in place; creates absent non-pointer structs that hold defaults, as Go's zero values do. */
export function applyDefaults(table: TypeTable, typeName: string, obj: Obj): void {
  const type = table[typeName];
  if (!type) return;
  for (const [name, field] of planOf(type).entries) {
    // Go defaulters test a non-pointer string for "" and a slice for len() == 0.
    const value = obj[name];
    const unset = value === undefined || (!field.pointer && value === '') || (Array.isArray(value) && value.length === 0);
    if (unset && field.default !== undefined) obj[name] = clone(field.default);
    else if (unset && field.defaultWhen) {
      const chosen = field.defaultWhen.find((d) => d.holds(obj));
      if (chosen) obj[name] = clone(chosen.value);
    }
    defaultShape(table, field, obj, name);
  }
}

function defaultShape(table: TypeTable, field: FieldInfo, holder: Obj, name: string): void {
  const shape = field.shape;
  const value = holder[name];
  // Go writes a nil slice or map without omitempty as null; validation reads null as absent.
  if (field.alwaysEmitted && (shape.t === 'list' || shape.t === 'map') && value === undefined) holder[name] = null;
  if (shape.t === 'ref') {
    const inner = table[shape.type];
    if (!inner?.hasDefaults && !field.alwaysEmitted) return;
    if (value === undefined && !field.pointer) holder[name] = {};
    if (isObj(holder[name])) applyDefaults(table, shape.type, holder[name] as Obj);
  } else if ((shape.t === 'list' || shape.t === 'map') && shape.of.t === 'ref') {
    const itemType = shape.of.type;
    if (!table[itemType]?.hasDefaults) return;
    const items = Array.isArray(value) ? value : isObj(value) ? Object.values(value) : [];
    for (const item of items) if (isObj(item)) applyDefaults(table, itemType, item);
  }
}

/**
 * The empty lists and maps of alwaysEmitted members, by the struct holding them: Go writes an
 * empty (non-nil) slice or map without omitempty as [] or {}, so the omitempty pass keeps them.
 * Walks only types that hold defaults, as applyDefaults does.
 */
export function emptyAlwaysEmitted(table: TypeTable, typeName: string, obj: Obj, out = new WeakMap<object, Set<string>>()): WeakMap<object, Set<string>> {
  const type = table[typeName];
  if (!type) return out;
  for (const [name, field] of planOf(type).entries) {
    const value = obj[name];
    const shape = field.shape;
    const empty = Array.isArray(value) ? value.length === 0 : isObj(value) && Object.keys(value).length === 0;
    if (field.alwaysEmitted && (shape.t === 'list' || shape.t === 'map') && empty) out.set(obj, (out.get(obj) ?? new Set()).add(name));
    if (shape.t === 'ref' && table[shape.type]?.hasDefaults && isObj(value)) emptyAlwaysEmitted(table, shape.type, value, out);
    else if ((shape.t === 'list' || shape.t === 'map') && shape.of.t === 'ref' && table[shape.of.type]?.hasDefaults) {
      const items = Array.isArray(value) ? value : isObj(value) ? Object.values(value) : [];
      for (const item of items) if (isObj(item)) emptyAlwaysEmitted(table, shape.of.type, item, out);
    }
  }
  return out;
}

export interface WalkOptions {
  /** 'create': rules without oldSelf and structural checks; 'update': immutability and transition rules only. */
  mode: 'create' | 'update';
  /** The whole object under validation, which rules see as `root`. */
  root?: unknown;
}

/** A type's fields as the walks visit them (defaults, checks), worked out once per type (the table never changes). */
interface WalkPlan {
  entries: [string, FieldInfo][];
  immutable: [string, FieldInfo][];
  hasUnions: boolean;
  /** Fields with a check of their own on create: disjoint keys, map size, list-map keys. */
  createChecks: [string, FieldInfo][];
  /** Fields whose value may hold something to walk: structs, and lists or maps of structs or with item rules. */
  walked: [string, FieldInfo][];
}

const plans = new WeakMap<TypeInfo, WalkPlan>();

/** Whether walkShape can find anything below a value of this shape. */
function mayHoldChecks(shape: Shape, itemRules: FieldInfo['itemRules']): boolean {
  if (shape.t === 'scalar') return false;
  if (shape.t === 'ref') return true;
  return (itemRules?.length ?? 0) > 0 || mayHoldChecks(shape.of, undefined);
}

function planOf(type: TypeInfo): WalkPlan {
  let plan = plans.get(type);
  if (!plan) {
    const entries = Object.entries(type.fields);
    plan = {
      entries,
      immutable: entries.filter(([, f]) => f.immutable),
      hasUnions: entries.some(([, f]) => f.oneOf),
      createChecks: entries.filter(([, f]) => f.disjointKeys || f.mapSize || f.listMapKeys),
      walked: entries.filter(([, f]) => mayHoldChecks(f.shape, f.itemRules)),
    };
    plans.set(type, plan);
  }
  return plan;
}

/** The causes of one object (and, in update mode, against its old value) below `path`. */
export function walkObject(table: TypeTable, typeName: string, obj: Obj, old: Obj | undefined, path: string, opts: WalkOptions, out: StatusCause[]): void {
  const type = table[typeName];
  if (!type) return;
  const plan = planOf(type);
  if (opts.mode === 'update' && old) {
    for (const [name] of plan.immutable) {
      if (!deepEqual(obj[name], old[name])) out.push(fe.invalid(childPath(path, name), obj[name] ?? null, 'field is immutable'));
    }
  }
  if (opts.mode === 'create') {
    if (plan.hasUnions) checkUnions(plan.entries, obj, path, out);
    for (const [name, field] of plan.createChecks) {
      if (field.disjointKeys && isObj(obj[name]) && isObj(obj[field.disjointKeys.with])) {
        const other = obj[field.disjointKeys.with] as Obj;
        for (const key of Object.keys(obj[name] as Obj).sort()) {
          if (key in other) out.push(fe.invalid(keyPath(childPath(path, name), key), key, field.disjointKeys.message));
        }
      }
      if (field.mapSize && isObj(obj[name])) checkMapSize(field.mapSize, obj[name] as Obj, childPath(path, name), out);
      if (field.listMapKeys && Array.isArray(obj[name]) && !endsAtMaxItems(field, obj[name])) checkListMapKeys(field.listMapKeys, obj[name] as unknown[], childPath(path, name), out);
    }
  }
  for (const rule of type.rules ?? []) {
    if (rule.declarative) continue;
    if (rule.transition !== (opts.mode === 'update')) continue;
    if (rule.transition && !old) continue;
    out.push(...checkRuleCauses(rule, path, obj, old, opts.root));
  }
  for (const [name, field] of plan.walked) {
    const value = obj[name];
    // walkShape looks only inside objects and arrays.
    if (typeof value !== 'object' || value === null) continue;
    if (endsAtMaxItems(field, value)) continue;
    walkShape(table, field.shape, value, old?.[name], childPath(path, name), opts, out, field.itemRules);
  }
}

/** Item rules run after the element's own checks, as an owner's loop over its elements does. */
function checkElementRules(itemRules: NonNullable<FieldInfo['itemRules']>, item: unknown, at: string, oldItem: unknown, opts: WalkOptions, out: StatusCause[]): void {
  for (const rule of itemRules) {
    if (rule.transition !== (opts.mode === 'update')) continue;
    if (rule.transition && oldItem === undefined) continue;
    out.push(...checkRuleCauses(rule, at, item, oldItem, opts.root));
  }
}

function walkShape(
  table: TypeTable,
  shape: Shape,
  value: unknown,
  old: unknown,
  path: string,
  opts: WalkOptions,
  out: StatusCause[],
  itemRules?: FieldInfo['itemRules'],
): void {
  if (shape.t === 'ref') {
    if (isObj(value)) walkObject(table, shape.type, value, isObj(old) ? old : undefined, path, opts, out);
    return;
  }
  if (shape.t === 'scalar') return;
  const rules = itemRules?.length ? itemRules : undefined;
  // Elements of scalars without item rules have nothing to check.
  if (!rules && !mayHoldChecks(shape.of, undefined)) return;
  if (shape.t === 'list' && Array.isArray(value)) {
    // List elements are not correlated with old ones: transition rules below a list do not run.
    for (let i = 0; i < value.length; i++) {
      const at = keyPath(path, i);
      walkShape(table, shape.of, value[i], undefined, at, opts, out);
      if (rules) checkElementRules(rules, value[i], at, undefined, opts, out);
    }
  } else if (shape.t === 'map' && isObj(value)) {
    const oldMap = isObj(old) ? old : {};
    for (const key of Object.keys(value).sort()) {
      const at = keyPath(path, key);
      walkShape(table, shape.of, value[key], oldMap[key], at, opts, out);
      if (rules) checkElementRules(rules, value[key], at, oldMap[key], opts, out);
    }
  }
}

/** A list over its stopsAtMaxItems limit: only its TooMany (from the schema) is reported. */
export function endsAtMaxItems(field: FieldInfo | undefined, value: unknown): boolean {
  return field?.stopsAtMaxItems !== undefined && Array.isArray(value) && value.length > field.stopsAtMaxItems;
}

function checkUnions(entries: [string, FieldInfo][], obj: Obj, path: string, out: StatusCause[]): void {
  const groups = new Map<string, string[]>();
  for (const [name, field] of entries) if (field.oneOf) groups.set(field.oneOf, [...(groups.get(field.oneOf) ?? []), name]);
  for (const members of groups.values()) {
    const set = members.filter((m) => obj[m] !== undefined && obj[m] !== null);
    if (set.length > 1) {
      out.push(fe.invalid(path || '<root>', Object.fromEntries(set.map((m) => [m, obj[m]])), `must specify at most one of: ${members.map((m) => `\`${m}\``).join(', ')}`));
    }
  }
}

function checkListMapKeys(keys: string[], items: unknown[], path: string, out: StatusCause[]): void {
  const seen = new Set<string>();
  items.forEach((item, i) => {
    if (!isObj(item)) return;
    const identity = JSON.stringify(keys.map((k) => item[k] ?? null));
    if (seen.has(identity)) {
      const single = keys.length === 1 ? keys[0] : undefined;
      if (single !== undefined) out.push(fe.duplicate(childPath(keyPath(path, i), single), item[single]));
      else out.push(fe.duplicate(keyPath(path, i), Object.fromEntries(keys.map((k) => [k, item[k]]))));
    }
    seen.add(identity);
  });
}

/**
 * kube-apiserver's hand-written size rules of a string map (validateParameters): too many
 * entries ends the check; otherwise each empty key, then the total of keys plus values in bytes.
 */
function checkMapSize(limits: NonNullable<FieldInfo['mapSize']>, map: Obj, path: string, out: StatusCause[]): void {
  const keys = Object.keys(map);
  if (limits.maxEntries !== undefined && keys.length > limits.maxEntries) {
    out.push(fe.tooLong(path, limits.maxEntries));
    return;
  }
  let total = 0;
  for (const key of keys) {
    if (limits.nonEmptyKeys && key === '') out.push(fe.invalid(path, key, 'field can not be empty.'));
    const value = map[key];
    total += Buffer.byteLength(key, 'utf8') + (typeof value === 'string' ? Buffer.byteLength(value, 'utf8') : 0);
  }
  if (limits.maxBytes !== undefined && total > limits.maxBytes) out.push(fe.tooLong(path, limits.maxBytes));
}
