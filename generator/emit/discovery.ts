// Emits generated/discovery/: the APIResourceList of each group version (api__v1.json,
// apis__<group>__<version>.json), the APIVersions of /api, the APIGroupList of /apis, the
// aggregated discovery (apidiscovery.k8s.io/v2) documents of /api and /apis, and
// feature-gates.json naming the gate of each gated resource, which the runtime uses to drop
// entries whose gate is off (the documents themselves list every resource).

import type { GroupVersionModel, KindModel, Model } from '../model.js';
import { groupVersionString } from '../model.js';
import { jsonWithHeader, type OutputFile } from '../output.js';

const fileName = (gv: { group: string; version: string }): string => (gv.group ? `apis__${gv.group}__${gv.version}.json` : `api__${gv.version}.json`);

function resourceEntries(k: KindModel): Record<string, unknown>[] {
  const main: Record<string, unknown> = {
    name: k.plural,
    singularName: k.singular,
    namespaced: k.namespaced,
    kind: k.kind,
    verbs: k.verbs,
  };
  if (k.shortNames.length) main.shortNames = k.shortNames;
  if (k.categories.length) main.categories = k.categories;
  if (k.storageVersionHash) main.storageVersionHash = k.storageVersionHash;
  const subs = k.subresources.map((s) => ({
    name: `${k.plural}/${s.name}`,
    singularName: '',
    namespaced: k.namespaced,
    ...(s.group !== undefined ? { group: s.group, version: s.version } : {}),
    kind: s.kind,
    verbs: s.verbs,
  }));
  return [main, ...subs];
}

function resourceList(gv: GroupVersionModel): Record<string, unknown> {
  const resources = gv.kinds.flatMap(resourceEntries).sort((a, b) => String(a.name).localeCompare(String(b.name)));
  // The core list has no apiVersion; group lists say v1 (as kube-apiserver serves them).
  return { kind: 'APIResourceList', ...(gv.group ? { apiVersion: 'v1' } : {}), groupVersion: groupVersionString(gv), resources };
}

/** Group versions of each named group, newest-preferred first (stable > beta > alpha, then by number). */
function groups(model: Model): Map<string, GroupVersionModel[]> {
  const rank = (v: string): [number, number, number] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    const stage = m?.[2] === 'alpha' ? 0 : m?.[2] === 'beta' ? 1 : 2;
    return [stage, Number(m?.[1] ?? 0), Number(m?.[3] ?? 0)];
  };
  const byGroup = new Map<string, GroupVersionModel[]>();
  for (const gv of model.groupVersions) byGroup.set(gv.group, [...(byGroup.get(gv.group) ?? []), gv]);
  for (const list of byGroup.values()) {
    list.sort((a, b) => {
      const [ra, rb] = [rank(a.version), rank(b.version)];
      return rb[0] - ra[0] || rb[1] - ra[1] || rb[2] - ra[2];
    });
  }
  return byGroup;
}

function aggregatedGroup(group: string, versions: GroupVersionModel[]): Record<string, unknown> {
  return {
    metadata: group ? { name: group, creationTimestamp: null } : { creationTimestamp: null },
    versions: versions.map((gv) => ({
      version: gv.version,
      resources: [...gv.kinds]
        .sort((a, b) => a.plural.localeCompare(b.plural))
        .map((k) => ({
          resource: k.plural,
          responseKind: { group: k.group, version: k.version, kind: k.kind },
          scope: k.namespaced ? 'Namespaced' : 'Cluster',
          singularResource: k.singular,
          verbs: k.verbs,
          ...(k.shortNames.length ? { shortNames: k.shortNames } : {}),
          ...(k.categories.length ? { categories: k.categories } : {}),
          ...(k.subresources.length
            ? {
                subresources: k.subresources.map((s) => ({
                  subresource: s.name,
                  responseKind: { group: s.group ?? k.group, version: s.version ?? k.version, kind: s.kind },
                  verbs: s.verbs,
                })),
              }
            : {}),
        })),
      freshness: 'Current',
    })),
  };
}

export function emitDiscovery(model: Model): OutputFile[] {
  const files = model.files;
  const out: OutputFile[] = model.groupVersions.map((gv) => ({ path: `discovery/${fileName(gv)}`, content: jsonWithHeader([gv.specFile], resourceList(gv)) }));
  const byGroup = groups(model);
  const core = byGroup.get('') ?? [];
  out.push({
    path: 'discovery/api.json',
    // serverAddressByClientCIDRs depends on where the server listens; the runtime fills it in.
    content: jsonWithHeader(files, { kind: 'APIVersions', versions: core.map((gv) => gv.version), serverAddressByClientCIDRs: [] }),
  });
  const named = [...byGroup.entries()].filter(([g]) => g !== '');
  out.push({
    path: 'discovery/apis.json',
    content: jsonWithHeader(files, {
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: named.map(([group, versions]) => {
        const gvs = versions.map((gv) => ({ groupVersion: groupVersionString(gv), version: gv.version }));
        return { name: group, versions: gvs, preferredVersion: gvs[0] };
      }),
    }),
  });
  const list = (items: Record<string, unknown>[]): Record<string, unknown> => ({
    kind: 'APIGroupDiscoveryList',
    apiVersion: 'apidiscovery.k8s.io/v2',
    metadata: {},
    items,
  });
  out.push({ path: 'discovery/aggregated/api.json', content: jsonWithHeader(files, list(core.length ? [aggregatedGroup('', core)] : [])) });
  out.push({ path: 'discovery/aggregated/apis.json', content: jsonWithHeader(files, list(named.map(([g, v]) => aggregatedGroup(g, v)))) });
  const gates: Record<string, string> = {};
  for (const gv of model.groupVersions) for (const k of gv.kinds) if (k.featureGate) gates[`${groupVersionString(gv)}/${k.plural}`] = k.featureGate;
  out.push({ path: 'discovery/feature-gates.json', content: jsonWithHeader(files, { resources: gates }) });
  return out;
}
