// OpenAPI schemas of model types, in kube-apiserver's conventions: definitions named
// io.k8s.api.core.v1.ConfigMap, x-kubernetes-group-version-kind on kinds, list and patch
// extensions (which kubectl apply reads to build strategic merge patches), descriptions. The v2
// style puts description next to $ref; the v3 style wraps the $ref in allOf.

import type { FieldModel, Model, TypeModel, TypeRef } from '../model.js';
import { groupVersionString } from '../model.js';
import { jsonFields, reachable } from '../normalize.js';
import { OPENAPI_SCALAR, SPECIAL_SCALARS } from '../scalars.js';

export type Schema = Record<string, unknown>;
export type OpenAPIStyle = 'v2' | 'v3';

export const refPrefix = (style: OpenAPIStyle): string => (style === 'v2' ? '#/definitions/' : '#/components/schemas/');

function refTo(style: OpenAPIStyle, name: string): Schema {
  return { $ref: `${refPrefix(style)}${name}` };
}

function typeSchema(model: Model, style: OpenAPIStyle, ref: TypeRef): Schema {
  switch (ref.kind) {
    case 'scalar': {
      const special = SPECIAL_SCALARS[ref.name];
      return special ? refTo(style, special.openAPIName) : { ...OPENAPI_SCALAR[ref.name] };
    }
    case 'ref':
      return refTo(style, ref.id);
    case 'list':
      return { type: 'array', items: typeSchema(model, style, ref.of) };
    case 'map':
      return { type: 'object', additionalProperties: typeSchema(model, style, ref.of) };
  }
}

function propertySchema(model: Model, style: OpenAPIStyle, f: FieldModel): Schema {
  let s = typeSchema(model, style, f.type);
  if (s.$ref && style === 'v3') s = { allOf: [s] };
  if (f.description) s.description = f.description;
  if (f.default !== undefined) s.default = f.default;
  if (f.enum) s.enum = f.enum;
  if (f.type.kind === 'list' && f.items?.enum) (s.items as Schema).enum = f.items.enum;
  if (f.listType) s['x-kubernetes-list-type'] = f.listType;
  if (f.listMapKeys) s['x-kubernetes-list-map-keys'] = f.listMapKeys;
  if (f.mapType) s['x-kubernetes-map-type'] = f.mapType;
  if (f.patchStrategy) s['x-kubernetes-patch-strategy'] = f.patchStrategy;
  if (f.patchMergeKey) s['x-kubernetes-patch-merge-key'] = f.patchMergeKey;
  return s;
}

/** The group-version-kinds a type is served as: its own for kinds and lists; every served group version for meta kinds. */
function gvks(model: Model, t: TypeModel): { group: string; kind: string; version: string }[] | undefined {
  if (t.gvk) return [{ group: t.gvk.group, kind: t.gvk.kind, version: t.gvk.version }];
  if (!t.typeMeta) return undefined;
  const gvs = [{ group: '', version: 'v1' }, ...model.groupVersions.filter((gv) => gv.group !== '')];
  const seen = new Set<string>();
  return gvs
    .filter((gv) => !seen.has(groupVersionString(gv)) && seen.add(groupVersionString(gv)))
    .map((gv) => ({ group: gv.group, kind: t.name, version: gv.version }));
}

export function definitionOf(model: Model, style: OpenAPIStyle, t: TypeModel): Schema {
  const properties: Schema = {};
  const required: string[] = [];
  for (const f of jsonFields(model, t)) {
    properties[f.name] = propertySchema(model, style, f);
    if (f.required || f.openAPIRequired) required.push(f.name);
  }
  const def: Schema = { type: 'object', properties };
  if (t.description) def.description = t.description;
  if (required.length) def.required = required;
  const g = gvks(model, t);
  if (g) def['x-kubernetes-group-version-kind'] = g;
  return def;
}

function specialNames(model: Model, ids: string[]): Map<string, Schema> {
  const used = new Map<string, Schema>();
  for (const id of ids) {
    for (const f of model.types.get(id)?.fields ?? []) {
      let r = f.type;
      while (r.kind === 'list' || r.kind === 'map') r = r.of;
      const special = r.kind === 'scalar' ? SPECIAL_SCALARS[r.name] : undefined;
      if (special) used.set(special.openAPIName, { ...special.schema, description: special.description });
    }
  }
  return used;
}

/** Definitions of every type reachable from `roots` (wire-only types excluded), keyed by OpenAPI name. */
export function definitions(model: Model, style: OpenAPIStyle, roots: string[]): Record<string, Schema> {
  const ids = reachable(model, roots).filter((id) => !model.types.get(id)?.protoOnly);
  const out: Record<string, Schema> = {};
  for (const id of ids) {
    const t = model.types.get(id);
    if (t) out[id] = definitionOf(model, style, t);
  }
  for (const [name, schema] of specialNames(model, ids)) out[name] = schema;
  return out;
}
