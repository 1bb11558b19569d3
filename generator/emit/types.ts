// Emits TypeScript types per group version through openapi-typescript, from the v3 document of
// that group version: generated/types/<group>.<version>.ts with `components['schemas'][...]` and
// a named alias per kind (ConfigMap, ConfigMapList, ...), plus the kinds its subresources take
// from other group versions (policy/v1 Eviction for pods/eviction), which the typed client needs.
// Fields with a server-side default stay optional: a client may leave them out. types/index.ts
// gathers them, one namespace per group version (coreV1.ConfigMap).

import ts from 'typescript';
import type { KindModel, Model, SubresourceModel } from '../model.js';
import { listed, reachable } from '../normalize.js';
import { headerComment, sourcesOf, type OutputFile } from '../output.js';
import { emitOpenAPI } from './openapi.js';
import { definitions } from './openapi-schemas.js';
import { gvFileBase } from './validators.js';
import { groupAccessor } from './accessors.js';
import { JSON_SCHEMA_PROPS_ID } from '../scalars.js';

const INT_OR_STRING = ts.factory.createUnionTypeNode([
  ts.factory.createKeywordTypeNode(ts.SyntaxKind.NumberKeyword),
  ts.factory.createKeywordTypeNode(ts.SyntaxKind.StringKeyword),
]);

const shortName = (id: string): string => id.slice(id.lastIndexOf('.') + 1);

/** `components['schemas'][id]`, a reference to another generated type. */
const schemaRef = (id: string): ts.TypeNode =>
  ts.factory.createIndexedAccessTypeNode(
    ts.factory.createIndexedAccessTypeNode(ts.factory.createTypeReferenceNode('components'), ts.factory.createLiteralTypeNode(ts.factory.createStringLiteral('schemas'))),
    ts.factory.createLiteralTypeNode(ts.factory.createStringLiteral(id)),
  );

/**
 * apiextensions' schema unions, which OpenAPI leaves without a type (kube publishes them so):
 * their TypeScript types are their JSON forms, a schema or a list, a schema or a boolean.
 */
function schemaUnionType(path: string | undefined): ts.TypeNode | undefined {
  const id = path?.slice(path.lastIndexOf('/') + 1);
  // The unions' ids are JSONSchemaProps' with OrArray, OrBool or OrStringArray after it.
  if (!id?.startsWith(JSON_SCHEMA_PROPS_ID)) return undefined;
  const props = schemaRef(JSON_SCHEMA_PROPS_ID);
  const union = (...types: ts.TypeNode[]): ts.TypeNode => ts.factory.createUnionTypeNode(types);
  switch (shortName(id)) {
    case 'JSONSchemaPropsOrArray':
      return union(props, ts.factory.createArrayTypeNode(props));
    case 'JSONSchemaPropsOrBool':
      return union(props, ts.factory.createKeywordTypeNode(ts.SyntaxKind.BooleanKeyword));
    case 'JSONSchemaPropsOrStringArray':
      return union(props, ts.factory.createArrayTypeNode(ts.factory.createKeywordTypeNode(ts.SyntaxKind.StringKeyword)));
    default:
      return undefined;
  }
}

/**
 * The type a subresource of another kind reads and writes (io.k8s.api.policy.v1.Eviction), found
 * by the group's first label, version and kind; undefined when the model has no such type.
 */
export function subresourceTypeId(model: Model, parent: KindModel, sub: SubresourceModel): string | undefined {
  if (sub.kind === parent.kind && sub.group === undefined) return parent.type.id;
  const group = sub.group ?? parent.group;
  const version = sub.version ?? parent.version;
  const suffix = `.${group.split('.')[0] || 'core'}.${version}.${sub.kind}`;
  for (const t of model.types.values()) if (t.typeMeta && t.name === sub.kind && t.id.endsWith(suffix)) return t.id;
  return undefined;
}

export async function emitTypes(model: Model): Promise<OutputFile[]> {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const docs = new Map(emitOpenAPI(model).map((f) => [f.path, f.content]));
  const out: OutputFile[] = [];
  for (const gv of model.groupVersions) {
    const name = gv.group ? `apis__${gv.group}__${gv.version}` : `api__${gv.version}`;
    const doc = JSON.parse(docs.get(`openapi/v3/${name}.json`) as string) as { paths: unknown; components: { schemas: Record<string, unknown> } } & Record<string, unknown>;
    delete doc['//'];
    // Types only: the paths add nothing a client of these types needs.
    doc.paths = {};
    const kindIds = gv.kinds.flatMap((k) => (listed(k) ? [k.type.id, k.listType.id] : [k.type.id]));
    const aliased = new Set(kindIds.map(shortName));
    const subresourceIds = [
      ...new Set(gv.kinds.flatMap((k) => k.subresources.map((s) => subresourceTypeId(model, k, s)).filter((id): id is string => !!id && !kindIds.includes(id)))),
    ].filter((id) => !aliased.has(shortName(id)));
    doc.components.schemas = { ...definitions(model, 'v3', subresourceIds), ...doc.components.schemas };
    const ast = await openapiTS(doc as unknown as Parameters<typeof openapiTS>[0], {
      alphabetize: true,
      silent: true,
      defaultNonNullable: false,
      // OpenAPI says string (as kube publishes it); the value is a number or a string.
      transform: (schema, options) => ('format' in schema && schema.format === 'int-or-string' ? INT_OR_STRING : schemaUnionType(options.path)),
    });
    const aliases = [...kindIds, ...subresourceIds].map((id) => `export type ${shortName(id)} = components['schemas'][${JSON.stringify(id)}];`);
    const roots = [...gv.kinds.map((k) => k.type.id), ...subresourceIds];
    out.push({ path: `types/${gvFileBase(gv)}.ts`, content: `${headerComment(sourcesOf(model, reachable(model, roots)))}${astToString(ast)}\n${aliases.join('\n')}\n` });
  }
  // One entry for every group version, each under its client-go accessor name (Event is in two).
  const index = model.groupVersions.map((gv) => `export type * as ${groupAccessor(gv)} from './${gvFileBase(gv)}.js';`);
  out.push({ path: 'types/index.ts', content: `${headerComment(model.files)}${index.join('\n')}\n` });
  return out;
}
