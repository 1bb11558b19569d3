// The lifecycle of each group version and kind, from the specs' `lifecycle` blocks: a kind takes
// its group version's releases and overrides what it states itself. Alpha and beta versions get
// the defaults kube's prerelease-lifecycle-gen fills: deprecated three minors after introduced,
// removed three minors after deprecated. Stable versions get no defaults.

import type { LoadedSpec } from './load.js';
import type { GroupVersionLifecycleModel, KindLifecycleModel } from './model.js';
import type { RawLifecycle } from './raw-spec.js';

type Fail = (spec: LoadedSpec, path: (string | number)[], problem: string) => void;

const plusThree = (release: string): string => {
  const [major, minor] = release.split('.').map(Number) as [number, number];
  return `${major}.${minor + 3}`;
};

const isPrerelease = (version: string): boolean => /(alpha|beta)/.test(version);

/** Compares `1.x` releases numerically. */
export function compareReleases(a: string, b: string): number {
  const [am, an] = a.split('.').map(Number) as [number, number];
  const [bm, bn] = b.split('.').map(Number) as [number, number];
  return am - bm || an - bn;
}

function withDefaults(version: string, lc: RawLifecycle): { introduced?: string; deprecated?: string; removed?: string } {
  const out: { introduced?: string; deprecated?: string; removed?: string } = {};
  if (lc.introduced) out.introduced = lc.introduced;
  const deprecated = lc.deprecated ?? (isPrerelease(version) && lc.introduced ? plusThree(lc.introduced) : undefined);
  if (deprecated) out.deprecated = deprecated;
  const removed = lc.removed ?? (isPrerelease(version) && deprecated ? plusThree(deprecated) : undefined);
  if (removed) out.removed = removed;
  return out;
}

function parseReplacement(replacement: string, kind: string): { group: string; version: string; kind: string } {
  const [gv, replacementKind] = replacement.split(' ') as [string, string | undefined];
  const slash = gv.indexOf('/');
  return {
    group: slash < 0 ? '' : gv.slice(0, slash),
    version: slash < 0 ? gv : gv.slice(slash + 1),
    kind: replacementKind ?? kind,
  };
}

export function specLifecycles(
  spec: LoadedSpec,
  fail: Fail,
): { groupVersion?: GroupVersionLifecycleModel; kinds: KindLifecycleModel[] } {
  const group = spec.raw.group ?? '';
  const version = spec.raw.version ?? '';
  const served = Object.entries(spec.raw.kinds ?? {}).map(([kind, raw]) => ({
    kind,
    path: ['kinds', kind],
    resource: raw.plural,
    namespaced: raw.scope === 'Namespaced',
    own: raw.lifecycle ?? {},
  }));
  const removed = Object.entries(spec.raw.removedKinds ?? {}).map(([kind, raw]) => ({
    kind,
    path: ['removedKinds', kind],
    resource: raw.plural,
    namespaced: raw.scope === 'Namespaced',
    own: raw.lifecycle ?? {},
  }));
  if (!spec.raw.lifecycle) {
    if (served.length || removed.length) fail(spec, [served.length ? 'kinds' : 'removedKinds'], 'a group version with kinds states its lifecycle (at least lifecycle.introduced)');
    return { kinds: [] };
  }
  if (!spec.raw.lifecycle.introduced) fail(spec, ['lifecycle'], 'lifecycle.introduced is required');
  const kinds: KindLifecycleModel[] = [];
  for (const k of [...served, ...removed]) {
    const merged: RawLifecycle = { ...spec.raw.lifecycle, ...k.own };
    // A kind stating only when it came gets its own prerelease defaults, not the group version's.
    if (k.own.introduced && !k.own.deprecated) delete merged.deprecated;
    if (k.own.introduced && !k.own.removed) delete merged.removed;
    const lc = withDefaults(version, merged);
    const isRemovedKind = removed.includes(k);
    if (isRemovedKind && !lc.removed) fail(spec, [...k.path, 'lifecycle'], 'a removed kind states the release it was removed in');
    if (lc.deprecated && lc.introduced && compareReleases(lc.deprecated, lc.introduced) < 0) fail(spec, [...k.path, 'lifecycle'], 'deprecated before introduced');
    if (lc.removed && lc.deprecated && compareReleases(lc.removed, lc.deprecated) < 0) fail(spec, [...k.path, 'lifecycle'], 'removed before deprecated');
    kinds.push({
      group,
      version,
      kind: k.kind,
      resource: k.resource,
      namespaced: k.namespaced,
      introduced: lc.introduced ?? '',
      ...(lc.deprecated ? { deprecated: lc.deprecated } : {}),
      ...(lc.removed ? { removed: lc.removed } : {}),
      ...(merged.replacement ? { replacement: parseReplacement(merged.replacement, k.kind) } : {}),
    });
  }
  // The group version is removed once every kind it had is.
  const allRemoved = kinds.length > 0 && kinds.every((k) => k.removed);
  const removedIn = allRemoved ? kinds.map((k) => k.removed as string).sort(compareReleases).at(-1) : undefined;
  const introducedIn = kinds.map((k) => k.introduced).filter(Boolean).sort(compareReleases)[0] ?? spec.raw.lifecycle.introduced ?? '';
  return { groupVersion: { group, version, introduced: introducedIn, ...(removedIn ? { removed: removedIn } : {}) }, kinds };
}
