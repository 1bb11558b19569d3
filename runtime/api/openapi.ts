// /openapi/v2 and /openapi/v3 from the generated documents, in the forms kubectl asks for:
// v3 is an index of group versions, each with a serverRelativeURL carrying a content hash, then
// one document per group version. Documents are read on first use (start-up stays fast) and
// served as JSON; the protobuf form of v2 is not offered, so a client asking only for it gets 406
// and falls back, as kubectl's client-side apply does.

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { notAcceptable } from '../errors/status-error.js';
import { parseAccept } from './negotiation.js';

const GENERATED = new URL('../../generated/openapi/', import.meta.url).pathname;

export interface OpenAPIResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface Document {
  body: string;
  etag: string;
}

function load(path: string): Document {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  delete doc['//'];
  const body = JSON.stringify(doc);
  return { body, etag: createHash('sha512').update(body).digest('hex').toUpperCase() };
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
    if (!acceptsJson(accept)) throw notAcceptable(['application/json']);
    if (path === '/openapi/v2') {
      this.v2 ??= load(join(GENERATED, 'v2/swagger.json'));
      return json(this.v2.body, this.v2.etag);
    }
    const docs = this.v3Documents();
    if (path === '/openapi/v3') {
      const paths: Record<string, { serverRelativeURL: string }> = {};
      for (const [gv, doc] of docs) paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${doc.etag}` };
      return json(JSON.stringify({ paths }));
    }
    const doc = docs.get(path.slice('/openapi/v3/'.length));
    return doc ? json(doc.body, doc.etag) : undefined;
  }
}

function json(body: string, etag?: string): OpenAPIResponse {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (etag) headers.etag = `"${etag}"`;
  return { status: 200, headers, body };
}
