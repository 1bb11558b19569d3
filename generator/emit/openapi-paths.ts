// The REST paths of each served kind with kube-apiserver's operationIds
// (listCoreV1NamespacedConfigMap, ...), x-kubernetes-action and x-kubernetes-group-version-kind,
// in either OpenAPI v2 or v3 form.

import type { KindModel } from '../model.js';
import { DELETE_COLLECTION_PARAMS, NAMESPACE_DOC, QUERY_PARAMETERS as P, nameDoc, type Param } from '../../runtime/api/openapi-parameters.js';
import { refPrefix, type OpenAPIStyle, type Schema } from './openapi-schemas.js';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const MEDIA = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];
const WATCH_MEDIA = [...MEDIA, 'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch'];
const PATCH_MEDIA = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml', 'application/apply-patch+cbor'];

/** `CoreV1`, `RbacAuthorizationV1`: how operationIds name a group version. */
export function operationGroupVersion(group: string, version: string): string {
  const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);
  const name = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '');
  return name.split('.').map(cap).join('') + cap(version);
}

export const tagOf = (group: string, version: string): string => `${(group === '' ? 'core' : group.replace(/\.k8s\.io$/, '')).replace(/\./g, '_')}_${version}`;

interface Op {
  verb: 'get' | 'post' | 'put' | 'patch' | 'delete';
  operationId: string;
  action: string;
  description: string;
  params: Param[];
  body?: string;
  responses: Record<string, string>;
  mediaTypes?: string[];
  consumes?: string[];
}

export function kindPaths(k: KindModel, style: OpenAPIStyle): Record<string, Schema> {
  const gv = operationGroupVersion(k.group, k.version);
  const root = k.group ? `/apis/${k.group}/${k.version}` : `/api/${k.version}`;
  const ns = k.namespaced ? 'Namespaced' : '';
  const kind = k.type.id;
  const list = k.listType.id;
  const status = `${META}.Status`;
  const watchEvent = `${META}.WatchEvent`;
  const collection = k.namespaced ? `${root}/namespaces/{namespace}/${k.plural}` : `${root}/${k.plural}`;
  const item = `${collection}/{name}`;
  const watchCollection = k.namespaced ? `${root}/watch/namespaces/{namespace}/${k.plural}` : `${root}/watch/${k.plural}`;
  const nameOf = (kindName: string): Param => ({ name: 'name', in: 'path', description: nameDoc(kindName), type: 'string', required: true, uniqueItems: true });
  const nameP = nameOf(k.kind);
  const nsP: Param = { name: 'namespace', in: 'path', description: NAMESPACE_DOC, type: 'string', required: true, uniqueItems: true };
  const scopeParams = k.namespaced ? [nsP] : [];
  const paths: Record<string, { params: Param[]; ops: Op[] }> = {};
  const add = (path: string, params: Param[], op: Op): void => {
    (paths[path] ??= { params, ops: [] }).ops.push(op);
  };
  const writeParams = P.write;
  const has = (v: string): boolean => k.verbs.includes(v);

  if (has('list')) add(collection, [...scopeParams, P.pretty], { verb: 'get', operationId: `list${gv}${ns}${k.kind}`, action: 'list', description: `list or watch objects of kind ${k.kind}`, params: P.list, responses: { 200: list }, mediaTypes: WATCH_MEDIA });
  if (has('create')) add(collection, [...scopeParams, P.pretty], { verb: 'post', operationId: `create${gv}${ns}${k.kind}`, action: 'post', description: `create a ${k.kind}`, params: writeParams, body: kind, responses: { 200: kind, 201: kind, 202: kind } });
  if (has('deletecollection'))
    add(collection, [...scopeParams, P.pretty], { verb: 'delete', operationId: `delete${gv}Collection${ns}${k.kind}`, action: 'deletecollection', description: `delete collection of ${k.kind}`, params: DELETE_COLLECTION_PARAMS, body: `${META}.DeleteOptions`, responses: { 200: status } });
  if (has('get')) add(item, [nameP, ...scopeParams, P.pretty], { verb: 'get', operationId: `read${gv}${ns}${k.kind}`, action: 'get', description: `read the specified ${k.kind}`, params: [], responses: { 200: kind } });
  if (has('update')) add(item, [nameP, ...scopeParams, P.pretty], { verb: 'put', operationId: `replace${gv}${ns}${k.kind}`, action: 'put', description: `replace the specified ${k.kind}`, params: writeParams, body: kind, responses: { 200: kind, 201: kind } });
  if (has('delete')) add(item, [nameP, ...scopeParams, P.pretty], { verb: 'delete', operationId: `delete${gv}${ns}${k.kind}`, action: 'delete', description: `delete a ${k.kind}`, params: P.delete, body: `${META}.DeleteOptions`, responses: { 200: status, 202: status } });
  if (has('patch'))
    add(item, [nameP, ...scopeParams, P.pretty], { verb: 'patch', operationId: `patch${gv}${ns}${k.kind}`, action: 'patch', description: `partially update the specified ${k.kind}`, params: P.patch, body: `${META}.Patch`, responses: { 200: kind, 201: kind }, consumes: PATCH_MEDIA });
  if (has('watch')) {
    add(`${watchCollection}/{name}`, [nameP, ...scopeParams, ...P.list, P.pretty], { verb: 'get', operationId: `watch${gv}${ns}${k.kind}`, action: 'watch', description: `watch changes to an object of kind ${k.kind}. deprecated: use the 'watch' parameter with a list operation instead, filtered to a single item with the 'fieldSelector' parameter.`, params: [], responses: { 200: watchEvent }, mediaTypes: WATCH_MEDIA });
    add(watchCollection, [...scopeParams, ...P.list, P.pretty], { verb: 'get', operationId: `watch${gv}${ns}${k.kind}List`, action: 'watchlist', description: `watch individual changes to a list of ${k.kind}. deprecated: use the 'watch' parameter with a list operation instead.`, params: [], responses: { 200: watchEvent }, mediaTypes: WATCH_MEDIA });
  }
  if (k.namespaced && has('list')) add(`${root}/${k.plural}`, [...P.list, P.pretty], { verb: 'get', operationId: `list${gv}${k.kind}ForAllNamespaces`, action: 'list', description: `list or watch objects of kind ${k.kind}`, params: [], responses: { 200: list }, mediaTypes: WATCH_MEDIA });
  if (k.namespaced && has('watch')) add(`${root}/watch/${k.plural}`, [...P.list, P.pretty], { verb: 'get', operationId: `watch${gv}${k.kind}ListForAllNamespaces`, action: 'watchlist', description: `watch individual changes to a list of ${k.kind}. deprecated: use the 'watch' parameter with a list operation instead.`, params: [], responses: { 200: watchEvent }, mediaTypes: WATCH_MEDIA });
  for (const sub of k.subresources) {
    const Sub = sub.name.charAt(0).toUpperCase() + sub.name.slice(1);
    const subKind = sub.kind === k.kind ? kind : `${k.type.id.slice(0, k.type.id.lastIndexOf('.'))}.${sub.kind}`;
    const path = `${item}/${sub.name}`;
    // The installer names the route's own kind (the subresource's) in the name parameter.
    const params = [nameOf(sub.kind), ...scopeParams, P.pretty];
    if (sub.verbs.includes('get')) add(path, params, { verb: 'get', operationId: `read${gv}${ns}${k.kind}${Sub}`, action: 'get', description: `read ${sub.name} of the specified ${k.kind}`, params: [], responses: { 200: subKind } });
    if (sub.verbs.includes('update')) add(path, params, { verb: 'put', operationId: `replace${gv}${ns}${k.kind}${Sub}`, action: 'put', description: `replace ${sub.name} of the specified ${k.kind}`, params: writeParams, body: subKind, responses: { 200: subKind, 201: subKind } });
    if (sub.verbs.includes('patch'))
      add(path, params, { verb: 'patch', operationId: `patch${gv}${ns}${k.kind}${Sub}`, action: 'patch', description: `partially update ${sub.name} of the specified ${k.kind}`, params: P.patch, body: `${META}.Patch`, responses: { 200: subKind, 201: subKind }, consumes: PATCH_MEDIA });
  }

  const gvk = { group: k.group, kind: k.kind, version: k.version };
  const tag = tagOf(k.group, k.version);
  const out: Record<string, Schema> = {};
  for (const [path, { params, ops }] of Object.entries(paths)) {
    const item: Schema = { parameters: params.map((p) => param(p, style)) };
    for (const op of ops) item[op.verb] = operation(op, style, tag, gvk);
    out[path] = item;
  }
  return out;
}

