// Go's encoding/json writes a map[string]interface{} with its keys in sorted order, at every
// level, so kube-apiserver writes unstructured objects (custom resources) that way whatever order
// they came in. Sorting a value once, where it is stored, lets every response reuse that order
// (a copy sorted throughout is go-format's sortKeysDeep).
// (A JS object lists integer-like keys first, so such keys cannot follow Go's order.)
import { sortKeysDeep } from './go-format.js';
import { setMember } from './own-member.js';

/**
 * `value` with every object's keys in sorted order, reusing what is in order already: an object
 * out of order is replaced in its parent by a sorted copy. For a freshly decoded value that
 * nothing else holds; when all is in order (as stored), nothing is allocated. Walked with an
 * explicit stack (JSON may nest 10,000 levels), parents before children: a copy holds the same
 * children as the object it replaces, so they are then sorted inside the copy.
 */
export function sortKeysInPlace(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const root = inKeyOrder(value);
  const pending: object[] = [root];
  while (pending.length > 0) {
    const container = pending.pop()!;
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        const item: unknown = container[i];
        if (item === null || typeof item !== 'object') continue;
        const sorted = inKeyOrder(item);
        if (sorted !== item) container[i] = sorted;
        pending.push(sorted);
      }
      continue;
    }
    const obj = container as Record<string, unknown>;
    for (const key in obj) {
      const item = obj[key];
      if (item === null || typeof item !== 'object') continue;
      const sorted = inKeyOrder(item);
      if (sorted !== item) obj[key] = sorted;
      pending.push(sorted);
    }
  }
  return root;
}

/**
 * `value` with every object's keys in sorted order, as sortKeysDeep gives, but sharing every part
 * already in order, and without changing `value`: an object or array is copied only when it or
 * something below it is out of order. A custom resource's create holds many such parts (each
 * `{}` leaf of its managedFields, lists of scalars, most of what a client wrote with sorted keys).
 */
export function sortedSharing(value: unknown): unknown {
  return sharing(value, 0);
}

/** Levels walked by recursion, as go-format's copy does; anything deeper is copied by sortKeysDeep's explicit stack. */
const RECURSIVE_LEVELS = 256;

/** Members up to which an object built by stores stays in fast mode (go-format's copy says why). */
const FEW_MEMBERS = 8;

function sharing(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth === RECURSIVE_LEVELS) return sortKeysDeep(value);
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const shared = sharing(item, depth + 1);
      if (shared !== item && copy === undefined) copy = value.slice(0, i);
      copy?.push(shared);
    }
    return copy ?? value;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  let copy: Record<string, unknown> | undefined;
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1] > keys[i]) {
      keys.sort();
      copy = {};
      break;
    }
  }
  for (let i = 0; i < keys.length; i++) {
    const item = obj[keys[i]];
    const shared = sharing(item, depth + 1);
    if (shared !== item && copy === undefined) {
      // In order so far: the copy takes the members before this one as they are.
      copy = {};
      for (let j = 0; j < i; j++) setMember(copy, keys[j], obj[keys[j]]);
    }
    if (copy !== undefined) setMember(copy, keys[i], shared);
  }
  if (copy === undefined) return obj;
  return keys.length > FEW_MEMBERS ? { ...copy } : copy;
}

/** An array as it is; an object as it is when its keys are in order, else a shallow copy in order. */
function inKeyOrder(value: object): object {
  if (Array.isArray(value)) return value;
  const obj = value as Record<string, unknown>;
  let previous: string | undefined;
  for (const key in obj) {
    if (previous !== undefined && previous > key) {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(obj).sort()) setMember(out, k, obj[k]);
      return out;
    }
    previous = key;
  }
  return obj;
}

/** A copy of sorted `metadata` with `resourceVersion` in its sorted place. */
export function withResourceVersion(metadata: Record<string, unknown>, resourceVersion: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let placed = false;
  for (const key of Object.keys(metadata)) {
    if (key === 'resourceVersion') continue;
    if (!placed && key > 'resourceVersion') {
      out.resourceVersion = resourceVersion;
      placed = true;
    }
    setMember(out, key, metadata[key]);
  }
  if (!placed) out.resourceVersion = resourceVersion;
  return out;
}
