// The one place the lifecycle table (generated/lifecycle.ts) turns into serving decisions at the
// server's own release (version.ts): which beta resources are on by default, which versions are
// removed (never served, whatever --runtime-config says), and which served endpoints are
// deprecated (their requests warn; filters/deprecation.ts).

import { deprecationWarning, enabledByDefault, parseRelease, reached, type GroupVersionLifecycle, type KindLifecycle, type Release } from '../machinery/lifecycle.js';
import { deprecatedResourceKey, type DeprecatedResource } from './filters/deprecation.js';
import type { LifecycleDefaults } from './runtime-config.js';
import { KUBERNETES_MAJOR, KUBERNETES_MINOR } from './version.js';

export const SERVER_RELEASE: Release = parseRelease(`${KUBERNETES_MAJOR}.${KUBERNETES_MINOR}`);

/** A served kind as the lifecycle needs it: the registry's definition. */
export interface ServedKind {
  group: string;
  version: string;
  kind: string;
  plural: string;
  subresources: { name: string; kind: string; group?: string; version?: string }[];
}

export class APILifecycle {
  private readonly byKind = new Map<string, KindLifecycle>();

  constructor(
    private readonly groupVersions: readonly GroupVersionLifecycle[],
    kinds: readonly KindLifecycle[],
    readonly release: Release = SERVER_RELEASE,
  ) {
    for (const k of kinds) this.byKind.set(`${k.group}/${k.version}/${k.kind}`, k);
  }

  lifecycleOf(group: string, version: string, kind: string): KindLifecycle | undefined {
    return this.byKind.get(`${group}/${version}/${kind}`);
  }

  /** Removed by this release: not served, whatever --runtime-config says. */
  isRemoved(group: string, version: string, kind: string): boolean {
    return reached(this.lifecycleOf(group, version, kind)?.removed, this.release);
  }

  runtimeConfigDefaults(): LifecycleDefaults {
    const legacyBetaResources = [...this.byKind.values()]
      .filter((k) => /beta/.test(k.version) && !reached(k.removed, this.release) && enabledByDefault(k.version, k.introduced))
      .map((k) => `${k.group ? `${k.group}/` : ''}${k.version}/${k.resource}`);
    const removed = this.groupVersions.filter((gv) => reached(gv.removed, this.release)).map(({ group, version }) => ({ group, version }));
    return { legacyBetaResources, removed };
  }

  /**
   * The deprecated endpoints among the served kinds: the kind's own, and its subresources that
   * take and return the kind itself (kube warns from the type each route serves).
   */
  deprecatedResources(served: readonly ServedKind[]): Map<string, DeprecatedResource> {
    const out = new Map<string, DeprecatedResource>();
    for (const d of served) {
      const lc = this.lifecycleOf(d.group, d.version, d.kind);
      if (!lc || !reached(lc.deprecated, this.release)) continue;
      const entry = { warning: deprecationWarning(lc), removedRelease: lc.removed ?? '' };
      out.set(deprecatedResourceKey(d.group, d.version, d.plural), entry);
      for (const sub of d.subresources) {
        if (sub.kind === d.kind && sub.group === undefined) out.set(deprecatedResourceKey(d.group, d.version, d.plural, sub.name), entry);
      }
    }
    return out;
  }
}
