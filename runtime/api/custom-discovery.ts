// The discovery documents of custom resources' groups, as kube's customresource_discovery_controller
// writes them: per group version an APIResourceList (resources by name; status and scale as
// `<plural>/status`, `<plural>/scale`), per group an APIGroup with its versions in kube's version
// order (the first preferred), and the aggregated (apidiscovery v2) form of the same.

import { compareKubeAwareVersions } from '../machinery/version-priority.js';
import type { ResourceDefinition } from '../registry/definition.js';

type Json = Record<string, unknown>;

export interface CustomGroupDocuments {
  /** `/apis/<group>` and `/apis/<group>/<version>` documents. */
  documents: Map<string, Json>;
  /** APIGroup entries of /apis, by group name. */
  groups: Json[];
  /** APIGroupDiscovery items of the aggregated /apis. */
  aggregated: Json[];
}

const STATUS_VERBS = ['get', 'patch', 'update'];

function legacyResources(def: ResourceDefinition): Json[] {
  const resource: Json = {
    name: def.plural,
    singularName: def.singular,
    namespaced: def.namespaced,
    kind: def.kind,
    verbs: def.verbs,
    ...(def.shortNames.length ? { shortNames: def.shortNames } : {}),
    ...(def.categories.length ? { categories: def.categories } : {}),
    storageVersionHash: def.storageVersionHash,
  };
  const subresources = def.subresources.map((sub) => ({
    name: `${def.plural}/${sub.name}`,
    singularName: '',
    namespaced: def.namespaced,
    ...(sub.group !== undefined ? { group: sub.group, version: sub.version } : {}),
    kind: sub.kind,
    verbs: sub.verbs.length ? sub.verbs : STATUS_VERBS,
  }));
  return [resource, ...subresources];
}

function aggregatedResource(def: ResourceDefinition): Json {
  return {
    resource: def.plural,
    responseKind: { group: def.group, version: def.version, kind: def.kind },
    scope: def.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: def.singular,
    verbs: def.verbs,
    ...(def.shortNames.length ? { shortNames: def.shortNames } : {}),
    ...(def.categories.length ? { categories: def.categories } : {}),
    ...(def.subresources.length
      ? {
          subresources: def.subresources.map((sub) => ({
            subresource: sub.name,
            responseKind: { group: sub.group ?? def.group, version: sub.version ?? def.version, kind: sub.kind },
            verbs: sub.verbs,
          })),
        }
      : {}),
  };
}

export function customGroupDocuments(definitions: readonly ResourceDefinition[]): CustomGroupDocuments {
  const byGroup = new Map<string, Map<string, ResourceDefinition[]>>();
  for (const def of definitions) {
    const versions = byGroup.get(def.group) ?? new Map<string, ResourceDefinition[]>();
    byGroup.set(def.group, versions);
    versions.set(def.version, [...(versions.get(def.version) ?? []), def]);
  }
  const out: CustomGroupDocuments = { documents: new Map(), groups: [], aggregated: [] };
  for (const group of [...byGroup.keys()].sort()) {
    const versions = byGroup.get(group)!;
    const ordered = [...versions.keys()].sort(compareKubeAwareVersions);
    const groupVersions = ordered.map((version) => ({ groupVersion: `${group}/${version}`, version }));
    const apiGroup = { name: group, versions: groupVersions, preferredVersion: groupVersions[0] };
    out.groups.push(apiGroup);
    out.documents.set(`/apis/${group}`, { kind: 'APIGroup', apiVersion: 'v1', ...apiGroup });
    const aggregatedVersions: Json[] = [];
    for (const version of ordered) {
      const defs = [...versions.get(version)!].sort((a, b) => (a.plural < b.plural ? -1 : a.plural > b.plural ? 1 : 0));
      out.documents.set(`/apis/${group}/${version}`, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: `${group}/${version}`,
        resources: defs.flatMap(legacyResources),
      });
      aggregatedVersions.push({ version, resources: defs.map(aggregatedResource), freshness: 'Current' });
    }
    out.aggregated.push({ metadata: { name: group, creationTimestamp: null }, versions: aggregatedVersions });
  }
  return out;
}

/**
 * The versions CRDs add to a group built-in kinds serve, as kube-apiserver's aggregator shows
 * them: each CRD version is an APIService of version priority 100 (crdregistration controller;
 * its CRD source in the aggregated discovery manager gets the same), above every built-in
 * version's (at most a few dozen), so the CRD versions lead the group (the first is the
 * preferred version) and the built-in ones follow. A group version built-in kinds serve stays
 * theirs (no APIService is made for it; the built-in source wins in aggregated discovery). The
 * added versions' own documents are not served: kube-apiserver's web service of the group
 * answers every path below it, so those paths are 404 there, as here.
 */
export function withCustomVersions(builtIn: { groups: Json[]; aggregated: Json[] }, custom: CustomGroupDocuments): { groups: Json[]; aggregated: Json[] } {
  const added = new Map(custom.groups.map((g) => [g.name as string, g]));
  const addedAggregated = new Map(custom.aggregated.map((item) => [(item.metadata as Json).name as string, item]));
  const groups = builtIn.groups.map((g) => {
    const extra = added.get(g.name as string);
    if (!extra) return g;
    const versions = [...(extra.versions as Json[]), ...(g.versions as Json[])];
    return { ...g, versions, preferredVersion: versions[0] };
  });
  const aggregated = builtIn.aggregated.map((item) => {
    const extra = addedAggregated.get((item.metadata as Json).name as string);
    return extra ? { ...item, versions: [...(extra.versions as Json[]), ...(item.versions as Json[])] } : item;
  });
  return { groups, aggregated };
}
