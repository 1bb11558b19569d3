// Pod rules that span lists, which no rule on one type can see: container names unique across
// containers, initContainers and ephemeralContainers (a clash is reported on the later list, as
// kube-apiserver validates containers first), volume mounts that name a volume of the pod and
// use each mount path once per container, and each container's resources (resource-requirements.ts:
// names, quantities, requests no larger than their limits). An ephemeral container must
// target an existing container and may not mount with a subPath.

import type { StatusCause } from '../../../errors/status-error.js';
import { duplicate, forbidden, invalid, notFound } from '../../../validation/field-errors.js';
import { validateContainerResourceName } from '../../../validation/resource-names.js';
import { resourceRequirementsCauses } from './resource-requirements.js';
import { asObject, asObjectList, asString } from '../../../machinery/object.js';

type Obj = Record<string, unknown>;

const LISTS = ['containers', 'initContainers', 'ephemeralContainers'] as const;

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
      causes.push(...resourceRequirementsCauses(asObject(c.resources), `${at}.resources`, validateContainerResourceName));
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
