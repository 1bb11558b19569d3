// Go's encoding/json writes a map[string]interface{} with its keys in sorted order, at every
// level, so kube-apiserver writes unstructured objects (custom resources) that way whatever order
// they came in. Sorting a value once, where it is stored, lets every response reuse that order
// (a copy sorted throughout is go-format's sortKeysDeep).
// (A JS object lists integer-like keys first, so such keys cannot follow Go's order.)

/**
 * `value` with every object's keys in sorted order, reusing what is in order already: an object
 * out of order is replaced in its parent by a sorted copy. For a freshly decoded value that
 * nothing else holds; when all is in order (as stored), nothing is allocated.
 */
export function sortKeysInPlace(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if (item !== null && typeof item === 'object') {
        const sorted = sortKeysInPlace(item);
        if (sorted !== item) value[i] = sorted;
      }
    }
    return value;
  }
  const obj = value as Record<string, unknown>;
  let previous: string | undefined;
  let ordered = true;
  for (const key of Object.keys(obj)) {
    const child = obj[key];
    if (child !== null && typeof child === 'object') {
      const sorted = sortKeysInPlace(child);
      if (sorted !== child) obj[key] = sorted;
    }
    if (previous !== undefined && previous > key) ordered = false;
    previous = key;
  }
  if (ordered) return obj;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(obj).sort()) out[key] = obj[key];
  return out;
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
    out[key] = metadata[key];
  }
  if (!placed) out.resourceVersion = resourceVersion;
  return out;
}
