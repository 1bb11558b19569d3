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
    const served = { ...doc, paths: kept, definitions: Object.fromEntries(Object.entries(definitions).filter(([name]) => reachable.has(name))) };
    const body = JSON.stringify(served);
    return { doc: served, body, etag: createHash('sha512').update(body).digest('hex').toUpperCase() };
  }

  private v3Documents(): Map<string, Document> {
    if (!this.v3) {
      this.v3 = new Map();
      const dir = join(GENERATED, 'v3');
      for (const file of existsSync(dir) ? readdirSync(dir).sort() : []) {
        const gv = file.replace(/\.json$/, '').split('__').join('/');
        if (this.servedGroupVersions.has(gv)) this.v3.set(gv, load(join(dir, file)));
      }
    }
    return this.v3;
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
    const v2 = (this.v2 ??= this.servedV2(load(join(GENERATED, 'v2/swagger.json')).doc));
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

/** Every `$ref` target name below a value (`#/definitions/<name>`). */
function collectRefs(value: unknown, into: string[]): void {
  if (Array.isArray(value)) for (const v of value) collectRefs(v, into);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith('#/definitions/')) into.push(v.slice('#/definitions/'.length));
      else collectRefs(v, into);
    }
  }
}

function json(body: string, etag?: string, extra: Record<string, string> = {}): OpenAPIResponse {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...extra };
  if (etag) headers.etag = `"${etag}"`;
  return { status: 200, headers, body };
}
