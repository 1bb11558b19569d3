// JSON Merge Patch (RFC 7386) as kube-apiserver applies it, with gopkg.in/evanphx/json-patch.v4's
// MergePatch: objects merge member by member, a null member deletes, anything else replaces. The
// library departs from the RFC in one way clients can see: a value that lands where the target
// has no object to merge into (the member is missing, null or not an object) has its nulls
// pruned, from nested objects and from arrays alike, so {"a":[1,null]} stores [1]. A value that
// replaces an object member without merging (an array over an object) keeps its nulls.

import { badRequest } from '../../errors/status-error.js';
import { isPlainObject } from '../../machinery/object.js';

type JsonObject = Record<string, unknown>;

/** Sets an own member (a plain assignment of "__proto__" would change the prototype instead). */
function setMember(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * Told of each member the patch puts into an object of the result, so that the caller can keep
 * what it knows of the patch's values (the library keeps their raw bytes).
 */
export type OnPlaced = (from: JsonObject, key: string, to: JsonObject) => void;

/** The library's pruneNulls: drops null members and null array items, at every depth. */
function pruneNulls(value: unknown, placed?: OnPlaced): unknown {
  if (Array.isArray(value)) return value.filter((item) => item !== null).map((item) => pruneNulls(item, placed));
  if (!isPlainObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === null) continue;
    setMember(out, key, pruneNulls(member, placed));
    placed?.(value, key, out);
  }
  return out;
}

function mergeObjects(target: JsonObject, patch: JsonObject, placed?: OnPlaced): JsonObject {
  const result: JsonObject = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
      continue;
    }
    const current = Object.hasOwn(result, key) ? result[key] : undefined;
    if (!isPlainObject(current)) setMember(result, key, pruneNulls(value, placed));
    else setMember(result, key, isPlainObject(value) ? mergeObjects(current as JsonObject, value as JsonObject, placed) : value);
    placed?.(patch, key, result);
  }
  return result;
}

/**
 * Applies a merge patch to a copy of `target`; a target that is not an object is taken as {}. An
 * array patch is the result (nulls pruned); a null or scalar patch is the library's "Invalid JSON
 * Patch", which kube-apiserver answers with a 400 (the RFC would return the scalar).
 */
export function applyMergePatch(target: unknown, patch: unknown, placed?: OnPlaced): unknown {
  if (Array.isArray(patch)) return pruneNulls(patch, placed);
  if (!isPlainObject(patch)) throw badRequest('Invalid JSON Patch');
  return mergeObjects(isPlainObject(target) ? (target as JsonObject) : {}, patch as JsonObject, placed);
}
