// Go's encoding/json writes a map[string]interface{} with its keys in sorted order, at every
// level, so kube-apiserver writes unstructured objects (custom resources) that way whatever order
// they came in. Sorting a value once, where it is stored, lets every response reuse that order
// (a copy sorted throughout is go-format's sortKeysDeep).
// (A JS object lists integer-like keys first, so such keys cannot follow Go's order.)
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
