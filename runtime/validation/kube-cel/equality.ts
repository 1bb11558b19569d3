// CEL's equality over runtime values: numbers compare across int, uint and double; lists
// element-wise; maps by keys and values; bytes by content; timestamps and durations by value.

export function celEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if ((typeof a === 'bigint' || typeof a === 'number') && (typeof b === 'bigint' || typeof b === 'number')) return Number(a) === Number(b) && (typeof a !== 'bigint' || typeof b !== 'bigint' || a === b);
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') {
    // UnsignedInt and other boxed numbers compare by value.
    return a !== null && b !== null && typeof a === 'object' && 'valueOf' in (a as object) ? celEquals((a as { valueOf(): unknown }).valueOf(), b) : false;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => celEquals(x, b[i]));
  }
  if (a instanceof Uint8Array || b instanceof Uint8Array) {
    return a instanceof Uint8Array && b instanceof Uint8Array && a.length === b.length && a.every((x, i) => x === b[i]);
  }
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map) || !(b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !celEquals(v, b.get(k))) return false;
    return true;
  }
  const va = (a as { valueOf(): unknown }).valueOf();
  const vb = (b as { valueOf(): unknown }).valueOf();
  if (va !== a || vb !== b) return celEquals(va, vb);
  return String(a) === String(b) && a.constructor === b.constructor;
}
