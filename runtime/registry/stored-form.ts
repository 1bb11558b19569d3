// Conversion between the form a kind is served in and the form it is stored in, for kinds whose
// objects are kept as another group version's kind (ResourceDefinition.storedAs): kube-apiserver
// stores events.k8s.io/v1 Events as core/v1 Events, so that both endpoints read, write and watch
// the same objects. The conversion renames top-level fields; everything else (metadata included)
// is shared as it is. Kinds without storedAs are stored in their own form.

import type { ResourceDefinition } from './definition.js';
import type { KubeObject } from '../machinery/object.js';
import { getMember, setMember } from '../machinery/own-member.js';

/** A name looked up among the table's own entries: `__proto__` or `constructor` must not find Object.prototype's. */
const lookup = (table: Record<string, string>, key: string): string | undefined => getMember(table, key) as string | undefined;

function renamed(obj: KubeObject, renames: Record<string, string>): KubeObject {
  const out: KubeObject = {};
  for (const [key, value] of Object.entries(obj)) setMember(out, lookup(renames, key) ?? key, value);
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

/** The group of the form objects are stored in: the kind's own unless it is stored as another's. */
export function storedGroup(def: ResourceDefinition): string {
  if (!def.storedAs) return def.group;
  const slash = def.storedAs.apiVersion.indexOf('/');
  return slash < 0 ? '' : def.storedAs.apiVersion.slice(0, slash);
}

/** The served form of a stored object (shallow: nested values are shared with `stored`). */
export function fromStoredForm(def: ResourceDefinition, stored: KubeObject): KubeObject {
  if (!def.storedAs) return stored;
  return renamed(stored, inverse(def.storedAs.fieldRenames));
}

/**
 * The versions of each kind that share a stored form, by `<apiVersion>/<kind>`: the renames of
 * the view (served name to stored name; none for the stored version itself). Filled from the
 * definitions a registry serves; the field manager reads it to compare ownership recorded through
 * one view with a write through another.
 */
const views = new Map<string, Record<string, string>>();

export function registerStoredViews(definitions: readonly ResourceDefinition[]): void {
  for (const def of definitions) {
    if (!def.storedAs) continue;
    const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
    views.set(`${apiVersion}/${def.kind}`, def.storedAs.fieldRenames);
    if (!views.has(`${def.storedAs.apiVersion}/${def.kind}`)) views.set(`${def.storedAs.apiVersion}/${def.kind}`, {});
  }
}

/**
 * A managed field set (FieldsV1 form) of `kind` recorded in one apiVersion, named as another
 * names its fields; unchanged when either version is not a registered view of the kind.
 */
export function convertFieldsV1(kind: string, fieldsV1: Record<string, unknown>, fromApiVersion: string, toApiVersion: string): Record<string, unknown> {
  const from = views.get(`${fromApiVersion}/${kind}`);
  const to = views.get(`${toApiVersion}/${kind}`);
  if (fromApiVersion === toApiVersion || !from || !to) return fieldsV1;
  const back = inverse(to);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fieldsV1)) {
    if (!key.startsWith('f:')) {
      setMember(out, key, value);
      continue;
    }
    const stored = lookup(from, key.slice(2)) ?? key.slice(2);
    out[`f:${lookup(back, stored) ?? stored}`] = value;
  }
  return out;
}
