// Emits generated/client/: one module per group version with client-go's typed clientset shape
// (coreV1.configMaps(namespace), rbacV1.clusterRoles(), pods(ns).status, ...) over the
// hand-written core in client/core/, and an index that puts the group versions together.
// Each resource is narrowed to the verbs its kind serves; objects are the generated types.

import type { GroupVersionModel, KindModel, Model, SubresourceModel } from '../model.js';
import { groupVersionString } from '../model.js';
import { listed, reachable } from '../normalize.js';
import { sourcesOf, type OutputFile } from '../output.js';
import { tsModule } from './ts-source.js';
import { groupAccessor, resourceAccessor, upperFirst } from './accessors.js';
import { subresourceTypeId } from './types.js';
import { gvFileBase } from './validators.js';

const CORE = '../../client/core';

/** Methods of ResourceClient each verb makes available. */
const VERB_METHODS: Record<string, string[]> = {
  create: ['create'],
  get: ['get'],
  list: ['list', 'listAll'],
  update: ['update'],
  patch: ['patch', 'apply'],
  delete: ['delete'],
  deletecollection: ['deleteCollection'],
  watch: ['watch'],
};

const SUBRESOURCE_METHODS: Record<string, string[]> = { get: ['get'], update: ['update'], patch: ['patch', 'apply'] };

const methodsOf = (verbs: string[], table: Record<string, string[]>): string[] => verbs.flatMap((v) => table[v] ?? []).sort();
const union = (names: string[]): string => names.map((n) => `'${n}'`).join(' | ');
const isIdentifier = (s: string): boolean => /^[A-Za-z_$][\w$]*$/.test(s);

interface Emitted {
  typeName: string;
  declaration: string;
  member: string;
  factory: string;
  imports: Set<string>;
}

function subresourceParts(model: Model, k: KindModel, sub: SubresourceModel, imports: Set<string>): { type: string; value: string } | undefined {
  if (!isIdentifier(sub.name)) return undefined;
  const typeId = subresourceTypeId(model, k, sub);
  const sameKind = typeId === k.type.id;
  if (sameKind) {
    const methods = methodsOf(sub.verbs, SUBRESOURCE_METHODS);
    if (!methods.length) return undefined;
    return { type: `Pick<SubresourceClient<${k.kind}>, ${union(methods)}>`, value: `new SubresourceClient(c, '${sub.name}')` };
  }
  if (sub.verbs.join() !== 'create') return undefined;
  const body = typeId ? typeId.slice(typeId.lastIndexOf('.') + 1) : 'KubeObject';
  if (typeId) imports.add(body);
  const apiVersion = groupVersionString({ group: sub.group ?? k.group, version: sub.version ?? k.version });
  return {
    type: `CreateSubresourceClient<${body}>`,
    value: `new CreateSubresourceClient<${body}>(c, '${sub.name}', { apiVersion: '${apiVersion}', kind: '${sub.kind}' })`,
  };
}

function resource(model: Model, k: KindModel): Emitted {
  const imports = new Set<string>([k.kind]);
  const list = listed(k) ? k.listKind : `KubeList<${k.kind}>`;
  if (listed(k)) imports.add(k.listKind);
  const accessor = resourceAccessor(k);
  const typeName = `${upperFirst(accessor)}Client`;
  const subs = k.subresources.map((s) => ({ s, parts: subresourceParts(model, k, s, imports) })).filter((x) => x.parts);
  const base = `Pick<ResourceClient<${k.kind}, ${list}>, ${union(methodsOf(k.verbs, VERB_METHODS))}>`;
  const extra = subs.map(({ s, parts }) => `  ${s.name}: ${parts!.type};`).join('\n');
  const declaration = `/** ${k.kind} (${k.plural}), ${k.namespaced ? 'namespaced' : 'cluster-scoped'}. */\nexport type ${typeName} = ${base}${subs.length ? ` & {\n${extra}\n}` : ''};`;
  const param = k.namespaced ? 'namespace: string' : '';
  const member = k.namespaced
    ? `  /** ${k.plural} in one namespace; '' for list and watch across all of them. */\n  ${accessor}(${param}): ${typeName};`
    : `  ${accessor}(): ${typeName};`;
  const path = `{ ...GROUP_VERSION, plural: '${k.plural}', kind: '${k.kind}'${k.namespaced ? ', namespace' : ''} }`;
  const client = `new ResourceClient<${k.kind}, ${list}>(transport, ${path})`;
  const factory = subs.length
    ? `  ${accessor}: (${param}) => {\n    const c = ${client};\n    return Object.assign(c, { ${subs.map(({ s, parts }) => `${s.name}: ${parts!.value}`).join(', ')} });\n  },`
    : `  ${accessor}: (${param}) => ${client},`;
  return { typeName, declaration, member, factory, imports };
}

