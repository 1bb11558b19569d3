// The OpenAPI of custom resources, as kube's CRD OpenAPI controllers publish it (apiextensions-
// apiserver pkg/controller/openapi/builder): per served version the kind's schema from the CRD,
// with apiVersion, kind and metadata (ObjectMeta) added, named `<reversed group>.<version>.<Kind>`
// and marked with x-kubernetes-group-version-kind, its List, and the paths of every verb. The
// patch operations offer no strategic merge patch, which is how kubectl knows to send a JSON
// merge patch for them. v2 gets the schema in the form OpenAPI v2 can state (no oneOf, anyOf,
// not, nullable).

import type { ResourceDefinition } from '../registry/definition.js';
import { DELETE_COLLECTION_PARAMS, NAMESPACE_DOC, QUERY_PARAMETERS as Q, type Param } from './openapi-parameters.js';

type Json = Record<string, unknown>;

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
const API_VERSION_DESCRIPTION =
  'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources';
const KIND_DESCRIPTION =
  'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';
const METADATA_DESCRIPTION = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";
const LIST_METADATA_DESCRIPTION = 'Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds';

const PATCH_TYPES = ['application/json-patch+json', 'application/merge-patch+json', 'application/apply-patch+yaml'];
const MEDIA_TYPES = ['application/json', 'application/yaml'];

type Form = 'v2' | 'v3';

const refTo = (form: Form, name: string): string => (form === 'v2' ? `#/definitions/${name}` : `#/components/schemas/${name}`);

/** The schema as OpenAPI v2 can carry it, as kube's ToStructuralOpenAPIV2 leaves it. */
function toV2(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toV2);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === 'oneOf' || key === 'anyOf' || key === 'not' || key === 'nullable') continue;
    if (key === 'properties' || key === 'patternProperties' || key === 'definitions') {
      out[key] = Object.fromEntries(Object.entries((value ?? {}) as Json).map(([k, v]) => [k, toV2(v)]));
    } else if (key === 'items' || key === 'additionalProperties' || key === 'allOf') {
      out[key] = toV2(value);
    } else out[key] = value;
  }
  // A nullable or int-or-string value has no single type v2 could state.
  const s = schema as Json;
  if (s.nullable === true || s['x-kubernetes-int-or-string'] === true) delete out.type;
  return out;
}

function kindSchema(def: ResourceDefinition, form: Form): Json {
  const base = (def.openAPISchema ? (form === 'v2' ? toV2(def.openAPISchema) : structuredClone(def.openAPISchema)) : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }) as Json;
  const properties = { ...((base.properties ?? {}) as Json) };
  properties.apiVersion = { description: API_VERSION_DESCRIPTION, type: 'string' };
  properties.kind = { description: KIND_DESCRIPTION, type: 'string' };
  properties.metadata = form === 'v2' ? { $ref: refTo(form, `${META}.ObjectMeta`) } : { allOf: [{ $ref: refTo(form, `${META}.ObjectMeta`) }], description: METADATA_DESCRIPTION };
  return {
    ...base,
    type: 'object',
    properties,
    'x-kubernetes-group-version-kind': [{ group: def.group, kind: def.kind, version: def.version }],
  };
}

function listSchema(def: ResourceDefinition, form: Form): Json {
  return {
    description: `${def.listKind} is a list of ${def.kind}`,
    properties: {
      apiVersion: { description: API_VERSION_DESCRIPTION, type: 'string' },
      items: { description: `List of ${def.plural}. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md`, items: { $ref: refTo(form, def.openAPIName) }, type: 'array' },
      kind: { description: KIND_DESCRIPTION, type: 'string' },
      metadata: form === 'v2' ? { $ref: refTo(form, `${META}.ListMeta`) } : { allOf: [{ $ref: refTo(form, `${META}.ListMeta`) }], description: LIST_METADATA_DESCRIPTION },
    },
    required: ['items'],
    type: 'object',
    'x-kubernetes-group-version-kind': [{ group: def.group, kind: def.listKind, version: def.version }],
  };
}

/** `ComExampleStableV1`, as kube's operation ids name a custom group version. */
function operationSuffix(def: ResourceDefinition): string {
  const camel = (s: string) => s.split(/[.-]/).filter(Boolean).map((p) => p[0]!.toUpperCase() + p.slice(1)).join('');
  return camel(def.group.split('.').reverse().join('.')) + camel(def.version);
}

interface OperationSpec {
  action: string;
  verb: string;
  description: string;
  response: string;
  body?: string;
  patch?: boolean;
  code?: string;
  kind?: string;
  /** The operation's query parameters (kube's option types: create, update, patch, delete, list). */
  params?: readonly Param[];
}

function parameter(form: Form, name: string, where: 'path' | 'query', type: string, description: string): Json {
  const required = where === 'path' ? { required: true } : {};
  return form === 'v2' ? { description, in: where, name, ...required, type, uniqueItems: true } : { description, in: where, name, ...required, schema: { type, uniqueItems: true } };
}

const inForm = (form: Form, p: Param): Json => parameter(form, p.name, p.in === 'path' ? 'path' : 'query', p.type ?? 'string', p.description);

