// Structural equality of decoded JSON values, as kube-apiserver's semantic DeepEqual sees them
// after a round trip: an absent map or list equals an empty one.

const isEmptyContainer = (v: unknown): boolean =>
  v === undefined || v === null || (Array.isArray(v) && v.length === 0) || (typeof v === 'object' && !Array.isArray(v) && Object.keys(v as object).length === 0);

/** Walked with an explicit stack of pairs still to compare, as JSON may nest 10,000 levels. */
export function deepEqual(a: unknown, b: unknown): boolean {
  const left: unknown[] = [a];
  const right: unknown[] = [b];
  while (left.length > 0) {
    const x = left.pop();
    const y = right.pop();
    if (x === y) continue;
    if (isEmptyContainer(x) && isEmptyContainer(y)) continue;
    if (Array.isArray(x) || Array.isArray(y)) {
      if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
      for (let i = x.length - 1; i >= 0; i--) {
        left.push(x[i]);
        right.push(y[i]);
      }
      continue;
    }
    if (!x || !y || typeof x !== 'object' || typeof y !== 'object') return false;
    const xo = x as Record<string, unknown>;
    const yo = y as Record<string, unknown>;
    // Own members only: JSON may name a member `__proto__` or `constructor`.
    for (const k of Object.keys(xo)) {
      left.push(xo[k]);
      right.push(Object.hasOwn(yo, k) ? yo[k] : undefined);
    }
    // Members only `y` has must be empty (absent equals empty), compared as `x` lacking them.
    for (const k of Object.keys(yo)) {
      if (!Object.hasOwn(xo, k)) {
        left.push(undefined);
        right.push(yo[k]);
      }
    }
  }
  return true;
}
