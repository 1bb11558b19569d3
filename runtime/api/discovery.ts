// Discovery: /api, /apis, /api/v1, /apis/<group>, /apis/<group>/<version>, in the legacy forms and,
// when the client asks for it, as aggregated discovery (apidiscovery.k8s.io v2, and v2beta1 for
// kubectl 1.27-1.29). The documents are generated; here they are only filtered to what this
// server serves (feature-gated resources drop out) and negotiated as kube-apiserver negotiates
// them: the first Accept clause that names an aggregated kind picks the aggregated document, and
// otherwise the legacy document goes out as JSON, YAML or protobuf (meta/v1 APIVersions,
// APIGroupList, APIGroup, APIResourceList), with no transformation honoured, or 406.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isStatusError } from '../errors/status-error.js';
import { negotiateOutput, selectOutput, type ConvertTarget, type Format } from './negotiation.js';
import type { RootSource } from './protobuf/descriptors.js';
import type { JsonObject } from './protobuf/message-plan.js';
import { encodeJSON, responseEncoder } from './serializers.js';
import { generatedPath } from '../generated-files.js';
import type { ResourceDefinition } from '../registry/definition.js';
import { customGroupDocuments, withCustomVersions } from './custom-discovery.js';

type Json = Record<string, unknown>;

export interface DiscoveryResponse {
  status: number;
  contentType: string;
  body: string | Uint8Array;
}

/** Whether a resource (a plural, or `plural/subresource`) of a group version is served. */
export type ServedFilter = (group: string, version: string, resource: string) => boolean;

const GENERATED = generatedPath('discovery/');
const AGGREGATED_VERSIONS = ['v2', 'v2beta1'];
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/**
 * kube-apiserver's DiscoveryEndpointRestrictions: only the aggregated kinds may be asked for. We
 * have no protobuf messages of apidiscovery.k8s.io, so an aggregated clause is honoured as JSON only.
 */
const aggregatedOnly = (t: ConvertTarget, format: Format): boolean =>
  format === 'json' && t.kind === 'APIGroupDiscoveryList' && t.group === 'apidiscovery.k8s.io' && AGGREGATED_VERSIONS.includes(t.version);

/** The legacy documents honour no transformation (kube-apiserver's DefaultEndpointRestrictions). */
const noConversion = (): boolean => false;

/** The meta/v1 message of a legacy document, from the shape of its path. */
function messageFor(path: string): string {
  if (path === '/api') return `${META}.APIVersions`;
  if (path === '/apis') return `${META}.APIGroupList`;
  // /apis/<group> names a group; /api/v1 and /apis/<group>/<version> list resources.
  return path.startsWith('/apis/') && path.split('/').length === 3 ? `${META}.APIGroup` : `${META}.APIResourceList`;
}

function load(file: string): Json {
  const doc = JSON.parse(readFileSync(join(GENERATED, file), 'utf8')) as Json;
  delete doc['//'];
  return doc;
}

export class Discovery {
  private documents = new Map<string, Json>();
  private aggregated = new Map<string, Json>();
  /** The built-in documents, which custom resources are added to. */
  private readonly builtInDocuments: ReadonlyMap<string, Json>;
  private readonly builtInAggregated: ReadonlyMap<string, Json>;

  /** `root`: the protobuf descriptors; without them the legacy documents are JSON and YAML only. */
  constructor(
    served: ServedFilter,
    private readonly root?: RootSource,
  ) {
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
      this.documents.set(groupVersion.includes('/') ? `/apis/${groupVersion}` : `/api/${groupVersion}`, list);
    }
    const apiVersions = load('api.json');
    apiVersions.versions = (apiVersions.versions as string[]).filter((v) => resourceLists.has(v));
    this.documents.set('/api', apiVersions);

