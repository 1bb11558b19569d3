// /openapi/v2 and /openapi/v3 from the generated documents, in the forms kubectl asks for:
// v3 is an index of group versions, each with a serverRelativeURL carrying a content hash, then
// one document per group version. Documents are read on first use (start-up stays fast) and
// served as JSON; v2 also comes in gnostic's protobuf form (kubectl's apply, explain and
// client-side validation ask only for that), encoded on first request and kept.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { notAcceptable } from '../errors/status-error.js';
import { parseAccept } from './negotiation.js';
import { encodeOpenAPIV2 } from './openapi-v2-protobuf.js';
import { generatedPath } from '../generated-files.js';
import type { ResourceDefinition } from '../registry/definition.js';
import { customResourceOpenAPI } from './custom-openapi.js';

const GENERATED = generatedPath('openapi/');

/** What kube-apiserver answers with for either spelling of the v2 protobuf media type. */
export const MEDIA_TYPE_OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

/**
 * The v2 forms in kube-openapi's order of preference within one Accept clause: the `@v1.0`
 * spelling is what kubectl sends, the `.v1.0` one (a valid MIME token) what newer clients send.
 */
const V2_FORMS: Array<[subType: string, form: 'json' | 'protobuf']> = [
  ['json', 'json'],
  ['com.github.proto-openapi.spec.v2@v1.0+protobuf', 'protobuf'],
  ['com.github.proto-openapi.spec.v2.v1.0+protobuf', 'protobuf'],
];

export interface OpenAPIResponse {
  status: number;
  headers: Record<string, string>;
  body: string | Uint8Array<ArrayBuffer>;
}

interface Document {
  /** The parsed document, kept so the protobuf form can be built from it. */
  doc: Record<string, unknown>;
  body: string;
  etag: string;
  protobuf?: Uint8Array<ArrayBuffer>;
}

function load(path: string): Document {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  delete doc['//'];
  return documentOf(doc);
}

function documentOf(doc: Record<string, unknown>): Document {
  const body = JSON.stringify(doc);
  return { doc, body, etag: createHash('sha512').update(body).digest('hex').toUpperCase() };
}

/** The first v2 form the Accept header allows, as kube-openapi's handler picks it. */
function negotiateV2(accept: string | undefined): 'json' | 'protobuf' | undefined {
  for (const clause of parseAccept(accept || '*/*')) {
    if (clause.type !== 'application' && clause.type !== '*') continue;
    const match = V2_FORMS.find(([subType]) => clause.subType === subType || clause.subType === '*');
    if (match) return match[1];
  }
  return undefined;
}

function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return true;
  return parseAccept(accept).some(
    (c) => (c.type === 'application' && (c.subType === 'json' || c.subType === '*')) || (c.type === '*' && c.subType === '*'),
  );
}

export class OpenAPIDocuments {
  private v2?: Document;
  private v3?: Map<string, Document>;
  private builtInV3?: Map<string, Document>;
  private generatedV2?: Record<string, unknown>;
  /** The custom resources published now; their documents are built on first request after a change. */
  private custom: readonly ResourceDefinition[] = [];

  /** @param servedGroupVersions e.g. `api/v1`, `apis/rbac.authorization.k8s.io/v1`; others are not published. */
  constructor(private readonly servedGroupVersions: Set<string>) {}

  /**
   * The v2 document without the paths of group versions this server does not serve, and without
   * the definitions only those paths used, as kube-apiserver publishes only what it serves.
   */
  private servedV2(doc: Record<string, unknown>): Document {
    const paths = (doc.paths ?? {}) as Record<string, unknown>;
    const kept = Object.fromEntries(
      Object.entries(paths).filter(([path]) => {
        const m = /^\/(api\/[^/]+|apis\/[^/]+\/[^/]+)(\/|$)/.exec(path);
        return !m || this.servedGroupVersions.has(m[1] as string);
      }),
    );
    const definitions = (doc.definitions ?? {}) as Record<string, unknown>;
    const reachable = new Set<string>();
    const queue: string[] = [];
    collectRefs(kept, queue);
    while (queue.length > 0) {
      const name = queue.pop() as string;
      if (reachable.has(name) || !(name in definitions)) continue;
      reachable.add(name);
      collectRefs(definitions[name], queue);
    }
    const custom = customResourceOpenAPI(this.custom, 'v2');
    const served = {
      ...doc,
      paths: { ...kept, ...custom.paths },
      definitions: { ...Object.fromEntries(Object.entries(definitions).filter(([name]) => reachable.has(name))), ...custom.schemas },
    };
    return documentOf(served);
  }

  /**
   * Publishes the OpenAPI of these custom resources from now on in place of the previous ones,
   * as kube's CRD OpenAPI controllers follow the CRDs. A group version a built-in kind serves
   * keeps its built-in document alone.
   */
  setCustomResources(definitions: readonly ResourceDefinition[]): void {
    this.custom = definitions.filter((d) => !this.servedGroupVersions.has(`apis/${d.group}/${d.version}`));
    this.v2 = undefined;
    this.v3 = undefined;
  }

