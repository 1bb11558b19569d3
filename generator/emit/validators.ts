// Emits, per served group version, ajv standalone validators (`<gv>.schemas.js` + `.d.ts`) and a
// TypeScript module exporting one ObjectValidator per kind (`<gv>.ts`, built through ts-morph),
// whose type table carries defaults, immutable fields, CEL rules and key rules. Helpers come from
// runtime/validation only.

import AjvModule from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { _ } from 'ajv';
import { VariableDeclarationKind, type CodeBlockWriter, type WriterFunction } from 'ts-morph';
import type { FieldModel, GroupVersionModel, Model, TypeModel, TypeRef } from '../model.js';
import { jsonFields, reachable } from '../normalize.js';
import { definitionsSchema, kindSchema } from '../json-schema.js';
import { headerComment, sourcesOf, type OutputFile } from '../output.js';
import { FORMAT_NAMES } from '../formats.js';
import { GO_ZERO } from '../scalars.js';
import { arrayOf, inlineObject, literal, objectOf, tsModule } from './ts-source.js';

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
    // Node hands a CommonJS module's exports object to a default import, while Vite's interop
    // already unwraps `exports.default`: accept both.
    const value = member.startsWith('.default') ? `(${alias}.default ?? ${alias})${member.slice('.default'.length)}` : `${alias}${member}`;
    return `const ${name} = ${value};`;
  });
  if (/\brequire\(/.test(body)) throw new Error('ajv standalone output kept a require() call');
  return `${imports.join('\n')}${imports.length ? '\n' : ''}${body.replace(/^"use strict";/, '')}`;
}

/**
 * ajv writes each failed check as an error object in a variable of its own followed by the same
 * five lines that start or extend the list, 2,300 times over the served kinds: a quarter of the
 * validators' source, which is a third of the bundle, and the server holds the bundle's source in
 * memory for its whole life. Each becomes one call of appendAjvError, and the object loses
 * schemaPath, which nothing reads and ajv cannot leave out.
 */
function compactErrorReports(code: string): string {
  const report = /const (err\d+) = (\{.*\});\nif\(vErrors === null\)\{\nvErrors = \[\1\];\n\}\nelse \{\nvErrors\.push\(\1\);\n\}\n/g;
  const compact = code.replace(report, (_m, _name: string, error: string) => `vErrors = __appendError(vErrors, ${error.replace(/,schemaPath:"(?:[^"\\]|\\.)*"/, '')});\n`);
  if (/vErrors\.push|schemaPath:/.test(compact)) throw new Error('ajv standalone output reports an error in a form compactErrorReports does not know');
  return compact;
}

function schemasModule(model: Model, gv: GroupVersionModel, ids: string[], sources: string[]): OutputFile[] {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    // translateAjvErrors words every error the generated validators report from its keyword and
    // params, as kube-apiserver words it; ajv's English messages were never read.
    messages: false,
    // Every referenced type is its own function, called where it is used: inlining small types
    // at each use copied ObjectMeta, Container and the like into hundreds of places.
    inlineRefs: false,
    code: { source: true, esm: true, formats: _`__formats`, lines: true },
  });
  for (const name of FORMAT_NAMES) ajv.addFormat(name, { type: 'string', validate: () => true });
  ajv.addSchema(definitionsSchema(model, ids));
  const exportsMap: Record<string, string> = {};
  for (const k of gv.kinds) {
    ajv.addSchema(kindSchema(k.type.id), k.kind);
    exportsMap[k.kind] = k.kind;
  }
  const code = compactErrorReports(toESM(standaloneCode(ajv, exportsMap)));
  const base = gvFileBase(gv);
  const header = headerComment(sources);
  const js = `${header}import { ajvFormats as __formats, appendAjvError as __appendError } from '../../runtime/validation/index.js';\n${code}\n`;
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
      return `ref(${literal(ref.id)})`;
    case 'list':
      return `list(${shapeCode(ref.of)})`;
    case 'map':
      return `map(${shapeCode(ref.of)})`;
  }
}

/** One field's entry, on one line: its shape, then only the markers that are set. */
function fieldCode(f: FieldModel): string {
  const entries: [string, string][] = [['shape', shapeCode(f.type)]];
  if (f.default !== undefined) entries.push(['default', literal(f.default)]);
  // A scalar Go always writes is filled with its zero value, as a default no OpenAPI shows.
  if (f.alwaysEmitted && f.type.kind === 'scalar') entries.push(['default', literal(GO_ZERO[f.type.name])]);
  // A struct is created empty; a list or map (nil in Go) is written as null.
  if (f.alwaysEmitted && f.type.kind !== 'scalar') entries.push(['alwaysEmitted', 'true']);
  if (f.immutable) entries.push(['immutable', 'true']);
  if (f.goPointer) entries.push(['pointer', 'true']);
  if (f.disjointKeys) entries.push(['disjointKeys', literal(f.disjointKeys)]);
  if (f.mapSize) entries.push(['mapSize', literal(f.mapSize)]);
  if (f.zeroWhenAbsent) entries.push(['zeroWhenAbsent', 'true']);
  if (f.stopsAtMaxItems && f.maxItems !== undefined) entries.push(['stopsAtMaxItems', literal(f.maxItems)]);
  if (f.reportAtField) entries.push(['reportAtField', 'true']);
  if (f.oneOf) entries.push(['oneOf', literal(f.oneOf)]);
  if (f.uniqueKeys) entries.push(['listMapKeys', literal(f.uniqueKeys)]);
  if (f.uniqueAmongValid) entries.push(['uniqueAmongValid', 'true']);
  if (f.elementOrder) entries.push(['elementOrder', literal(f.elementOrder)]);
  if (f.itemRules?.length) entries.push(['itemRules', `[${f.itemRules.map((r) => `compileRule(${literal(r)})`).join(', ')}]`]);
  if (f.featureGate) entries.push(['featureGate', literal(f.featureGate)]);
  if (f.defaultWhen?.length) entries.push(['defaultWhen', `[${f.defaultWhen.map((d) => `compileDefault(${literal(d)})`).join(', ')}]`]);
  return inlineObject(entries);
}

