// Emits generated/openapi/v2/swagger.json (every group version in one document, as
// /openapi/v2 serves it) and generated/openapi/v3/<api__v1|apis__group__version>.json (one
// document per group version, as /openapi/v3/<path> serves it). The "//" header key must be
// dropped by the runtime before serving.

import type { GroupVersionModel, Model } from '../model.js';
import { reachable } from '../normalize.js';
import { jsonWithHeader, sortedJSON, sourcesOf, type OutputFile } from '../output.js';
import { kindPaths } from './openapi-paths.js';
import { definitions, type OpenAPIStyle, type Schema } from './openapi-schemas.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

/** Meta types every served group version's operations reference. */
const OPERATION_TYPES = [`${META}.Status`, `${META}.DeleteOptions`, `${META}.WatchEvent`];

const PATCH_DEFINITION: Schema = { description: 'The body of a PATCH request; its format is given by the Content-Type.', type: 'object' };

function documentParts(model: Model, gvs: GroupVersionModel[], style: OpenAPIStyle): { paths: Schema; defs: Record<string, Schema>; roots: string[] } {
  const roots = [...gvs.flatMap((gv) => gv.kinds.flatMap((k) => [k.type.id, k.listType.id])), ...OPERATION_TYPES.filter((id) => model.types.has(id))];
  const defs = definitions(model, style, roots);
  defs[`${META}.Patch`] = PATCH_DEFINITION;
  const paths: Schema = {};
  for (const gv of gvs) for (const k of gv.kinds) Object.assign(paths, kindPaths(k, style));
  return { paths, defs, roots };
}

/** Stable key order inside the document; the "//" header stays first. */
const stable = (doc: Schema): Schema => JSON.parse(sortedJSON(doc)) as Schema;

export function emitOpenAPI(model: Model): OutputFile[] {
  const out: OutputFile[] = [];
  {
    const { paths, defs, roots } = documentParts(model, model.groupVersions, 'v2');
    const doc = stable({
      swagger: '2.0',
      info: { title: 'Kubernetes', version: 'unversioned' },
      paths,
      definitions: defs,
      securityDefinitions: { BearerToken: { description: 'Bearer token authentication', in: 'header', name: 'authorization', type: 'apiKey' } },
      security: [{ BearerToken: [] }],
    });
    out.push({ path: 'openapi/v2/swagger.json', content: jsonWithHeader(sourcesOf(model, reachable(model, roots)), doc) });
  }
  for (const gv of model.groupVersions) {
    const { paths, defs, roots } = documentParts(model, [gv], 'v3');
    const doc = stable({
      openapi: '3.0.0',
      info: { title: 'Kubernetes', version: 'unversioned' },
      paths,
      components: {
        schemas: defs,
        securitySchemes: { BearerToken: { description: 'Bearer token authentication', in: 'header', name: 'authorization', type: 'apiKey' } },
      },
      security: [{ BearerToken: [] }],
    });
    const name = gv.group ? `apis__${gv.group}__${gv.version}` : `api__${gv.version}`;
    out.push({ path: `openapi/v3/${name}.json`, content: jsonWithHeader(sourcesOf(model, reachable(model, roots)), doc) });
  }
  return out;
}