  private v3Documents(): Map<string, Document> {
    if (!this.builtInV3) {
      this.builtInV3 = new Map();
      const dir = join(GENERATED, 'v3');
      for (const file of existsSync(dir) ? readdirSync(dir).sort() : []) {
        const gv = file.replace(/\.json$/, '').split('__').join('/');
        if (this.servedGroupVersions.has(gv)) this.builtInV3.set(gv, load(join(dir, file)));
      }
    }
    if (!this.v3) {
      this.v3 = new Map(this.builtInV3);
      const byGroupVersion = new Map<string, ResourceDefinition[]>();
      for (const def of this.custom) {
        const gv = `apis/${def.group}/${def.version}`;
        byGroupVersion.set(gv, [...(byGroupVersion.get(gv) ?? []), def]);
      }
      const metaSchemas = this.metaComponents();
      for (const gv of [...byGroupVersion.keys()].sort()) {
        const { paths, schemas } = customResourceOpenAPI(byGroupVersion.get(gv)!, 'v3');
        const components = { schemas: { ...metaSchemas, ...schemas } };
        this.v3.set(gv, documentOf({ components, info: { title: 'Kubernetes', version: 'unversioned' }, openapi: '3.0.0', paths, security: [{ BearerToken: [] }] }));
      }
    }
    return this.v3;
  }

  /** The meta/v1 schemas a custom resource's document refers to (ObjectMeta, ListMeta, Status, ...), from a built-in document. */
  private metaComponents(): Record<string, unknown> {
    const wanted = ['ObjectMeta', 'ListMeta', 'Status', 'DeleteOptions', 'Patch'].map((k) => `io.k8s.apimachinery.pkg.apis.meta.v1.${k}`);
    for (const document of this.builtInV3?.values() ?? []) {
      const all = ((document.doc.components as Record<string, unknown> | undefined)?.schemas ?? {}) as Record<string, unknown>;
      if (!wanted.every((name) => name in all)) continue;
      const out: Record<string, unknown> = {};
      const queue = [...wanted];
      while (queue.length > 0) {
        const name = queue.pop()!;
        if (name in out || !(name in all)) continue;
        out[name] = all[name];
        collectRefs(all[name], queue, '#/components/schemas/');
      }
      return out;
    }
    return {};
  }

  /** The response for an /openapi path, or undefined when the path is not one. */
  handle(path: string, accept: string | undefined): OpenAPIResponse | undefined {
    if (path !== '/openapi/v2' && path !== '/openapi/v3' && !path.startsWith('/openapi/v3/')) return undefined;
    if (path === '/openapi/v2') return this.v2Response(accept);
    if (!acceptsJson(accept)) throw notAcceptable(['application/json']);
    const docs = this.v3Documents();
    if (path === '/openapi/v3') {
      const paths: Record<string, { serverRelativeURL: string }> = {};
      for (const [gv, doc] of docs) paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${doc.etag}` };
      return json(JSON.stringify({ paths }));
    }
    const doc = docs.get(path.slice('/openapi/v3/'.length));
    return doc ? json(doc.body, doc.etag) : undefined;
  }

  private v2Response(accept: string | undefined): OpenAPIResponse {
    const form = negotiateV2(accept);
    if (!form) throw notAcceptable(['application/json', MEDIA_TYPE_OPENAPI_V2_PROTOBUF]);
    // The generated document is read once; a change of the custom resources only rebuilds what is served.
    const v2 = (this.v2 ??= this.servedV2((this.generatedV2 ??= load(join(GENERATED, 'v2/swagger.json')).doc)));
    // Both forms share the JSON's ETag, as kube-apiserver's do; Vary keeps caches apart.
    if (form === 'json') return json(v2.body, v2.etag, { vary: 'Accept' });
    // Copied into a buffer of its own: protobufjs may hand back a view into a shared pool.
    v2.protobuf ??= new Uint8Array(encodeOpenAPIV2(v2.doc));
    return {
      status: 200,
      headers: { 'content-type': MEDIA_TYPE_OPENAPI_V2_PROTOBUF, etag: `"${v2.etag}"`, vary: 'Accept' },
      body: v2.protobuf,
    };
  }
}

/** Every `$ref` target name below a value (`#/definitions/<name>`, or below `prefix`). */
function collectRefs(value: unknown, into: string[], prefix = '#/definitions/'): void {
  if (Array.isArray(value)) for (const v of value) collectRefs(v, into, prefix);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(prefix)) into.push(v.slice(prefix.length));
      else collectRefs(v, into, prefix);
    }
  }
}

function json(body: string, etag?: string, extra: Record<string, string> = {}): OpenAPIResponse {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extra };
  if (etag) headers.etag = `"${etag}"`;
  return { status: 200, headers, body };
}
