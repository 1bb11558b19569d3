// Equality of x-kubernetes-list-type set and map lists as kube's CEL values define it: a set
// list equals another with the same elements in any order, a map list one with the same items
// by key in any order (so `self == oldSelf` holds after a reorder). Such lists are tagged when
// they become CEL values; the operands of == and != are given in a canonical order, so cel-js's
// element-wise list equality decides as kube does, while indexing and iteration elsewhere see
// the list as it was written.

import { isNode, type CelNode, type NodeEvaluate } from './runtime-cost.js';

const LIST_TYPE = Symbol('x-kubernetes-list-type');

/** Marks a CEL list value as a set or map list. */
export function tagList<T extends unknown[]>(list: T, type: unknown): T {
  if (type === 'set' || type === 'map') Object.defineProperty(list, LIST_TYPE, { value: type });
  return list;
}

/** A string that orders CEL values: equal values give equal keys. */
function canonical(v: unknown): string {
  if (typeof v === 'bigint') return `i${v}`;
  if (typeof v === 'number') return `d${v}`;
  if (typeof v === 'string') return `s${JSON.stringify(v)}`;
  if (Array.isArray(v)) return `[${(isTagged(v) ? ordered(v) : v).map(canonical).join(',')}]`;
  if (v instanceof Map) return `{${[...v].map(([k, x]) => `${canonical(k)}:${canonical(x)}`).sort().join(',')}}`;
  if (v instanceof Uint8Array) return `b${Buffer.from(v).toString('base64')}`;
  if (v instanceof Date) return `t${v.getTime()}`;
  return `${typeof v}:${String(v)}`;
}

const isTagged = (v: unknown): v is unknown[] => Array.isArray(v) && (v as unknown as Record<symbol, unknown>)[LIST_TYPE] !== undefined;

function ordered(list: unknown[]): unknown[] {
  return list
    .map((x) => [canonical(x), x] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([, x]) => x);
}

/** After instrumenting: the operands of every == and != compare set and map lists without regard to order. */
export function orderListsForEquality(root: unknown, each: (root: unknown, fn: (node: CelNode) => void) => void): void {
  each(root, (node) => {
    if ((node.op !== '==' && node.op !== '!=') || !Array.isArray(node.args)) return;
    for (const operand of node.args) {
      if (!isNode(operand)) continue;
      const inner: NodeEvaluate = operand.evaluate;
      operand.evaluate = function canonicalOrder(ev, ast, ctx) {
        const value = inner.call(operand, ev, ast, ctx);
        return isTagged(value) ? ordered(value) : value;
      };
    }
  });
}
