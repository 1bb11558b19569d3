// x-kubernetes-list-type set and map: kube-apiserver refuses duplicates after the schema checks
// (apiextensions-apiserver pkg/apiserver/schema/listtype), with paths in field.Path notation
// (`spec.ports[1]`, map values as `spec.byName[key]`) and the duplicate printed as Go prints it.
// The same facts are what server-side apply merges lists by.

import type { StatusCause } from '../../errors/status-error.js';
import * as c from './causes.js';
import { canonicalJSON } from './json.js';
import type { SchemaNode } from './structural.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function validateListSetsAndMaps(path: string, s: SchemaNode, obj: Record<string, unknown>, out: StatusCause[]): void {
  const extra = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  for (const key of Object.keys(obj)) {
    const prop = s.properties?.get(key);
    if (prop) validateValue(path ? `${path}.${key}` : key, prop, obj[key], out);
    else if (extra) validateValue(`${path}[${key}]`, extra, obj[key], out);
  }
}

function validateValue(path: string, s: SchemaNode, value: unknown, out: StatusCause[]): void {
  if (Array.isArray(value)) validateArray(path, s, value, out);
  else if (isObject(value)) validateListSetsAndMaps(path, s, value, out);
}

function validateArray(path: string, s: SchemaNode, list: unknown[], out: StatusCause[]): void {
  if (s.listType === 'set') {
    for (const i of duplicateIndices(list)) out.push(c.duplicate(`${path}[${i}]`, list[i]));
  } else if (s.listType === 'map') {
    validateListMap(path, s.listMapKeys ?? [], list, out);
  }
  if (s.items) for (let i = 0; i < list.length; i++) validateValue(`${path}[${i}]`, s.items, list[i], out);
}

/** A scalar's identity, or a compound's JSON (Go's json.Marshal sorts map keys), so equal values share one key. */
function identity(v: unknown): string {
  if (v === UNSPECIFIED) return 'u';
  if (typeof v === 'object' && v !== null) return `c${canonicalJSON(v)}`;
  return `${typeof v}:${String(v)}`;
}

const UNSPECIFIED = Symbol('unspecified key');

/** The index of the second appearance of each repeated value (kube reports each repeated value once). */
function duplicateIndices(list: readonly unknown[]): number[] {
  if (list.length <= 1) return [];
  const seen = new Map<string, number>();
  const out: number[] = [];
  for (let i = 0; i < list.length; i++) {
    const id = identity(list[i]);
    const times = seen.get(id) ?? 0;
    if (times === 1) out.push(i);
    seen.set(id, times + 1);
  }
  return out;
}

function validateListMap(path: string, keys: readonly string[], list: unknown[], out: StatusCause[]): void {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isObject(x)) {
      out.push(c.invalid(`${path}[${i}]`, x, 'must be an object for an array of list-type map'));
      return;
    }
  }
  if (list.length <= 1) return;
  if (keys.length === 1) {
    const [keyField] = keys;
    const values = list.map((x) => (isObject(x) && Object.hasOwn(x, keyField) ? x[keyField] : UNSPECIFIED));
    for (const i of duplicateIndices(values)) {
      const value = values[i] === UNSPECIFIED ? {} : { [keyField]: values[i] };
      out.push(c.duplicate(`${path}[${i}]`, value));
    }
    return;
  }
  const composite = list.map((x) => {
    const key: Record<string, unknown> = {};
    if (isObject(x)) for (const k of keys) if (Object.hasOwn(x, k)) Object.defineProperty(key, k, { value: x[k], enumerable: true });
    return key;
  });
  for (const i of duplicateIndices(composite)) out.push(c.duplicate(`${path}[${i}]`, composite[i]));
}

/** What server-side apply needs of one list or map in the schema. */
export interface ListTypeFact {
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
  mapType?: 'atomic' | 'granular';
}

/**
 * Every list-type, list-map-keys and map-type of the schema by path: `.spec.ports` for a field,
 * `.spec.ports[]` for the items of a list, `.spec.labels{}` for the values of a map.
 */
export function listTypesOf(root: SchemaNode): Map<string, ListTypeFact> {
  const facts = new Map<string, ListTypeFact>();
  const walk = (s: SchemaNode, path: string): void => {
    if (s.listType || s.mapType) {
      const fact: ListTypeFact = {};
      if (s.listType === 'atomic' || s.listType === 'set' || s.listType === 'map') fact.listType = s.listType;
      if (s.listType === 'map' && s.listMapKeys) fact.listMapKeys = [...s.listMapKeys];
      if (s.mapType === 'atomic' || s.mapType === 'granular') fact.mapType = s.mapType;
      facts.set(path, fact);
    }
    if (s.properties) for (const [key, prop] of s.properties) walk(prop, `${path}.${key}`);
    if (s.items) walk(s.items, `${path}[]`);
    if (typeof s.additionalProperties === 'object') walk(s.additionalProperties, `${path}{}`);
  };
  walk(root, '');
  return facts;
}