    const groupList = load('apis.json');
    groupList.groups = (groupList.groups as Json[])
      .map((g) => {
        const versions = (g.versions as Json[]).filter((v) => resourceLists.has(v.groupVersion as string));
        const preferred = versions.find((v) => v.version === (g.preferredVersion as Json).version) ?? versions[0];
        return { ...g, versions, preferredVersion: preferred };
      })
      .filter((g) => g.versions.length > 0);
    for (const g of groupList.groups as Json[]) {
      this.documents.set(`/apis/${g.name}`, { kind: 'APIGroup', apiVersion: 'v1', ...g });
    }
    this.documents.set('/apis', groupList);

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
    this.builtInDocuments = this.documents;
    this.builtInAggregated = this.aggregated;
  }

  /**
   * The documents from now on: the built-in ones plus the groups of the custom resources served
   * now (kube's customresource_discovery_controller, which follows the Established CRDs). Built
   * once per change; requests only look documents up.
   */
  setCustomResources(definitions: readonly ResourceDefinition[]): void {
    const documents = new Map(this.builtInDocuments);
    const aggregated = new Map(this.builtInAggregated);
    const builtInGroups = new Set(((this.builtInDocuments.get('/apis')?.groups ?? []) as Json[]).map((g) => g.name as string));
    const inBuiltInGroups = definitions.filter((d) => builtInGroups.has(d.group));
    if (inBuiltInGroups.length > 0) {
      const merged = withCustomVersions(
        { groups: documents.get('/apis')!.groups as Json[], aggregated: aggregated.get('/apis')!.items as Json[] },
        customGroupDocuments(inBuiltInGroups),
      );
      documents.set('/apis', { ...documents.get('/apis')!, groups: merged.groups });
      for (const g of merged.groups) documents.set(`/apis/${g.name as string}`, { kind: 'APIGroup', apiVersion: 'v1', ...g });
      aggregated.set('/apis', { ...aggregated.get('/apis')!, items: merged.aggregated });
    }
    const custom = customGroupDocuments(definitions.filter((d) => !builtInGroups.has(d.group)));
    if (custom.groups.length > 0) {
      for (const [path, doc] of custom.documents) documents.set(path, doc);
      const groupList = documents.get('/apis')!;
      documents.set('/apis', { ...groupList, groups: [...(groupList.groups as Json[]), ...custom.groups] });
      const aggregatedGroups = aggregated.get('/apis')!;
      aggregated.set('/apis', { ...aggregatedGroups, items: [...(aggregatedGroups.items as Json[]), ...custom.aggregated] });
    }
    this.documents = documents;
    this.aggregated = aggregated;
  }

  /**
   * The response for a discovery path, or undefined when the path is not a discovery document.
   * `pretty`: ?pretty or a curl-like user agent, as for every other response.
   */
  handle(path: string, accept: string | undefined, pretty = false): DiscoveryResponse | undefined {
    const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
    const aggregated = this.aggregated.get(trimmed);
    // The first clause the discovery endpoints can serve decides whether the aggregated form is meant.
    const version = aggregated ? selectOutput(accept, { allowsConvert: aggregatedOnly, protobufSupported: this.root !== undefined })?.convert?.version : undefined;
    if (aggregated && version) {
      return {
        status: 200,
        contentType: `application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`,
        body: encodeJSON({ ...aggregated, apiVersion: `apidiscovery.k8s.io/${version}` }, pretty),
      };
    }
    const doc = this.documents.get(trimmed);
    if (doc === undefined) return undefined;
    try {
      const negotiated = negotiateOutput(accept, { allowsConvert: noConversion, protobufSupported: this.root !== undefined, pretty });
      const body = responseEncoder(negotiated, this.root).encode(doc as JsonObject, messageFor(trimmed));
      return { status: 200, contentType: negotiated.contentType, body };
    } catch (err) {
      // kube-apiserver writes a negotiation failure as an indented JSON Status (WriteRawJSON), whatever was asked for.
      if (!isStatusError(err)) throw err;
      return { status: err.code, contentType: 'application/json', body: encodeJSON(err.toStatus(), true) };
    }
  }
}
