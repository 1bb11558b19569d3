// kube-apiserver's structural defaulting (apiextensions-apiserver pkg/apiserver/schema/defaulting):
// first nulls the schema does not allow and cannot default are dropped
// (PruneNonNullableNullsWithoutDefaults), then a missing property, or a null one that is not
// nullable, takes a copy of its default; defaults apply only where the parent object exists, and
// a default that was just set is defaulted further inside.

import { setMember } from '../../machinery/own-member.js';
import { jsonCopy } from './json.js';
import { propertySchema, type SchemaNode } from './structural.js';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const nonNullableNull = (v: unknown, s: SchemaNode | undefined): boolean => v === null && s !== undefined && !s.nullable;

export function pruneNonNullableNulls(x: unknown, s: SchemaNode | undefined): void {
  // Without a schema no null can be judged, at any depth below.
  if (!s) return;
  if (Array.isArray(x)) {
    const items = s.items;
    if (items) for (const item of x) if (item !== null && typeof item === 'object') pruneNonNullableNulls(item, items);
    return;
  }
  if (!isObject(x)) return;
  // Only nulls and containers have anything to do; other values are passed over without a schema lookup.
  for (const key in x) {
    const value = x[key];
    if (value === null) {
      const schema = propertySchema(s, key);
      if (schema && !schema.nullable && !schema.default) delete x[key];
    } else if (typeof value === 'object') {
      pruneNonNullableNulls(value, propertySchema(s, key));
    }
  }
}

const defaultsBelowMemo = new WeakMap<SchemaNode, boolean>();

/** Whether any schema below `s` (through properties, items and additionalProperties) has a default. */
function defaultsBelow(s: SchemaNode): boolean {
  let found = defaultsBelowMemo.get(s);
  if (found !== undefined) return found;
  const below = (child: SchemaNode | boolean | undefined): boolean =>
    typeof child === 'object' && (child.default !== undefined || defaultsBelow(child));
  found = below(s.items) || below(s.additionalProperties);
  if (!found && s.properties) for (const prop of s.properties.values()) if ((found = below(prop))) break;
  defaultsBelowMemo.set(s, found);
  return found;
}

export function applyDefaultValues(x: unknown, s: SchemaNode | undefined): void {
  // A subtree whose schema defaults nothing is left as it is, unwalked.
  if (!s || !defaultsBelow(s)) return;
  if (Array.isArray(x)) {
    const items = s.items;
    if (!items) return;
    for (let i = 0; i < x.length; i++) {
      if (nonNullableNull(x[i], items) && items.default) x[i] = jsonCopy(items.default.value);
      applyDefaultValues(x[i], items);
    }
    return;
  }
  if (!isObject(x)) return;
  if (s.properties) {
    for (const [key, prop] of s.properties) {
      if (!prop.default) continue;
      if (!Object.hasOwn(x, key) || nonNullableNull(x[key], prop)) setMember(x, key, jsonCopy(prop.default.value));
    }
  }
  for (const key of Object.keys(x)) {
    const prop = s.properties?.get(key);
    if (prop) applyDefaultValues(x[key], prop);
    else if (typeof s.additionalProperties === 'object') {
      const extra = s.additionalProperties;
      if (nonNullableNull(x[key], extra) && extra.default) setMember(x, key, jsonCopy(extra.default.value));
      applyDefaultValues(x[key], extra);
    }
  }
}