function groupVersionModule(model: Model, gv: GroupVersionModel): OutputFile {
  const accessor = groupAccessor(gv);
  const iface = `${upperFirst(accessor)}Client`;
  const parts = [...gv.kinds].sort((a, b) => resourceAccessor(a).localeCompare(resourceAccessor(b))).map((k) => resource(model, k));
  const types = [...new Set(parts.flatMap((p) => [...p.imports]))].sort();
  const text = parts.map((p) => p.factory).join('\n');
  const uses = (name: string): boolean => parts.some((p) => p.declaration.includes(name) || p.factory.includes(name));
  const coreNames = ['CreateSubresourceClient', 'ResourceClient', 'SubresourceClient'].filter(uses);
  const prefix = gv.group ? `/apis/${gv.group}/${gv.version}` : `/api/${gv.version}`;
  const source = `
import { ${coreNames.join(', ')}${uses('KubeList') || uses('KubeObject') ? `, type ${['KubeList', 'KubeObject'].filter(uses).join(', type ')}` : ''} } from '${CORE}/resource.js';
import type { Transport } from '${CORE}/transport.js';
import type { ${types.join(', ')} } from '../types/${gvFileBase(gv)}.js';

const GROUP_VERSION = { prefix: '${prefix}', apiVersion: '${groupVersionString(gv)}' };

${parts.map((p) => p.declaration).join('\n\n')}

/** ${groupVersionString(gv)}, as client-go's ${upperFirst(accessor)}Interface. */
export interface ${iface} {
${parts.map((p) => p.member).join('\n')}
}

export function ${accessor}(transport: Transport): ${iface} {
  return {
${text}
  };
}
`;
  const roots = gv.kinds.map((k) => k.type.id);
  return tsModule(`client/${gvFileBase(gv)}.ts`, sourcesOf(model, reachable(model, roots)), (sf) => {
    sf.addStatements(source);
  });
}

function indexModule(model: Model): OutputFile {
  const gvs = model.groupVersions;
  const source = `
import type { Transport } from '${CORE}/transport.js';
${gvs.map((gv) => `import { ${groupAccessor(gv)}, type ${upperFirst(groupAccessor(gv))}Client } from './${gvFileBase(gv)}.js';`).join('\n')}

/** Every served group version, by client-go's accessor names. */
export interface Clientset {
${gvs.map((gv) => `  readonly ${groupAccessor(gv)}: ${upperFirst(groupAccessor(gv))}Client;`).join('\n')}
}

export function clientset(transport: Transport): Clientset {
  return {
${gvs.map((gv) => `    ${groupAccessor(gv)}: ${groupAccessor(gv)}(transport),`).join('\n')}
  };
}

export type { ${gvs.map((gv) => `${upperFirst(groupAccessor(gv))}Client`).join(', ')} };
`;
  return tsModule('client/index.ts', model.files, (sf) => {
    sf.addStatements(source);
  });
}

export function emitClient(model: Model): OutputFile[] {
  return [...model.groupVersions.map((gv) => groupVersionModule(model, gv)), indexModule(model)];
}
