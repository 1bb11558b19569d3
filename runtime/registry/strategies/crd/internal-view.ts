// kube validates a CRD in its internal form, which v1's conversion builds: a schema, subresources,
// printer columns or selectable fields that every version has alike (a single version always)
// move to the top level of the spec and leave the versions, so kube reports them at
// `spec.validation.openAPIV3Schema`, `spec.subresources`, `spec.additionalPrinterColumns[i]`
// and `spec.selectableFields`; only differing ones stay at `spec.versions[i]`. The webhook of
// the conversion is flattened too (`spec.conversion.webhookClientConfig`).

import { deepEqual } from '../../../machinery/deep-equal.js';
import { asObject, asList } from '../../../machinery/object.js';
import type { JsonObject } from '../../../machinery/json-values.js';

/** The per-version members that conversion may lift. */
export type PerVersionMember = 'schema' | 'subresources' | 'additionalPrinterColumns' | 'selectableFields';

export interface InternalSpec {
  /** The versions with the lifted members removed. */
  versions: JsonObject[];
  /** Whether `versions` was absent (Go's nil slice). */
  versionsNil: boolean;
  /** The lifted members, present when every version has the same value. */
  top: Partial<Record<PerVersionMember, unknown>>;
}

/** Go's Semantic.DeepEqual sees no difference between an absent, null or empty list. */
function sameValue(a: unknown, b: unknown): boolean {
  const empty = (v: unknown): boolean => v === undefined || v === null || (Array.isArray(v) && v.length === 0);
  if (empty(a) && empty(b)) return true;
  return deepEqual(a ?? null, b ?? null);
}

const MEMBERS: readonly PerVersionMember[] = ['schema', 'subresources', 'additionalPrinterColumns', 'selectableFields'];

export function internalSpec(spec: JsonObject): InternalSpec {
  const versions = asList(spec.versions).map((v) => ({ ...asObject(v) }));
  const top: InternalSpec['top'] = {};
  if (versions.length > 0) {
    for (const member of MEMBERS) {
      const first = versions[0][member];
      if (!versions.every((v) => sameValue(v[member], first))) continue;
      if (first !== undefined && first !== null) top[member] = first;
      for (const v of versions) delete v[member];
    }
  }
  return { versions, versionsNil: !Array.isArray(spec.versions), top };
}

/** The version's subresources as the internal form resolves them: its own, else the lifted ones. */
export function subresourcesOf(internal: InternalSpec, version: JsonObject): JsonObject | undefined {
  const own = version.subresources ?? internal.top.subresources;
  return own === undefined || own === null ? undefined : asObject(own);
}