function operation(def: ResourceDefinition, form: Form, op: OperationSpec, namespaced: boolean): Json {
  const id = `${op.verb}${operationSuffix(def)}${namespaced ? 'Namespaced' : ''}${op.kind ?? def.kind}`;
  const responseSchema = { $ref: refTo(form, op.response) };
  const codes = op.code ? [op.code] : ['200'];
  const content = Object.fromEntries(MEDIA_TYPES.map((m) => [m, { schema: responseSchema }]));
  const responses: Json = Object.fromEntries(codes.map((c) => [c, form === 'v2' ? { description: 'OK', schema: responseSchema } : { content, description: 'OK' }]));
  responses['401'] = { description: 'Unauthorized' };
  const out: Json = {
    description: op.description,
    operationId: id,
    ...(form === 'v2' ? { produces: [...MEDIA_TYPES], schemes: ['https'], consumes: op.patch ? [...PATCH_TYPES] : ['*/*'] } : {}),
    responses,
    tags: [operationSuffix(def)],
    'x-kubernetes-action': op.action,
    'x-kubernetes-group-version-kind': { group: def.group, kind: def.kind, version: def.version },
  };
  const params = (op.params ?? []).map((p) => inForm(form, p));
  if (op.body) {
    const body = { $ref: refTo(form, op.body) };
    if (form === 'v2') params.unshift({ in: 'body', name: 'body', required: true, schema: body });
    else out.requestBody = { content: Object.fromEntries((op.patch ? PATCH_TYPES : ['*/*']).map((m) => [m, { schema: body }])), required: true };
  }
  if (params.length > 0) out.parameters = params;
  return out;
}

function pathsOf(def: ResourceDefinition, form: Form): Json {
  const prefix = `/apis/${def.group}/${def.version}`;
  const patch = `${META}.Patch`;
  const paths: Json = {};
  const scopes = def.namespaced ? [true] : [false];
  for (const namespaced of scopes) {
    const base = namespaced ? `${prefix}/namespaces/{namespace}/${def.plural}` : `${prefix}/${def.plural}`;
    const scopeParams = namespaced ? [parameter(form, 'namespace', 'path', 'string', NAMESPACE_DOC)] : [];
    paths[base] = {
      get: operation(def, form, { action: 'list', verb: 'list', description: `list objects of kind ${def.kind}`, response: `${def.openAPIName.replace(/\.[^.]+$/, '')}.${def.listKind}`, params: Q.list }, namespaced),
      post: operation(def, form, { action: 'post', verb: 'create', description: `create a ${def.kind}`, response: def.openAPIName, body: def.openAPIName, code: '201', params: Q.write }, namespaced),
      delete: operation(def, form, { action: 'deletecollection', verb: 'deletecollection', description: `delete collection of ${def.kind}`, response: `${META}.Status`, body: `${META}.DeleteOptions`, params: DELETE_COLLECTION_PARAMS }, namespaced),
      parameters: [...scopeParams, inForm(form, Q.pretty)],
    };
    const nameParam = parameter(form, 'name', 'path', 'string', `name of the ${def.kind}`);
    paths[`${base}/{name}`] = {
      get: operation(def, form, { action: 'get', verb: 'read', description: `read the specified ${def.kind}`, response: def.openAPIName }, namespaced),
      put: operation(def, form, { action: 'put', verb: 'replace', description: `replace the specified ${def.kind}`, response: def.openAPIName, body: def.openAPIName, params: Q.write }, namespaced),
      patch: operation(def, form, { action: 'patch', verb: 'patch', description: `partially update the specified ${def.kind}`, response: def.openAPIName, body: patch, patch: true, params: Q.patch }, namespaced),
      delete: operation(def, form, { action: 'delete', verb: 'delete', description: `delete a ${def.kind}`, response: `${META}.Status`, body: `${META}.DeleteOptions`, params: Q.delete }, namespaced),
      parameters: [nameParam, ...scopeParams, inForm(form, Q.pretty)],
    };
    if (def.subresources.some((s) => s.name === 'status')) {
      paths[`${base}/{name}/status`] = {
        get: operation(def, form, { action: 'get', verb: 'read', description: `read status of the specified ${def.kind}`, response: def.openAPIName, kind: `${def.kind}Status` }, namespaced),
        put: operation(def, form, { action: 'put', verb: 'replace', description: `replace status of the specified ${def.kind}`, response: def.openAPIName, body: def.openAPIName, kind: `${def.kind}Status`, params: Q.write }, namespaced),
        patch: operation(def, form, { action: 'patch', verb: 'patch', description: `partially update status of the specified ${def.kind}`, response: def.openAPIName, body: patch, patch: true, kind: `${def.kind}Status`, params: Q.patch }, namespaced),
        parameters: [nameParam, ...scopeParams, inForm(form, Q.pretty)],
      };
    }
  }
  if (def.namespaced) {
    paths[`${prefix}/${def.plural}`] = {
      get: operation(def, form, { action: 'list', verb: 'list', description: `list objects of kind ${def.kind}`, response: `${def.openAPIName.replace(/\.[^.]+$/, '')}.${def.listKind}`, kind: `${def.kind}ForAllNamespaces`, params: Q.list }, false),
      parameters: [inForm(form, Q.pretty)],
    };
  }
  return paths;
}

/** Paths and named schemas of custom resources in one OpenAPI form. */
export function customResourceOpenAPI(definitions: readonly ResourceDefinition[], form: Form): { paths: Json; schemas: Json } {
  const paths: Json = {};
  const schemas: Json = {};
  for (const def of definitions) {
    Object.assign(paths, pathsOf(def, form));
    schemas[def.openAPIName] = kindSchema(def, form);
    schemas[`${def.openAPIName.replace(/\.[^.]+$/, '')}.${def.listKind}`] = listSchema(def, form);
  }
  return { paths, schemas };
}
