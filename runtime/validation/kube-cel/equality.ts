// CEL's equality over runtime values, for the library functions that compare elements (indexOf,
// sets.contains, ...): numbers compare across int, uint and double; lists element-wise; maps by
// keys and values; bytes by content; timestamps by instant; other objects by value.

const numeric = (v: unknown): bigint | number | undefined => {
  if (typeof v === 'bigint' || typeof v === 'number') return v;
  const boxed = v !== null && typeof v === 'object' ? (v as { valueOf(): unknown }).valueOf() : undefined;
  return typeof boxed === 'bigint' ? boxed : undefined;
};

export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const [x, y] = [numeric(a), numeric(b)];
  if (x !== undefined && y !== undefined) return typeof x === 'bigint' && typeof y === 'bigint' ? x === y : Number(x) === Number(y);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => celEquals(v, b[i]));
  }
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;
  }
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map) || !(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !celEquals(v, b.get(k))) return false;
    return true;
  }
  return a.constructor === b.constructor && String(a) === String(b);
}
