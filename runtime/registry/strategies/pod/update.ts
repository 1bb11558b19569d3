// kube-apiserver's rule for updates of a pod's spec through the main resource: only container
// and init container images, activeDeadlineSeconds, additions to tolerations, removals of
// scheduling gates, and terminationGracePeriodSeconds from a negative value to 1 may change.
// Anything else is one Forbidden cause at `spec`, whose message names the updatable fields and
// then shows what differs (kube prints a Go diff of the specs; ours lists the changed fields).

import type { StatusCause } from '../../../errors/status-error.js';
import { forbidden, invalid } from '../../../validation/field-errors.js';
import { asObject, asObjectList, deepClone, deepEqual } from '../../../machinery/object.js';

type Obj = Record<string, unknown>;

export const UPDATABLE_POD_SPEC_FIELDS = [
  '`spec.containers[*].image`',
  '`spec.initContainers[*].image`',
  '`spec.activeDeadlineSeconds`',
  '`spec.tolerations` (only additions to existing tolerations)',
  '`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)',
];

/** Copies the images of `from` onto the containers of `to` that line up by position and name. */
function withImagesOf(to: unknown, from: unknown): unknown {
  const target = asObjectList(to);
  const source = asObjectList(from);
  if (!Array.isArray(to) || target.length !== source.length) return to;
  return target.map((c, i) => (c.name === source[i].name ? { ...c, image: source[i].image } : c));
}

const contains = (outer: Obj[], inner: Obj[]): boolean => inner.every((x) => outer.some((y) => deepEqual(x, y)));

/** The new spec with every permitted change undone; equal to the old spec when the update is allowed. */
export function mungedSpec(spec: Obj, old: Obj): Obj {
  const munged = deepClone(spec);
  munged.containers = withImagesOf(munged.containers, old.containers);
  if (munged.initContainers !== undefined) munged.initContainers = withImagesOf(munged.initContainers, old.initContainers);
  if (munged.activeDeadlineSeconds !== undefined) munged.activeDeadlineSeconds = old.activeDeadlineSeconds;
  if (contains(asObjectList(munged.tolerations), asObjectList(old.tolerations))) munged.tolerations = old.tolerations;
  if (contains(asObjectList(old.schedulingGates), asObjectList(munged.schedulingGates))) munged.schedulingGates = old.schedulingGates;
  if (typeof old.terminationGracePeriodSeconds === 'number' && old.terminationGracePeriodSeconds < 0 && munged.terminationGracePeriodSeconds === 1) {
    munged.terminationGracePeriodSeconds = old.terminationGracePeriodSeconds;
  }
  for (const key of Object.keys(munged)) if (munged[key] === undefined) delete munged[key];
  return munged;
}

/** activeDeadlineSeconds may be set, or lowered, but never raised or unset once set. */
function activeDeadlineCauses(spec: Obj, old: Obj): StatusCause[] {
  const now = spec.activeDeadlineSeconds;
  const before = old.activeDeadlineSeconds;
  if (typeof now === 'number' && typeof before === 'number' && before < now) {
    return [invalid('spec.activeDeadlineSeconds', now, 'must be less than or equal to previous value')];
  }
  if (now === undefined && typeof before === 'number') {
    return [invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value')];
  }
  return [];
}

export function podSpecUpdateCauses(spec: unknown, oldSpec: unknown): StatusCause[] {
  const deadline = activeDeadlineCauses(asObject(spec), asObject(oldSpec));
  if (deadline.length) return deadline;
  const munged = mungedSpec(asObject(spec), asObject(oldSpec));
  const old = asObject(oldSpec);
  if (deepEqual(munged, old)) return [];
  const changed = [...new Set([...Object.keys(munged), ...Object.keys(old)])].filter((k) => !deepEqual(munged[k], old[k])).sort();
  const diff = changed.map((k) => `  spec.${k}: ${JSON.stringify(old[k] ?? null)} -> ${JSON.stringify(munged[k] ?? null)}`).join('\n');
  return [forbidden('spec', `pod updates may not change fields other than ${UPDATABLE_POD_SPEC_FIELDS.join(',')}\n${diff}`)];
}
