// Pod rules that span lists, which no rule on one type can see: container names unique across
// containers, initContainers and ephemeralContainers (a clash is reported on the later list, as
// kube-apiserver validates containers first), volume mounts that name a volume of the pod and
// use each mount path once per container, no negative requests or limits, and requests no larger
// than their limits (quantity comparisons CEL cannot make here). An ephemeral container must
// target an existing container and may not mount with a subPath.

import type { StatusCause } from '../../../errors/status-error.js';
import { duplicate, forbidden, invalid, notFound } from '../../../validation/field-errors.js';
import { canonicalQuantity, quantityOf, quantitySign } from '../../../machinery/quantity.js';
import { quantityValue } from './quantity.js';
import { asObject, asObjectList, asString } from '../../../machinery/object.js';

type Obj = Record<string, unknown>;

const LISTS = ['containers', 'initContainers', 'ephemeralContainers'] as const;

/**
 * ValidateResourceQuantityValue over a container's limits, then its requests: no quantity may be
 * negative. The value is printed in canonical form, as Quantity.String() does.
 */
function nonNegativeCauses(resources: Obj, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const list of ['limits', 'requests']) {
    for (const [name, value] of Object.entries(asObject(resources[list])).sort(([a], [b]) => a.localeCompare(b))) {
      const q = quantityOf(value);
      if (q && quantitySign(q) < 0) causes.push(invalid(`${at}.${list}[${name}]`, canonicalQuantity(String(value)), 'must be greater than or equal to 0'));
    }
  }
  return causes;
}

/** Each request of a resource the container also limits must not exceed the limit. */
function requestLimitCauses(resources: Obj, at: string): StatusCause[] {
  const limits = asObject(resources.limits);
  const causes: StatusCause[] = [];
  for (const [name, request] of Object.entries(asObject(resources.requests)).sort(([a], [b]) => a.localeCompare(b))) {
    const limit = limits[name];
    const r = quantityValue(request);
    const l = quantityValue(limit);
    if (r !== undefined && l !== undefined && r > l) {
      causes.push(invalid(`${at}.requests`, request, `must be less than or equal to ${name} limit of ${String(limit)}`));
    }
  }
  return causes;
}

function ephemeralCauses(spec: Obj, c: Obj, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const target = asString(c.targetContainerName);
  const targets = [...asObjectList(spec.containers), ...asObjectList(spec.initContainers), ...asObjectList(spec.ephemeralContainers)].map((x) => asString(x.name));
  if (target && !targets.includes(target)) causes.push(notFound(`${at}.targetContainerName`, target));
  asObjectList(c.volumeMounts).forEach((m, j) => {
    for (const key of ['subPath', 'subPathExpr']) {
      if (asString(m[key])) causes.push(forbidden(`${at}.volumeMounts[${j}].${key}`, 'cannot be set for an Ephemeral Container'));
    }
  });
  return causes;
}

export function containerListCauses(spec: Obj): StatusCause[] {
  const causes: StatusCause[] = [];
  const volumes = new Set(asObjectList(spec.volumes).map((v) => asString(v.name)));
  const seen = new Set<string>();
  for (const listName of LISTS) {
    const own = new Set<string>();
    asObjectList(spec[listName]).forEach((c, i) => {
      const at = `spec.${listName}[${i}]`;
      const name = asString(c.name);
      // Duplicates within one list and across lists alike; an empty name is reported as Required elsewhere.
      if (name && (seen.has(name) || own.has(name))) causes.push(duplicate(`${at}.name`, name));
      own.add(name);
      causes.push(...nonNegativeCauses(asObject(c.resources), `${at}.resources`));
      causes.push(...requestLimitCauses(asObject(c.resources), `${at}.resources`));
      const mountPaths = new Set<string>();
      asObjectList(c.volumeMounts).forEach((m, j) => {
        const mountAt = `${at}.volumeMounts[${j}]`;
        const volume = asString(m.name);
        if (volume && !volumes.has(volume)) causes.push(notFound(`${mountAt}.name`, volume));
        const path = asString(m.mountPath);
        if (path && mountPaths.has(path)) causes.push(invalid(`${mountAt}.mountPath`, path, 'must be unique'));
        mountPaths.add(path);
      });
      if (listName === 'ephemeralContainers') causes.push(...ephemeralCauses(spec, c, at));
    });
    for (const n of own) seen.add(n);
  }
  return causes;
}
