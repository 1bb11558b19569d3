// Strategic merge patch (application/strategic-merge-patch+json), as kube-apiserver applies it:
// JSON merge patch semantics, except that lists whose schema says `patchStrategy: merge` are
// merged element by element (by their merge key, or as a set for primitive lists), and the patch
// may carry directives: `$patch` (replace | merge | delete) in a map or a list element,
// `$retainKeys`, `$deleteFromPrimitiveList/<field>` and `$setElementOrder/<field>`.
// Nulls delete; nulls under a field the original lacks are dropped.

import { badRequest } from '../../errors/status-error.js';
import type { PatchMeta, PatchSchema } from './patch-meta.js';

type JsonObject = Record<string, unknown>;

const DIRECTIVE = '$patch';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList/';
const SET_ELEMENT_ORDER = '$setElementOrder/';

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function isDirectiveKey(key: string): boolean {
  return (
    key === DIRECTIVE ||
    key === RETAIN_KEYS ||
    key.startsWith(DELETE_FROM_PRIMITIVE_LIST) ||
    key.startsWith(SET_ELEMENT_ORDER)
  );
}

/** Applies `patch` to a copy of `original`; the inputs are left untouched. */
export function applyStrategicMergePatch(original: JsonObject, patch: unknown, schema: PatchSchema): JsonObject {
  if (!isObject(patch)) throw badRequest('strategic merge patch must be a JSON object');
  const merged = mergeMap(structuredClone(original), structuredClone(patch), schema);
  return merged ?? {};
}

/** A patch value taken as it is: directives and nulls stripped all the way down. */
function cleanValue(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.filter((item) => !(isObject(item) && item[DIRECTIVE] !== undefined && Object.keys(item).length === 1)).map(cleanValue);
  }
  if (isObject(value)) {
    if (value[DIRECTIVE] === 'delete') return undefined;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(value)) {
      if (isDirectiveKey(k) || v === null) continue;
      const cleaned = cleanValue(v);
      if (cleaned !== undefined) out[k] = cleaned;
    }
    return out;
  }
  return value;
}

function mergeMap(original: JsonObject, patch: JsonObject, schema: PatchSchema): JsonObject | undefined {
  const directive = patch[DIRECTIVE];
  if (directive !== undefined) {
    if (directive === 'replace') return cleanValue(patch) as JsonObject;
    if (directive === 'delete') return undefined;
    if (directive !== 'merge') throw badRequest(`Unknown patch type: ${String(directive)} in map`);
  }

  const retain = patch[RETAIN_KEYS];
  if (retain !== undefined) {
    if (!Array.isArray(retain)) throw badRequest(`${RETAIN_KEYS} must be a list of field names`);
    const keep = new Set(retain.map(String));
    for (const key of Object.keys(original)) if (!keep.has(key)) delete original[key];
  }

  const orders: Array<[string, unknown[]]> = [];
  for (const [key, patchValue] of Object.entries(patch)) {
    if (key === DIRECTIVE || key === RETAIN_KEYS) continue;
    if (key.startsWith(SET_ELEMENT_ORDER)) {
      if (Array.isArray(patchValue)) orders.push([key.slice(SET_ELEMENT_ORDER.length), patchValue]);
      continue;
    }
    if (key.startsWith(DELETE_FROM_PRIMITIVE_LIST)) {
      const field = key.slice(DELETE_FROM_PRIMITIVE_LIST.length);
      const current = original[field];
      if (Array.isArray(current) && Array.isArray(patchValue)) {
        const drop = new Set(patchValue.map((v) => JSON.stringify(v)));
        original[field] = current.filter((v) => !drop.has(JSON.stringify(v)));
      }
      continue;
    }
    if (patchValue === null) {
      delete original[key];
      continue;
    }
    const current = original[key];
    const { meta, schema: child } = schema.field(key);
    let merged: unknown;
    if (isObject(current) && isObject(patchValue) && !meta.strategies.includes('replace')) {
      merged = mergeMap(current, patchValue, child);
    } else if (Array.isArray(current) && Array.isArray(patchValue)) {
      merged = mergeList(current, patchValue, meta, child.items());
    } else {
      merged = cleanValue(patchValue);
    }
    if (merged === undefined) delete original[key];
    else original[key] = merged;
  }

  for (const [field, order] of orders) {
    const list = original[field];
    if (Array.isArray(list)) original[field] = reorder(list, order, schema.field(field).meta.mergeKey);
  }
  return original;
}

function mergeList(original: unknown[], patch: unknown[], meta: PatchMeta, items: PatchSchema): unknown[] {
  const replaceMarker = patch.findIndex((item) => isObject(item) && item[DIRECTIVE] === 'replace');
  if (replaceMarker >= 0) return cleanValue(patch.filter((_, i) => i !== replaceMarker)) as unknown[];
  if (!meta.strategies.includes('merge')) return cleanValue(patch) as unknown[];

  const mergeKey = meta.mergeKey;
  if (!mergeKey || !patch.every(isObject)) {
    // A set of primitives: the union, keeping the original order.
    const seen = new Set(original.map((v) => JSON.stringify(v)));
    const out = [...original];
    for (const item of patch) {
      const id = JSON.stringify(item);
      if (!seen.has(id)) {
        seen.add(id);
        out.push(cleanValue(item));
      }
    }
    return out;
  }

  const out = [...original];
  for (const element of patch as JsonObject[]) {
    if (!(mergeKey in element)) {
      throw badRequest(`map: ${JSON.stringify(element)} does not contain declared merge key: ${mergeKey}`);
    }
    const keyValue = JSON.stringify(element[mergeKey]);
    const index = out.findIndex((o) => isObject(o) && JSON.stringify(o[mergeKey]) === keyValue);
    if (element[DIRECTIVE] === 'delete') {
      if (index >= 0) out.splice(index, 1);
      continue;
    }
    if (index >= 0 && isObject(out[index])) {
      const merged = mergeMap(out[index] as JsonObject, element, items);
      if (merged === undefined) out.splice(index, 1);
      else out[index] = merged;
    } else {
      out.push(cleanValue(element));
    }
  }
  return out;
}

/** `$setElementOrder`: listed elements first in the given order, the rest after in their order. */
function reorder(list: unknown[], order: unknown[], mergeKey: string | undefined): unknown[] {
  const identity = (v: unknown) => JSON.stringify(mergeKey && isObject(v) ? v[mergeKey] : v);
  const rank = new Map(order.map((v, i) => [identity(v), i]));
  const ranked = list.filter((v) => rank.has(identity(v))).sort((a, b) => rank.get(identity(a))! - rank.get(identity(b))!);
  return [...ranked, ...list.filter((v) => !rank.has(identity(v)))];
}
