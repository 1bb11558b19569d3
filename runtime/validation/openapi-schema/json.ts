// Plain JSON values as decoded request bodies hold them: strict equality (an empty list is not an
// absent one, as Go's reflect.DeepEqual sees decoded values) and copies, both safe for keys such
// as `__proto__`.

export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  const keys = Object.keys(ao);
  if (keys.length !== Object.keys(bo).length) return false;
  for (const k of keys) if (!Object.hasOwn(bo, k) || !jsonEqual(ao[k], bo[k])) return false;
  return true;
}

/** A deep copy; own keys are defined, never assigned, so `__proto__` stays a key. */
export function jsonCopy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(jsonCopy) as T;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) setOwn(out, k, jsonCopy((value as Record<string, unknown>)[k]));
  return out as T;
}

/** obj[key] = value, without the `__proto__` setter. */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  else obj[key] = value;
}
