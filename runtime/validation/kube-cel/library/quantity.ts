// kube's quantity library (apiserver pkg/cel/library/quantity.go) over runtime/machinery/quantity.ts:
// quantity(), isQuantity(), sign, isInteger, asInteger, asApproximateFloat, add, sub,
// isLessThan, isGreaterThan, compareTo, and equality by value.

import type { Environment } from '@marcbachmann/cel-js';
import { compareQuantities, formatQuantity, parseQuantity, quantitySign, quantityToNumber, type Quantity } from '../../../machinery/quantity.js';

const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

export class KubeQuantity {
  constructor(readonly q: Quantity) {}
  toString(): string {
    return formatQuantity(this.q);
  }
  compareTo(other: unknown): number {
    return other instanceof KubeQuantity ? compareQuantities(this.q, other.q) : NaN;
  }
}

export function quantity(s: string): KubeQuantity {
  const q = parseQuantity(s);
  if (!q || s.trim() !== s) throw new Error("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
  return new KubeQuantity(q);
}

function isInteger(q: Quantity): boolean {
  if (q.num % q.den !== 0n) return false;
  const v = q.num / q.den;
  return v <= INT64_MAX && v >= INT64_MIN;
}

function plus(a: Quantity, b: Quantity, sign: bigint): KubeQuantity {
  return new KubeQuantity({ num: a.num * b.den + sign * b.num * a.den, den: a.den * b.den, format: a.format });
}

const ofInt = (n: bigint): Quantity => ({ num: n, den: 1n, format: 'DecimalSI' });

export function registerQuantity(env: Environment): void {
  const T = 'kubernetes.Quantity';
  env.registerType(T, KubeQuantity);
  env.registerFunction(`quantity(string): ${T}`, quantity);
  env.registerFunction('isQuantity(string): bool', (s: string) => parseQuantity(s) !== undefined && s.trim() === s);
  env.registerFunction(`${T}.sign(): int`, (k: KubeQuantity) => BigInt(quantitySign(k.q)));
  env.registerFunction(`${T}.isInteger(): bool`, (k: KubeQuantity) => isInteger(k.q));
  env.registerFunction(`${T}.asInteger(): int`, (k: KubeQuantity) => {
    if (!isInteger(k.q)) throw new Error('cannot convert value to integer');
    return k.q.num / k.q.den;
  });
  env.registerFunction(`${T}.asApproximateFloat(): double`, (k: KubeQuantity) => quantityToNumber(k.q));
  env.registerFunction(`${T}.add(${T}): ${T}`, (a: KubeQuantity, b: KubeQuantity) => plus(a.q, b.q, 1n));
  env.registerFunction(`${T}.add(int): ${T}`, (a: KubeQuantity, b: bigint) => plus(a.q, ofInt(b), 1n));
  env.registerFunction(`${T}.sub(${T}): ${T}`, (a: KubeQuantity, b: KubeQuantity) => plus(a.q, b.q, -1n));
  env.registerFunction(`${T}.sub(int): ${T}`, (a: KubeQuantity, b: bigint) => plus(a.q, ofInt(b), -1n));
  env.registerFunction(`${T}.isLessThan(${T}): bool`, (a: KubeQuantity, b: KubeQuantity) => compareQuantities(a.q, b.q) < 0);
  env.registerFunction(`${T}.isGreaterThan(${T}): bool`, (a: KubeQuantity, b: KubeQuantity) => compareQuantities(a.q, b.q) > 0);
  env.registerFunction(`${T}.compareTo(${T}): int`, (a: KubeQuantity, b: KubeQuantity) => BigInt(compareQuantities(a.q, b.q)));
  env.registerOperator(`${T} == ${T}`, (a: KubeQuantity, b: KubeQuantity) => compareQuantities(a.q, b.q) === 0);
}
