// kube-apiserver follows an "is immutable" message with a Go diff of the old and new values, text
// meant for people. Ours names each top-level field that differs, old and new value in JSON, one
// `  field: old -> new` line each, in field name order.

import { deepEqual } from '../../machinery/object.js';

export function fieldDiff(before: Record<string, unknown>, after: Record<string, unknown>): string {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys
    .filter((k) => !deepEqual(before[k], after[k]))
    .map((k) => `  ${k}: ${JSON.stringify(before[k] ?? null)} -> ${JSON.stringify(after[k] ?? null)}`)
    .join('\n');
}
