// Emits generated/protobuf/descriptors.json in protobufjs JSON form (what protobuf.Root.fromJSON
// reads): nested namespaces per package, one message per model type plus the special scalar
// messages (Time, Quantity, IntOrString, ...) with their upstream wire layout. Field options
// goPointer and jsonInline tell the codec how Go would encode the field.

import type { FieldModel, Model, TypeRef } from '../model.js';
import { jsonWithHeader, type OutputFile } from '../output.js';
import { GO_ZERO, PROTO_SCALAR, SPECIAL_SCALARS, specialScalarsOf } from '../scalars.js';

interface ProtoField {
  type: string;
  id: number;
  rule?: 'repeated';
  keyType?: string;
  options?: { goPointer?: true; jsonInline?: true; jsonName?: string; alwaysEmitted?: unknown };
}

interface Namespace {
  nested?: Record<string, Namespace | { fields: Record<string, ProtoField> }>;
}

function protoType(model: Model, ref: TypeRef): string {
  switch (ref.kind) {
    case 'scalar': {
      const special = SPECIAL_SCALARS[ref.name];
      return special ? `.${special.protoName}` : (PROTO_SCALAR[ref.name] ?? 'string');
    }
    case 'ref':
      return `.${model.types.get(ref.id)?.protoName ?? ref.id}`;
    default:
      throw new Error('nested list/map has no direct protobuf form');
  }
}

function protoField(model: Model, f: FieldModel): ProtoField | undefined {
  if (f.tag === undefined) return undefined;
  let out: ProtoField;
  if (f.protoMessage && f.type.kind === 'map') {
    out = { keyType: 'string', type: `.${model.types.get(f.protoMessage)?.protoName}`, id: f.tag };
  } else if (f.protoMessage) {
    out = { type: `.${model.types.get(f.protoMessage)?.protoName}`, id: f.tag };
  } else if (f.type.kind === 'list') {
    out = { type: protoType(model, f.type.of), id: f.tag, rule: 'repeated' };
  } else if (f.type.kind === 'map') {
    out = { keyType: 'string', type: protoType(model, f.type.of), id: f.tag };
  } else {
    out = { type: protoType(model, f.type), id: f.tag };
  }
  const options: ProtoField['options'] = {};
  if (f.goPointer) options.goPointer = true;
  if (f.jsonInline) options.jsonInline = true;
  // JSONSchemaProps' `$ref` and `x-kubernetes-*` are `ref` and `xKubernetes*` on the wire.
  if (f.protoName !== f.name) options.jsonName = f.name;
  // Go's JSON writes these even when zero, so a decoded message shows them as JSON does: a list
  // or map as null, a scalar as its zero value (a struct is on the wire whenever Go has one).
  if (f.alwaysEmitted && f.type.kind !== 'ref') options.alwaysEmitted = f.type.kind === 'scalar' ? GO_ZERO[f.type.name] : null;
  if (Object.keys(options).length) out.options = options;
  return out;
}

function place(root: Namespace, fullName: string, message: { fields: Record<string, ProtoField> }): void {
  const parts = fullName.split('.');
  const name = parts.pop() as string;
  let ns = root;
  for (const p of parts) {
    ns.nested ??= {};
    ns = (ns.nested[p] ??= {}) as Namespace;
  }
  ns.nested ??= {};
  ns.nested[name] = message;
}

/** Recursively orders `nested` and `fields` keys so the file is byte-stable. */
function ordered(ns: unknown): unknown {
  if (!ns || typeof ns !== 'object' || Array.isArray(ns)) return ns;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(ns).sort()) {
    const v = (ns as Record<string, unknown>)[key];
    out[key] = key === 'fields' ? v : ordered(v);
  }
  return out;
}

export function emitProtobuf(model: Model): OutputFile[] {
  const root: Namespace = {};
  for (const t of [...model.types.values()].sort((a, b) => a.protoName.localeCompare(b.protoName))) {
    const fields: Record<string, ProtoField> = {};
    for (const f of [...t.fields].sort((a, b) => (a.tag ?? 0) - (b.tag ?? 0))) {
      const pf = protoField(model, f);
      if (pf) fields[f.protoName] = pf;
    }
    place(root, t.protoName, { fields });
  }
  for (const s of specialScalarsOf(model.types)) {
    place(root, s.protoName, { fields: Object.fromEntries(Object.entries(s.protoFields).map(([k, v]) => [k, { ...v }])) });
  }
  return [{ path: 'protobuf/descriptors.json', content: jsonWithHeader(model.files, ordered(root) as Record<string, unknown>) }];
}
