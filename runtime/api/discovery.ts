// Discovery: /api, /apis, /api/v1, /apis/<group>, /apis/<group>/<version>, in the legacy forms and,
// when the client asks for it, as aggregated discovery (apidiscovery.k8s.io v2, and v2beta1 for
// kubectl 1.27-1.29). The documents are generated; here they are only filtered to what this
// server serves (feature-gated resources drop out) and negotiated.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAccept } from './negotiation.js';
import { generatedPath } from '../generated-files.js';

type Json = Record<string, unknown>;

export interface DiscoveryResponse {
  status: number;
  contentType: string;
  body: string;
}

/** Whether a resource (a plural, or `plural/subresource`) of a group version is served. */
export type ServedFilter = (group: string, version: string, resource: string) => boolean;

const GENERATED = generatedPath('discovery/');
const AGGREGATED_VERSIONS = ['v2', 'v2beta1'];

function load(file: string): Json {
  const doc = JSON.parse(readFileSync(join(GENERATED, file), 'utf8')) as Json;
  delete doc['//'];
  return doc;
}

/** Which aggregated version the Accept header asks for first, or undefined for the legacy form. */
function aggregatedVersion(accept: string | undefined): string | undefined {
  if (!accept) return undefined;
  for (const clause of parseAccept(accept)) {
    const json = clause.type === 'application' && clause.subType === 'json';
    const any = (clause.type === '*' || clause.type === 'application') && clause.subType === '*';
    if (json && clause.params.as === 'APIGroupDiscoveryList' && clause.params.g === 'apidiscovery.k8s.io') {
      if (AGGREGATED_VERSIONS.includes(clause.params.v)) return clause.params.v;
      continue;
    }
    if ((json && !clause.params.as) || any) return undefined;
  }
  return undefined;
}

export class Discovery {
  private readonly bodies = new Map<string, string>();
  private readonly aggregated = new Map<string, Json>();

  constructor(served: ServedFilter) {
    const resourceLists = new Map<string, Json>();
    for (const file of readdirSync(GENERATED)) {
      const m = /^(api__v1|apis__(.+)__(.+))\.json$/.exec(file);
      if (!m) continue;
      const group = m[2] ?? '';
      const version = m[3] ?? 'v1';
      const list = load(file);
      list.resources = (list.resources as Json[]).filter((r) => served(group, version, r.name as string));
      if ((list.resources as Json[]).length > 0) resourceLists.set(group ? `${group}/${version}` : version, list);
    }

    for (const [groupVersion, list] of resourceLists) {
      this.bodies.set(groupVersion.includes('/') ? `/apis/${groupVersion}` : `/api/${groupVersion}`, JSON.stringify(list));
    }
    const apiVersions = load('api.json');
    apiVersions.versions = (apiVersions.versions as string[]).filter((v) => resourceLists.has(v));
    this.bodies.set('/api', JSON.stringify(apiVersions));

    const groupList = load('apis.json');
    groupList.groups = (groupList.groups as Json[])
      .map((g) => {
        const versions = (g.versions as Json[]).filter((v) => resourceLists.has(v.groupVersion as string));
        const preferred = versions.find((v) => v.version === (g.preferredVersion as Json).version) ?? versions[0];
        return { ...g, versions, preferredVersion: preferred };
      })
      .filter((g) => g.versions.length > 0);
    for (const g of groupList.groups as Json[]) {
      this.bodies.set(`/apis/${g.name}`, JSON.stringify({ kind: 'APIGroup', apiVersion: 'v1', ...g }));
    }
    this.bodies.set('/apis', JSON.stringify(groupList));

    for (const [path, file] of [['/api', 'aggregated/api.json'], ['/apis', 'aggregated/apis.json']] as const) {
      const doc = load(file);
      doc.items = (doc.items as Json[])
        .map((item) => {
          const group = ((item.metadata as Json | undefined)?.name as string | undefined) ?? '';
          const versions = (item.versions as Json[])
            .map((v) => ({
              ...v,
              resources: (v.resources as Json[]).filter((r) => served(group, v.version as string, r.resource as string)),
            }))
            .filter((v) => v.resources.length > 0);
          return { ...item, versions };
        })
        .filter((item) => item.versions.length > 0);
      this.aggregated.set(path, doc);
    }
  }

  /** The response for a discovery path, or undefined when the path is not a discovery document. */
  handle(path: string, accept: string | undefined): DiscoveryResponse | undefined {
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const aggregated = this.aggregated.get(trimmed);
    const version = aggregated ? aggregatedVersion(accept) : undefined;
    if (aggregated && version) {
      return {
        status: 200,
        contentType: `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`,
        body: JSON.stringify({ ...aggregated, apiVersion: `apidiscovery.k8s.io/${version}` }),
      };
    }
    const body = this.bodies.get(trimmed);
    return body === undefined ? undefined : { status: 200, contentType: 'application/json', body };
  }
}