function hasDefaults(model: Model, id: string, seen = new Set<string>()): boolean {
  if (seen.has(id)) return false;
  seen.add(id);
  const t = model.types.get(id);
  return !!t?.fields.some((f) => {
    if (f.default !== undefined || f.defaultWhen?.length || f.alwaysEmitted) return true;
    let ref = f.type;
    while (ref.kind === 'list' || ref.kind === 'map') ref = ref.of;
    return ref.kind === 'ref' && hasDefaults(model, ref.id, seen);
  });
}

/**
 * A type's CEL rules plus those of the structs it embeds (jsonInline): in JSON an embedded
 * struct's fields are the holder's, so its rules see the same object (EphemeralContainer's
 * common fields).
 */
function rulesWithEmbedded(model: Model, t: TypeModel): TypeModel['rules'] {
  return [
    ...t.rules,
    ...t.fields.flatMap((f) => {
      const inner = f.jsonInline && f.type.kind === 'ref' ? model.types.get(f.type.id) : undefined;
      return inner ? rulesWithEmbedded(model, inner) : [];
    }),
  ];
}

/** The TypeTable entry of one type: its fields, its CEL rules and whether defaulting reaches into it. */
function typeEntry(model: Model, t: TypeModel): WriterFunction {
  const entry: Record<string, string | WriterFunction> = {
    fields: objectOf(Object.fromEntries(jsonFields(model, t).map((f) => [literal(f.name), fieldCode(f)]))),
  };
  const rules = rulesWithEmbedded(model, t);
  if (rules.length) entry.rules = arrayOf(rules, (r) => `compileRule(${literal(r)})`);
  if (hasDefaults(model, t.id)) entry.hasDefaults = 'true';
  return objectOf(entry);
}

function validatorsModule(model: Model, gv: GroupVersionModel, ids: string[], sources: string[]): OutputFile {
  const base = gvFileBase(gv);
  const table: Record<string, WriterFunction> = {};
  for (const id of ids) {
    const t = model.types.get(id);
    if (t && !t.protoOnly) table[literal(id)] = typeEntry(model, t);
  }
  return tsModule(`validators/${base}.ts`, sources, (sf) => {
    sf.addImportDeclarations([
      { isTypeOnly: true, namedImports: ['ObjectValidator'], moduleSpecifier: '../../runtime/registry/definition.js' },
      {
        namedImports: ['compileDefault', 'compileRule', 'list', 'map', 'objectValidator', 'ref', 'scalar', { name: 'TypeTable', isTypeOnly: true }],
        moduleSpecifier: '../../runtime/validation/index.js',
      },
      { namespaceImport: 'schemas', moduleSpecifier: `./${base}.schemas.js` },
    ]);
    sf.addVariableStatement({
      declarationKind: VariableDeclarationKind.Const,
      declarations: [{ name: 'types', type: 'TypeTable', initializer: objectOf(table) }],
    });
    sf.addVariableStatements(
      gv.kinds.map((k) => ({
        leadingTrivia: (w: CodeBlockWriter) => w.blankLine(),
        isExported: true,
        declarationKind: VariableDeclarationKind.Const,
        declarations: [
          {
            name: k.kind,
            type: 'ObjectValidator',
            initializer: (w: CodeBlockWriter) => {
              w.write('objectValidator(');
              objectOf({
                type: literal(k.type.id),
                types: null, // shorthand: the table above
                schema: `schemas.${k.kind}`,
                namespaced: literal(k.namespaced),
                nameFormat: literal(k.nameFormat),
                updateOrder: literal(k.updateOrder),
                ...(k.validationOrder ? { validationOrder: literal(k.validationOrder) } : {}),
              })(w);
              w.write(')');
            },
          },
        ],
      })),
    );
  });
}

export function emitValidators(model: Model): OutputFile[] {
  return model.groupVersions.flatMap((gv) => {
    const ids = reachable(model, gv.kinds.map((k) => k.type.id));
    const sources = sourcesOf(model, ids);
    return [...schemasModule(model, gv, ids, sources), validatorsModule(model, gv, ids, sources)];
  });
}
