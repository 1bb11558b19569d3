// kube-apiserver validates some lists element by element with a hand-written loop whose order the
// generic walk cannot follow: ValidateVolumes checks a volume's source before its name, and only
// a volume that had no error joins the names seen, so a later namesake of a faulty volume is no
// Duplicate. Lists that say so in the spec (elementOrder, uniqueAmongValid) get their causes
// rearranged here, after every rule has run; strategies that add causes of their own pass the
// whole list through again (ObjectValidator.arrangeElementCauses), which gives the same result.
// A strategy's cause whose path does not say where kube reports it is placed explicitly
// (placeInElement): ranked with another field of the element, or after the element's causes and
// its Duplicate, without counting as an error of the element.

import type { StatusCause } from '../errors/status-error.js';
import * as fe from './field-errors.js';
import { childPath, isObj, keyPath, type FieldInfo, type Obj, type Shape, type TypeTable } from './type-table.js';

/** Where a strategy's cause sits among its element's causes when its path alone does not say. */
export type ElementPlacement = { ranksWith: string } | { afterElement: true };

// Keyed by the cause object itself: placements travel with causes through filters and merges.
const placements = new WeakMap<StatusCause, ElementPlacement>();

/** Marks a cause with its place in its element (see ElementPlacement); returns the cause. */
export function placeInElement(cause: StatusCause, placement: ElementPlacement): StatusCause {
  placements.set(cause, placement);
  return cause;
}

const isAfterElement = (c: StatusCause): boolean => {
  const p = placements.get(c);
  return p !== undefined && 'afterElement' in p;
};

/** The index of the element of the list at `path` a cause belongs to, if any. */
function elementIndex(path: string, field: string): number | undefined {
  if (!field.startsWith(`${path}[`)) return undefined;
  const m = /^\[(\d+)\](?:[.[]|$)/.exec(field.slice(path.length));
  return m ? Number(m[1]) : undefined;
}

/** Rank of a cause within its element: the position of the element's field it lies below. */
function rankWithin(order: readonly string[], elementPath: string, cause: StatusCause): number {
  const placed = placements.get(cause);
  const name = placed && 'ranksWith' in placed ? placed.ranksWith : /^\.([^.[]+)/.exec((cause.field ?? '').slice(elementPath.length))?.[1];
  if (name === undefined) return -1;
  const i = order.indexOf(name);
  return i < 0 ? order.length : i;
}

function arrangeList(info: FieldInfo, items: unknown[], path: string, causes: StatusCause[]): StatusCause[] {
  const key = info.uniqueAmongValid ? info.listMapKeys?.[0] : undefined;
  const byElement = new Map<number, StatusCause[]>();
  let anchor = -1;
  causes.forEach((c, at) => {
    const i = elementIndex(path, c.field ?? '');
    if (i === undefined) return;
    if (anchor < 0) anchor = at;
    // Duplicates of the key are worked out again below, by kube's rule.
    if (key !== undefined && c.reason === 'FieldValueDuplicate' && c.field === childPath(keyPath(path, i), key)) return;
    byElement.set(i, [...(byElement.get(i) ?? []), c]);
  });
  if (anchor < 0) return causes;
  const seen = new Set<string>();
  const block: StatusCause[] = [];
  items.forEach((item, i) => {
    const at = keyPath(path, i);
    const mine = byElement.get(i) ?? [];
    const own = mine
      .filter((c) => !isAfterElement(c))
      .map((c, n) => ({ c, n, r: info.elementOrder ? rankWithin(info.elementOrder, at, c) : 0 }))
      .sort((a, b) => a.r - b.r || a.n - b.n)
      .map((x) => x.c);
    if (key !== undefined && isObj(item)) {
      const identity = JSON.stringify(item[key] ?? null);
      if (seen.has(identity)) own.push(fe.duplicate(childPath(at, key), item[key]));
      else if (own.length === 0) seen.add(identity);
    }
    block.push(...own, ...mine.filter(isAfterElement));
  });
  // A cause naming an index past the end of the list (none is expected) is kept, after the rest.
  for (const [i, rest] of byElement) if (i >= items.length) block.push(...rest);
  const out = causes.filter((c, at) => at < anchor || elementIndex(path, c.field ?? '') === undefined);
  out.splice(anchor, 0, ...block);
  return out;
}

const orderedBelow = new WeakMap<TypeTable, Map<string, boolean>>();

/** Whether an ordered list lies somewhere below this type: most kinds have none and are not walked. */
function hasOrderedList(table: TypeTable, typeName: string, visiting = new Set<string>()): boolean {
  let memo = orderedBelow.get(table);
  if (!memo) orderedBelow.set(table, (memo = new Map()));
  const known = memo.get(typeName);
  if (known !== undefined) return known;
  if (visiting.has(typeName)) return false;
  visiting.add(typeName);
  const found = Object.values(table[typeName]?.fields ?? {}).some((info) => {
    if (info.uniqueAmongValid || info.elementOrder) return true;
    let shape = info.shape;
    while (shape.t === 'list' || shape.t === 'map') shape = shape.of;
    return shape.t === 'ref' && hasOrderedList(table, shape.type, visiting);
  });
  memo.set(typeName, found);
  return found;
}

function arrangeShape(table: TypeTable, shape: Shape, value: unknown, path: string, causes: StatusCause[]): StatusCause[] {
  if (shape.t === 'ref' && isObj(value) && hasOrderedList(table, shape.type)) return arrangeObject(table, shape.type, value, path, causes);
  if (shape.t === 'list' && Array.isArray(value) && shape.of.t === 'ref' && hasOrderedList(table, shape.of.type)) return value.reduce((acc: StatusCause[], item, i) => arrangeShape(table, shape.of, item, keyPath(path, i), acc), causes);
  return causes;
}

function arrangeObject(table: TypeTable, typeName: string, obj: Obj, path: string, causes: StatusCause[]): StatusCause[] {
  let out = causes;
  for (const [name, info] of Object.entries(table[typeName]?.fields ?? {})) {
    const value = obj[name];
    const at = childPath(path, name);
    if ((info.uniqueAmongValid || info.elementOrder) && Array.isArray(value)) out = arrangeList(info, value, at, out);
    out = arrangeShape(table, info.shape, value, at, out);
  }
  return out;
}

/** The causes with those of ordered lists' elements in kube-apiserver's per-element order. */
export function arrangeElementCauses(table: TypeTable, rootType: string, obj: Obj, causes: StatusCause[]): StatusCause[] {
  return hasOrderedList(table, rootType) ? arrangeObject(table, rootType, obj, '', causes) : causes;
}
