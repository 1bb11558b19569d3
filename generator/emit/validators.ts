// Emits, per served group version, ajv standalone validators (`<gv>.schemas.js` + `.d.ts`) and a
// TypeScript module exporting one ObjectValidator per kind (`<gv>.ts`), whose type table carries
// defaults, immutable fields, CEL rules and key rules. Helpers come from runtime/validation only.

import AjvModule from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { _ } from 'ajv';
import type { FieldModel, GroupVersionModel, Model, TypeRef } from '../model.js';
import { reachable } from '../normalize.js';
import { rootSchema } from '../json-schema.js';
import { headerComment, sourcesOf, type OutputFile } from '../output.js';
import { FORMAT_NAMES } from '../formats.js';

// ajv ships CommonJS; under NodeNext the default export is the module object.
const Ajv = AjvModule as unknown as typeof AjvModule.default;
const standaloneCode = standaloneModule as unknown as typeof standaloneModule.default;

export const gvFileBase = (gv: { group: string; version: string }): string => `${gv.group || 'core'}.${gv.version}`;

/** ajv's standalone output still says require(); turn each into an ESM import. */
function toESM(code: string): string {
  const imports: string[] = [];
  let n = 0;
  const body = code.replace(/const (\w+) = require\("([^"]+)"\)((?:\.\w+)*);/g, (_m, name: string, mod: string, member: string) => {
    const alias = `__import${n++}`;
    imports.push(`import ${alias} from ${JSON.stringify(mod.endsWith('.js') ? mod : `${mod}.js`)};`);
    return `const ${name} = ${alias}${member};`;
  });
  if (/\brequire\(/.test(body)) throw new Error('ajv standalone output kept a require() call');
  return `${imports.join('\n')}${imports.length ? '\n' : ''}${body.replace(/^"use strict";/, '')}`;
}

function schemasModule(model: Model, gv: GroupVersionModel, sources: string[]): OutputFile[] {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    code: { source: true, esm: true, formats: _`__formats`, lines: true },
  });
  for (const name of FORMAT_NAMES) ajv.addFormat(name, { type: 'string', validate: () => true });
  const exportsMap: Record<string, string> = {};
  for (const k of gv.kinds) {
    ajv.addSchema(rootSchema(model, k.type.id), k.kind);
    exportsMap[k.kind] = k.kind;
  }
  const code = toESM(standaloneCode(ajv, exportsMap));
  const base = gvFileBase(gv);
  const header = headerComment(sources);
  const js = `${header}import { ajvFormats as __formats } from '../../runtime/validation/index.js';\n${code}\n`;
  const dts =
    `${header}import type { SchemaFunction } from '../../runtime/validation/index.js';\n` +
    gv.kinds.map((k) => `export declare const ${k.kind}: SchemaFunction;\n`).join('');
  return [
    { path: `validators/${base}.schemas.js`, content: js },
    { path: `validators/${base}.schemas.d.ts`, content: dts },
  ];
}

function shapeCode(ref: TypeRef): string {
  switch (ref.kind) {
    case 'scalar':
      return 'scalar';
    case 'ref':
      return `ref(${JSON.stringify(ref.id)})`;
    case 'list':
      return `list(${shapeCode(ref.of)})`;
    case 'map':
      return `map(${shapeCode(ref.of)})`;
  }
}

function fieldCode(f: FieldModel): string {
  const parts = [`shape: ${shapeCode(f.type)}`];
  if (f.default !== undefined) parts.push(`default: ${JSON.stringify(f.default)}`);
  if (f.immutable) parts.push('immutable: true');
  if (f.goPointer) parts.push('pointer: true');
  if (f.disjointKeys) parts.push(`disjointKeys: ${JSON.stringify(f.disjointKeys)}`);
  if (f.reportAtField) parts.push('reportAtField: true');
  if (f.oneOf) parts.push(`oneOf: ${JSON.stringify(f.oneOf)}`);
  return `{ ${parts.join(', ')} }`;
}

function hasDefaults(model: Model, id: string, seen = new Set<string>()): boolean {
  if (seen.has(id)) return false;
  seen.add(id);
  const t = model.types.get(id);
  return !!t?.fields.some((f) => {
    if (f.default !== undefined) return true;
    let ref = f.type;
    while (ref.kind === 'list' || ref.kind === 'map') ref = ref.of;
    return ref.kind === 'ref' && hasDefaults(model, ref.id, seen);
  });
}

function validatorsModule(model: Model, gv: GroupVersionModel, ids: string[], sources: string[]): OutputFile {
  const base = gvFileBase(gv);
  const lines: string[] = [headerComment(sources).trimEnd()];
  lines.push("import type { ObjectValidator } from '../../runtime/registry/definition.js';");
  lines.push("import { compileRule, list, map, objectValidator, ref, scalar, type TypeTable } from '../../runtime/validation/index.js';");
  lines.push(`import * as schemas from './${base}.schemas.js';`);
  lines.push('');
  lines.push('const types: TypeTable = {');
  for (const id of ids) {
    const t = model.types.get(id);
    if (!t || t.protoOnly) continue;
    lines.push(`  ${JSON.stringify(id)}: {`);
    lines.push('    fields: {');
    for (const f of t.fields) lines.push(`      ${JSON.stringify(f.name)}: ${fieldCode(f)},`);
    lines.push('    },');
    if (t.rules.length) {
      lines.push('    rules: [');
      for (const r of t.rules) lines.push(`      compileRule(${JSON.stringify(r)}),`);
      lines.push('    ],');
    }
    if (hasDefaults(model, id)) lines.push('    hasDefaults: true,');
    lines.push('  },');
  }
  lines.push('};');
  for (const k of gv.kinds) {
    lines.push('');
    const opts = [
      `type: ${JSON.stringify(k.type.id)}`,
      'types',
      `schema: schemas.${k.kind}`,
      `namespaced: ${k.namespaced}`,
      `nameFormat: ${JSON.stringify(k.nameFormat)}`,
      `updateOrder: ${JSON.stringify(k.updateOrder)}`,
    ];
    lines.push(`export const ${k.kind}: ObjectValidator = objectValidator({`);
    for (const o of opts) lines.push(`  ${o},`);
    lines.push('});');
  }
  return { path: `validators/${base}.ts`, content: `${lines.join('\n')}\n` };
}

export function emitValidators(model: Model): OutputFile[] {
  return model.groupVersions.flatMap((gv) => {
    const ids = reachable(model, gv.kinds.map((k) => k.type.id));
    const sources = sourcesOf(model, ids);
    return [...schemasModule(model, gv, sources), validatorsModule(model, gv, ids, sources)];
  });
}
