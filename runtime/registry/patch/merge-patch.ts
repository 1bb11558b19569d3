// JSON Merge Patch (RFC 7386) as kube-apiserver applies it, with gopkg.in/evanphx/json-patch.v4's
// MergePatch: objects merge member by member, a null member deletes, anything else replaces. The
// library departs from the RFC in one way clients can see: a value that lands where the target
// has no object to merge into (the member is missing, null or not an object) has its nulls
// pruned, from nested objects and from arrays alike, so {"a":[1,null]} stores [1]. A value that
// replaces an object member without merging (an array over an object) keeps its nulls.

import { badRequest } from '../../errors/status-error.js';
import { isPlainObject } from '../../machinery/object.js';
import { setMember } from '../../machinery/own-member.js';

type JsonObject = Record<string, unknown>;

/**
 * Told of each member the patch puts into an object of the result, so that the caller can keep
 * what it knows of the patch's values (the library keeps their raw bytes).
 */
export type OnPlaced = (from: JsonObject, key: string, to: JsonObject) => void;

/**
 * Levels merged by recursion, the quickest for the shallow patches of nearly every request;
 * deeper (JSON may nest 10,000 levels) the merge goes on with an explicit stack.
 */
const RECURSIVE_LEVELS = 256;

/** The library's pruneNulls: drops null members and null array items, at every depth. */
function pruneNulls(value: unknown, placed?: OnPlaced, depth = 0): unknown {
  if (depth === RECURSIVE_LEVELS) return pruneNullsIteratively(value, placed);
  if (Array.isArray(value)) return value.filter((item) => item !== null).map((item) => pruneNulls(item, placed, depth + 1));
  if (!isPlainObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === null) continue;
    setMember(out, key, pruneNulls(member, placed, depth + 1));
    placed?.(value, key, out);
  }
  return out;
}

/** pruneNulls with an explicit stack: each copy is filled after its parent holds it. */
function pruneNullsIteratively(value: unknown, placed?: OnPlaced): unknown {
  const emptyCopy = (v: unknown): unknown => (Array.isArray(v) ? [] : isPlainObject(v) ? {} : v);
  const root = emptyCopy(value);
  const pending: [unknown, unknown][] = [[value, root]];
  while (pending.length > 0) {
    const [from, to] = pending.pop()!;
    if (Array.isArray(from)) {
      for (const item of from) {
        if (item === null) continue;
        const copy = emptyCopy(item);
        (to as unknown[]).push(copy);
        if (copy !== item) pending.push([item, copy]);
      }
    } else if (isPlainObject(from)) {
      for (const [key, member] of Object.entries(from)) {
        if (member === null) continue;
        const copy = emptyCopy(member);
        setMember(to as JsonObject, key, copy);
        placed?.(from, key, to as JsonObject);
        if (copy !== member) pending.push([member, copy]);
      }
    }
  }
  return root;
}

function mergeObjects(target: JsonObject, patch: JsonObject, placed?: OnPlaced, depth = 0): JsonObject {
  if (depth === RECURSIVE_LEVELS) return mergeObjectsIteratively(target, patch, placed);
  const result: JsonObject = { ...target };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      delete result[key];
      continue;
    }
    const current = Object.hasOwn(result, key) ? result[key] : undefined;
    if (!isPlainObject(current)) setMember(result, key, pruneNulls(value, placed, depth + 1));
    else setMember(result, key, isPlainObject(value) ? mergeObjects(current as JsonObject, value as JsonObject, placed, depth + 1) : value);
    placed?.(patch, key, result);
  }
  return result;
}

/** mergeObjects with an explicit stack: a merged member's object is made, placed, then filled. */
function mergeObjectsIteratively(target: JsonObject, patch: JsonObject, placed?: OnPlaced): JsonObject {
  const root: JsonObject = { ...target };
  const pending: [JsonObject, JsonObject][] = [[patch, root]];
  while (pending.length > 0) {
    const [from, result] = pending.pop()!;
    for (const [key, value] of Object.entries(from)) {
      if (value === null) {
        delete result[key];
        continue;
      }
      const current = Object.hasOwn(result, key) ? result[key] : undefined;
      if (!isPlainObject(current)) setMember(result, key, pruneNullsIteratively(value, placed));
      else if (!isPlainObject(value)) setMember(result, key, value);
      else {
        const merged: JsonObject = { ...(current as JsonObject) };
        setMember(result, key, merged);
        pending.push([value as JsonObject, merged]);
      }
      placed?.(from, key, result);
    }
  }
  return root;
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
