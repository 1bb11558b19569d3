// Emits generated/registry.ts: one ResourceDefinition per served kind, the table the runtime
// routes, stores, validates, encodes and prints from.

import type { KindModel, Model } from '../model.js';
import { reachable } from '../normalize.js';
import { headerComment, sourcesOf, type OutputFile } from '../output.js';
import { gvFileBase } from './validators.js';

const literal = (v: unknown): string => JSON.stringify(v);

function definition(k: KindModel, validatorName: string): string {
  const entries: [string, string][] = [
    ['group', literal(k.group)],
    ['version', literal(k.version)],
    ['kind', literal(k.kind)],
    ['listKind', literal(k.listKind)],
    ['plural', literal(k.plural)],
    ['singular', literal(k.singular)],
    ['namespaced', literal(k.namespaced)],
    ['verbs', literal(k.verbs)],
    ['shortNames', literal(k.shortNames)],
    ['categories', literal(k.categories)],
    ['stability', literal(k.stability)],
  ];
  if (k.featureGate) entries.push(['featureGate', literal(k.featureGate)]);
  if (k.deprecation) entries.push(['deprecation', literal(k.deprecation)]);
  entries.push(['subresources', literal(k.subresources)]);
  entries.push(['printerColumns', `[\n${k.printerColumns.map((c) => `      ${literal(c)},`).join('\n')}\n    ]`]);
  entries.push(
    ['nameFormat', literal(k.nameFormat)],
    ['storageVersionHash', literal(k.storageVersionHash)],
    ['protobufType', literal(k.type.protoName)],
    ['protobufListType', literal(k.listType.protoName)],
    ['openAPIName', literal(k.type.id)],
    ['tracksGeneration', literal(k.tracksGeneration)],
  );
  if (k.statusField) entries.push(['statusField', literal(k.statusField)]);
  if (k.strategy) entries.push(['strategy', literal(k.strategy)]);
  entries.push(['storagePrefix', literal(k.storagePrefix)], ['validator', validatorName]);
  return `  {\n${entries.map(([key, v]) => `    ${key}: ${v},`).join('\n')}\n  },`;
}

export function emitRegistry(model: Model): OutputFile[] {
  const roots = model.groupVersions.flatMap((gv) => gv.kinds.map((k) => k.type.id));
  const lines = [headerComment(sourcesOf(model, reachable(model, roots))).trimEnd()];
  lines.push("import type { ResourceDefinition } from '../runtime/registry/definition.js';");
  const body: string[] = [];
  model.groupVersions.forEach((gv, i) => {
    const alias = `gv${i}`;
    lines.push(`import * as ${alias} from './validators/${gvFileBase(gv)}.js';`);
    for (const k of gv.kinds) body.push(definition(k, `${alias}.${k.kind}`));
  });
  lines.push('', '/** Every served kind; the runtime filters feature-gated and disabled group versions. */');
  lines.push('export const resources: ResourceDefinition[] = [', ...body, '];');
  return [{ path: 'registry.ts', content: `${lines.join('\n')}\n` }];
}
