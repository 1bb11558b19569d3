// kube's lists library (apiserver pkg/cel/library/lists.go): isSorted, sum, min, max, indexOf and
// lastIndexOf on lists; and cel-go's sets extension: sets.contains, sets.equivalent, sets.intersects.

import type { Environment } from '@marcbachmann/cel-js';
import { Duration, UnsignedInt } from '../cel-classes.js';
import { celEquals } from '../equality.js';

class SetsNamespace {}

/** CEL's ordering of comparable values; throws for values that have none. */
export function celCompare(a: unknown, b: unknown): number {
  if ((typeof a === 'bigint' || typeof a === 'number' || a instanceof UnsignedInt) && (typeof b === 'bigint' || typeof b === 'number' || b instanceof UnsignedInt)) {
    const x = a instanceof UnsignedInt ? a.value : a;
    const y = b instanceof UnsignedInt ? b.value : b;
    if (typeof x === 'bigint' && typeof y === 'bigint') return x < y ? -1 : x > y ? 1 : 0;
    return Number(x) < Number(y) ? -1 : Number(x) > Number(y) ? 1 : 0;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === 'boolean' && typeof b === 'boolean') return Number(a) - Number(b);
  if (a instanceof Date && b instanceof Date) return Math.sign(a.getTime() - b.getTime());
  if (a instanceof Duration && b instanceof Duration) return Math.sign(a.valueOf() - b.valueOf());
  if (a instanceof Uint8Array && b instanceof Uint8Array) return Buffer.compare(Buffer.from(a), Buffer.from(b));
  if (a && typeof a === 'object' && typeof (a as { compareTo?: unknown }).compareTo === 'function') return (a as { compareTo(b: unknown): number }).compareTo(b);
  throw new Error('no such overload');
}

function extreme(list: unknown[], name: string, sign: number): unknown {
  if (list.length === 0) throw new Error(`${name} called on empty list`);
  let best = list[0];
  for (const v of list.slice(1)) if (celCompare(v, best) * sign > 0) best = v;
  return best;
}

function sum(list: unknown[], zero: unknown): unknown {
  let total = zero;
  for (const v of list) {
    if (typeof total === 'bigint' && typeof v === 'bigint') {
      total = total + v;
      if ((total as bigint) > 9223372036854775807n || (total as bigint) < -9223372036854775808n) throw new Error('integer overflow');
    } else if (total instanceof UnsignedInt && v instanceof UnsignedInt) total = new UnsignedInt(total.value + v.value);
    else if (total instanceof Duration && v instanceof Duration) total = total.addDuration(v);
    else total = Number(total) + Number(v);
  }
  return total;
}

export function registerLists(env: Environment): void {
  env.registerFunction('list<A>.isSorted(): bool', (l: unknown[]) => l.every((v, i) => i === 0 || celCompare(l[i - 1], v) <= 0));
  env.registerFunction('list<int>.sum(): int', (l: unknown[]) => sum(l, 0n));
  env.registerFunction('list<uint>.sum(): uint', (l: unknown[]) => sum(l, new UnsignedInt(0n)));
  env.registerFunction('list<double>.sum(): double', (l: unknown[]) => sum(l, 0));
  env.registerFunction('list<google.protobuf.Duration>.sum(): google.protobuf.Duration', (l: unknown[]) => sum(l, new Duration(0n, 0)));
  env.registerFunction('list<A>.min(): A', (l: unknown[]) => extreme(l, 'min', -1));
  env.registerFunction('list<A>.max(): A', (l: unknown[]) => extreme(l, 'max', 1));
  env.registerFunction('list<A>.indexOf(A): int', (l: unknown[], x: unknown) => BigInt(l.findIndex((v) => celEquals(v, x))));
  env.registerFunction('list<A>.lastIndexOf(A): int', (l: unknown[], x: unknown) => {
    for (let i = l.length - 1; i >= 0; i--) if (celEquals(l[i], x)) return BigInt(i);
    return -1n;
  });

  env.registerType('kubernetes.SetsNamespace', SetsNamespace);
  env.registerConstant('sets', 'kubernetes.SetsNamespace', new SetsNamespace());
  const contains = (a: unknown[], b: unknown[]): boolean => b.every((x) => a.some((y) => celEquals(x, y)));
  env.registerFunction('kubernetes.SetsNamespace.contains(list<A>, list<A>): bool', (_ns: unknown, a: unknown[], b: unknown[]) => contains(a, b));
  env.registerFunction('kubernetes.SetsNamespace.equivalent(list<A>, list<A>): bool', (_ns: unknown, a: unknown[], b: unknown[]) => contains(a, b) && contains(b, a));
  env.registerFunction('kubernetes.SetsNamespace.intersects(list<A>, list<A>): bool', (_ns: unknown, a: unknown[], b: unknown[]) => a.some((x) => b.some((y) => celEquals(x, y))));
}
