// Conversion between the form a kind is served in and the form it is stored in, for kinds whose
// objects are kept as another group version's kind (ResourceDefinition.storedAs): kube-apiserver
// stores events.k8s.io/v1 Events as core/v1 Events, so that both endpoints read, write and watch
// the same objects. The conversion renames top-level fields; everything else (metadata included)
// is shared as it is. Kinds without storedAs are stored in their own form.

import type { ResourceDefinition } from './definition.js';
import type { KubeObject } from './object.js';

function renamed(obj: KubeObject, renames: Record<string, string>): KubeObject {
  const out: KubeObject = {};
  for (const [key, value] of Object.entries(obj)) out[renames[key] ?? key] = value;
  return out;
}

const inverted = new WeakMap<Record<string, string>, Record<string, string>>();

function inverse(renames: Record<string, string>): Record<string, string> {
  let back = inverted.get(renames);
  if (!back) {
    back = Object.fromEntries(Object.entries(renames).map(([served, stored]) => [stored, served]));
    inverted.set(renames, back);
  }
  return back;
}

/** The stored form of a served object (a shallow copy; apiVersion names the stored version). */
export function toStoredForm(def: ResourceDefinition, obj: KubeObject, servedApiVersion: string): KubeObject {
  if (!def.storedAs) return { ...obj, apiVersion: servedApiVersion, kind: def.kind };
  const out = renamed(obj, def.storedAs.fieldRenames);
  out.apiVersion = def.storedAs.apiVersion;
  out.kind = def.kind;
  return out;
}

/** The served form of a stored object (shallow: nested values are shared with `stored`). */
export function fromStoredForm(def: ResourceDefinition, stored: KubeObject): KubeObject {
  if (!def.storedAs) return stored;
  return renamed(stored, inverse(def.storedAs.fieldRenames));
}
