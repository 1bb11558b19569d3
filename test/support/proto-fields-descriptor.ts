// Test-only: turns /work/shared/upstream/proto-fields.json (flat, one entry per message) into the
// protobufjs JSON form the generator emits (nested namespaces, fields keyed by name, fully
// qualified type references with a leading dot), so the codec can be tested before
// generated/protobuf/descriptors.json exists and against every upstream fixture.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { UPSTREAM_DIR, upstreamAvailable } from '../support/upstream.js';

export { UPSTREAM_DIR, upstreamAvailable };

interface ProtoField {
  name: string;
  number: number;
  type: string;
  label: 'optional' | 'repeated';
  map?: { key: string; value: string };
  goPointer?: true;
  jsonInline?: true;
}

interface JsonField {
  type: string;
  id: number;
  rule?: 'repeated';
  keyType?: string;
  options?: { goPointer?: true; jsonInline?: true };
}

interface JsonNamespace {
  nested?: Record<string, JsonNamespace>;
  fields?: Record<string, JsonField>;
}

const SCALARS = new Set(['string', 'bytes', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'double', 'float']);
const ref = (type: string): string => (SCALARS.has(type) ? type : `.${type}`);

export function descriptorFromProtoFields(flat: Record<string, { fields: ProtoField[] }>): JsonNamespace {
  const root: JsonNamespace = {};
  for (const [qualified, message] of Object.entries(flat)) {
    const parts = qualified.split('.');
    let ns = root;
    for (const part of parts.slice(0, -1)) {
      ns.nested ??= {};
      ns = ns.nested[part] ??= {};
    }
    const fields: Record<string, JsonField> = {};
    for (const f of message.fields) {
      const field: JsonField = f.map
        ? { keyType: f.map.key, type: ref(f.map.value), id: f.number }
        : { type: ref(f.type), id: f.number };
      if (!f.map && f.label === 'repeated') field.rule = 'repeated';
      if (f.goPointer || f.jsonInline) {
        field.options = {};
        if (f.goPointer) field.options.goPointer = true;
        if (f.jsonInline) field.options.jsonInline = true;
      }
      fields[f.name] = field;
    }
    ns.nested ??= {};
    ns.nested[parts[parts.length - 1]] = { fields };
  }
  return root;
}

export function loadUpstreamRoot(): protobuf.Root {
  const flat = JSON.parse(readFileSync(join(UPSTREAM_DIR, 'proto-fields.json'), 'utf8'));
  return protobuf.Root.fromJSON(descriptorFromProtoFields(flat) as protobuf.INamespace);
}