function param(p: Param, style: OpenAPIStyle): Schema {
  if (style === 'v2') return { ...p };
  const { type, uniqueItems, ...rest } = p;
  return { ...rest, schema: { type, ...(uniqueItems ? { uniqueItems } : {}) } };
}

function operation(op: Op, style: OpenAPIStyle, tag: string, gvk: Schema): Schema {
  const ref = (name: string): Schema => ({ $ref: `${refPrefix(style)}${name}` });
  const media = op.mediaTypes ?? MEDIA;
  const responses: Schema = {};
  const text: Record<string, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted' };
  for (const [code, schema] of Object.entries(op.responses)) {
    responses[code] = style === 'v2' ? { description: text[code], schema: ref(schema) } : { description: text[code], content: Object.fromEntries(media.map((m) => [m, { schema: ref(schema) }])) };
  }
  responses['401'] = { description: 'Unauthorized' };
  const o: Schema = { description: op.description, operationId: op.operationId, tags: [tag] };
  const params = op.params.map((p) => param(p, style));
  if (style === 'v2') {
    if (op.body) params.unshift({ name: 'body', in: 'body', required: op.verb !== 'delete', schema: ref(op.body) });
    o.consumes = op.consumes ?? ['*/*'];
    o.produces = media;
    o.schemes = ['https'];
  } else if (op.body) {
    o.requestBody = { content: Object.fromEntries((op.consumes ?? ['*/*']).map((m) => [m, { schema: ref(op.body as string) }])), ...(op.verb !== 'delete' ? { required: true } : {}) };
  }
  if (params.length) o.parameters = params;
  o.responses = responses;
  o['x-kubernetes-action'] = op.action;
  o['x-kubernetes-group-version-kind'] = gvk;
  return o;
}
