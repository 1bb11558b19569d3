// kube-apiserver's pruning of custom resources (apiextensions-apiserver pkg/apiserver/schema/pruning):
// fields the structural schema does not specify are dropped, unless the schema preserves unknown
// fields there; apiVersion, kind and metadata of the root and of embedded resources are kept
// (ObjectMeta is the caller's). Returns the dropped paths in kube's notation (`spec.foo`,
// `spec.list[0].bar`), which its `unknown field "..."` warnings quote.

import type { SchemaNode } from './structural.js';

const META_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isContainer = (v: unknown): boolean => typeof v === 'object' && v !== null;
const join = (path: string, key: string): string => (path ? `${path}.${key}` : key);

export function pruneObject(obj: Record<string, unknown>, root: SchemaNode): string[] {
  const pruned: string[] = [];
  pruneValue(obj, root, '', true, pruned);
  return pruned;
}

/** Prunes a value below `s` as kube's Prune(obj, s, isResourceRoot) does, without recording what went. */
export function pruneAt(x: unknown, s: SchemaNode, isResourceRoot: boolean): void {
  pruneValue(x, s, '', isResourceRoot, []);
}

/** `embedded` is true for the resource root and for x-kubernetes-embedded-resource objects. */
function pruneValue(x: unknown, s: SchemaNode | undefined, path: string, embedded: boolean, pruned: string[]): void {
  if (s?.preserveUnknownFields) {
    skipPrune(x, s, path, embedded || s.embeddedResource, pruned);
    return;
  }
  if (!s) {
    pruneAll(x, path, pruned);
    return;
  }
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) pruneValue(x[i], s.items, `${path}[${i}]`, s.items?.embeddedResource ?? false, pruned);
    return;
  }
  if (!isObject(x)) return;
  const keepMeta = embedded || s.embeddedResource;
  for (const key of Object.keys(x)) {
    if (keepMeta && META_FIELDS.has(key)) continue;
    const prop = s.properties?.get(key);
    // Below a known field only objects and lists can hold something to prune.
    if (prop) {
      if (isContainer(x[key])) pruneValue(x[key], prop, join(path, key), prop.embeddedResource, pruned);
    } else if (s.additionalProperties !== undefined) {
      const extra = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
      if (isContainer(x[key])) pruneValue(x[key], extra, join(path, key), extra?.embeddedResource ?? false, pruned);
    } else {
      pruned.push(join(path, key));
      delete x[key];
    }
  }
}

/**
 * Where no schema applies every field of every object goes, in lists of lists too. Such lists may
 * nest as deep as the body (10000 levels), so this walks with a stack rather than recursion.
 */
function pruneAll(x: unknown, path: string, pruned: string[]): void {
  const stack: [unknown, string][] = [[x, path]];
  while (stack.length > 0) {
    const [value, at] = stack.pop()!;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push([value[i], `${at}[${i}]`]);
    } else if (isObject(value)) {
      for (const key of Object.keys(value)) {
        pruned.push(join(at, key));
        delete value[key];
      }
    }
  }
}

/** Below x-kubernetes-preserve-unknown-fields nothing unknown is dropped, but known fields are still pruned inside. */
function skipPrune(x: unknown, s: SchemaNode, path: string, embedded: boolean, pruned: string[]): void {
  if (Array.isArray(x)) {
    if (s.items) for (let i = 0; i < x.length; i++) skipPrune(x[i], s.items, `${path}[${i}]`, s.items.embeddedResource, pruned);
    return;
  }
  if (!isObject(x)) return;
  for (const key of Object.keys(x)) {
    if (embedded && META_FIELDS.has(key)) continue;
    const prop = s.properties?.get(key);
    if (prop) pruneValue(x[key], prop, join(path, key), prop.embeddedResource, pruned);
    else if (typeof s.additionalProperties === 'object') pruneValue(x[key], s.additionalProperties, join(path, key), s.additionalProperties.embeddedResource, pruned);
  }
}
