// Emits TypeScript types per group version through openapi-typescript, from the v3 document of
// that group version: generated/types/<group>.<version>.ts with `components['schemas'][...]` and
// a named alias per kind (ConfigMap, ConfigMapList, ...).

import type { Model } from '../model.js';
import { reachable } from '../normalize.js';
import { headerComment, sourcesOf, type OutputFile } from '../output.js';
import { emitOpenAPI } from './openapi.js';
import { gvFileBase } from './validators.js';

export async function emitTypes(model: Model): Promise<OutputFile[]> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const docs = new Map(emitOpenAPI(model).map((f) => [f.path, f.content]));
  const out: OutputFile[] = [];
  for (const gv of model.groupVersions) {
    const name = gv.group ? `apis__${gv.group}__${gv.version}` : `api__${gv.version}`;
    const doc = JSON.parse(docs.get(`openapi/v3/${name}.json`) as string) as Record<string, unknown>;
    delete doc['//'];
    // Types only: the paths add nothing a client of these types needs.
    doc.paths = {};
    const ast = await openapiTS(doc as unknown as Parameters<typeof openapiTS>[0], { alphabetize: true, silent: true });
    const aliases = gv.kinds.flatMap((k) => (k.virtual ? [k.type.id] : [k.type.id, k.listType.id])).map((id) => `export type ${id.slice(id.lastIndexOf('.') + 1)} = components['schemas'][${JSON.stringify(id)}];`);
    const roots = gv.kinds.map((k) => k.type.id);
    out.push({ path: `types/${gvFileBase(gv)}.ts`, content: `${headerComment(sourcesOf(model, reachable(model, roots)))}${astToString(ast)}\n${aliases.join('\n')}\n` });
  }
  return out;
}
