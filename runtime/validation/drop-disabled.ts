// Fields behind a feature gate that is off are dropped from what a client writes, as
// kube-apiserver's dropDisabledFields does in PrepareForCreate and PrepareForUpdate: on create
// always, on update unless the stored object already uses the field somewhere (so turning a gate
// off never makes an existing object unwritable, and data written while it was on is kept).

import { isObj, reachesField, type FieldTest, type Obj, type Shape, type TypeTable } from './type-table.js';

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

const isGated: FieldTest = (f) => !!f.featureGate;

/** Whether a gated field is reachable from `rootType` (most kinds have none, and skip the walk). */
export function hasGatedFields(table: TypeTable, rootType?: string): boolean {
  return reachesField(table, rootType, isGated);
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
