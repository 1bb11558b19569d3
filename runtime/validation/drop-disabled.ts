// Fields behind a feature gate that is off are dropped from what a client writes, as
// kube-apiserver's dropDisabledFields does in PrepareForCreate and PrepareForUpdate: on create
// always, on update unless the stored object already uses the field somewhere (so turning a gate
// off never makes an existing object unwritable, and data written while it was on is kept).

import { isObj, type Obj, type Shape, type TypeTable } from './type-table.js';

/** Whether a feature gate is on. */
export type GateCheck = (gate: string) => boolean;

/** Calls `visit(typeName, fieldName, holder)` for every gated field set anywhere below `obj`. */
function forEachGatedField(table: TypeTable, typeName: string, obj: Obj, visit: (type: string, field: string, holder: Obj) => void): void {
  const type = table[typeName];
  if (!type) return;
  for (const [name, field] of Object.entries(type.fields)) {
    if (obj[name] === undefined || obj[name] === null) continue;
    if (field.featureGate) visit(typeName, name, obj);
    forEachInShape(table, field.shape, obj[name], visit);
  }
}

function forEachInShape(table: TypeTable, shape: Shape, value: unknown, visit: (type: string, field: string, holder: Obj) => void): void {
  if (shape.t === 'ref') {
    if (isObj(value)) forEachGatedField(table, shape.type, value, visit);
  } else if (shape.t === 'list' && Array.isArray(value)) {
    for (const item of value) forEachInShape(table, shape.of, item, visit);
  } else if (shape.t === 'map' && isObj(value)) {
    for (const item of Object.values(value)) forEachInShape(table, shape.of, item, visit);
  }
}

function refsOf(shape: Shape): string[] {
  if (shape.t === 'ref') return [shape.type];
  return shape.t === 'list' || shape.t === 'map' ? refsOf(shape.of) : [];
}

/**
 * Whether a gated field is reachable from `rootType` (most kinds have none, and skip the walk);
 * without a root, whether the table has one anywhere. A module's table holds the types of all
 * its kinds, so a kind answers for its own types only.
 */
export function hasGatedFields(table: TypeTable, rootType?: string): boolean {
  if (rootType === undefined) return Object.values(table).some((t) => Object.values(t.fields).some((f) => f.featureGate));
  const seen = new Set<string>();
  const pending = [rootType];
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (seen.has(name)) continue;
    seen.add(name);
    for (const field of Object.values(table[name]?.fields ?? {})) {
      if (field.featureGate) return true;
      pending.push(...refsOf(field.shape));
    }
  }
  return false;
}

/**
 * Removes, in place, every field of `obj` whose gate is off, unless `old` (the stored object on
 * update) already sets that field somewhere: kube-apiserver's "in use" test looks at the whole
 * old object, not at the matching element.
 */
export function dropDisabledFields(table: TypeTable, typeName: string, obj: Obj, old: Obj | undefined, enabled: GateCheck): void {
  const inUse = new Set<string>();
  if (old) forEachGatedField(table, typeName, old, (type, field) => inUse.add(`${type}.${field}`));
  const drops: [Obj, string][] = [];
  forEachGatedField(table, typeName, obj, (type, field, holder) => {
    const gate = table[type]?.fields[field]?.featureGate as string;
    if (!enabled(gate) && !inUse.has(`${type}.${field}`)) drops.push([holder, field]);
  });
  for (const [holder, field] of drops) delete holder[field];
}
