// Emits generated/registry.ts: one ResourceDefinition per served kind, the table the runtime
// routes, stores, validates, encodes and prints from. Built through ts-morph (see ts-source.ts).

import { VariableDeclarationKind, type WriterFunction } from 'ts-morph';
import type { KindModel, Model } from '../model.js';
import { reachable } from '../normalize.js';
import { sourcesOf, type OutputFile } from '../output.js';
import { arrayOf, literal, objectOf, tsModule } from './ts-source.js';
import { gvFileBase } from './validators.js';

/** The object literal of one kind; optional keys appear only when the spec sets them. */
function definition(k: KindModel, validatorName: string): WriterFunction {
  const entries: Record<string, string | WriterFunction> = {
    group: literal(k.group),
    version: literal(k.version),
    kind: literal(k.kind),
    listKind: literal(k.listKind),
    plural: literal(k.plural),
    singular: literal(k.singular),
    namespaced: literal(k.namespaced),
    verbs: literal(k.verbs),
    shortNames: literal(k.shortNames),
    categories: literal(k.categories),
    stability: literal(k.stability),
  };
  if (k.featureGate) entries.featureGate = literal(k.featureGate);
  entries.subresources = literal(k.subresources);
  entries.printerColumns = arrayOf(k.printerColumns, literal);
  entries.nameFormat = literal(k.nameFormat);
  entries.storageVersionHash = literal(k.storageVersionHash);
  entries.protobufType = literal(k.type.protoName);
  entries.protobufListType = literal(k.listType.protoName);
  entries.openAPIName = literal(k.type.id);
  entries.tracksGeneration = literal(k.tracksGeneration);
  if (k.returnDeletedObject) entries.returnDeletedObject = 'true';
  if (k.statusResetsMetadata) entries.statusResetsMetadata = 'true';
  if (!k.allowUnconditionalUpdate) entries.allowUnconditionalUpdate = 'false';
  if (k.garbageCollectionPolicy !== 'DeleteDependents') entries.garbageCollectionPolicy = literal(k.garbageCollectionPolicy);
  if (k.statusField) entries.statusField = literal(k.statusField);
  if (k.strategy) entries.strategy = literal(k.strategy);
  if (k.virtual) entries.virtual = 'true';
  entries.storagePrefix = literal(k.storagePrefix);
  if (k.storedAs) entries.storedAs = literal(k.storedAs);
  entries.validator = validatorName;
  return objectOf(entries);
}

export function emitRegistry(model: Model): OutputFile[] {
  const roots = model.groupVersions.flatMap((gv) => gv.kinds.map((k) => k.type.id));
  const sources = sourcesOf(model, reachable(model, roots));
  // Each group version's validators module under a short alias: gv0, gv1, ... in model order.
  const kinds = model.groupVersions.flatMap((gv, i) => gv.kinds.map((k) => ({ k, alias: `gv${i}` })));
  const file = tsModule('registry.ts', sources, (sf) => {
    sf.addImportDeclarations([
      { isTypeOnly: true, namedImports: ['ResourceDefinition'], moduleSpecifier: '../runtime/registry/definition.js' },
      ...model.groupVersions.map((gv, i) => ({ namespaceImport: `gv${i}`, moduleSpecifier: `./validators/${gvFileBase(gv)}.js` })),
    ]);
    sf.addVariableStatement({
      docs: ['Every served kind; the runtime filters feature-gated and disabled group versions.'],
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      declarations: [
        {
          name: 'resources',
          type: 'ResourceDefinition[]',
          initializer: arrayOf(kinds, ({ k, alias }) => definition(k, `${alias}.${k.kind}`)),
        },
      ],
    });
  });
  return [file];
}
