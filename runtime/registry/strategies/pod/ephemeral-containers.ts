// The pods/ephemeralcontainers subresource (`kubectl debug`): a write may only add ephemeral
// containers. Everything else of the spec, and the status, is taken from the stored pod; an
// ephemeral container once added may be neither removed nor changed (kube-apiserver's
// ValidatePodEphemeralContainersUpdate, reported at spec.ephemeralContainers).

import type { StatusCause } from '../../../errors/status-error.js';
import { forbidden } from '../../../validation/field-errors.js';
import { asObject, asObjectList, asString, deepClone, deepEqual, isPlainObject, metaOf, type KubeObject } from '../../../machinery/object.js';
import type { Strategy } from '../../strategy.js';

function prepare(obj: KubeObject, old: KubeObject, applyDefaults: (o: KubeObject) => void): void {
  const wanted = isPlainObject(obj.spec) ? obj.spec.ephemeralContainers : undefined;
  const spec = deepClone(asObject(old.spec));
  if (wanted === undefined) delete spec.ephemeralContainers;
  else spec.ephemeralContainers = deepClone(wanted);
  obj.spec = spec;
  if (old.status === undefined) delete obj.status;
  else obj.status = deepClone(old.status);
  applyDefaults(obj);
  if (!deepEqual(obj.spec, old.spec)) metaOf(obj).generation = (metaOf(old).generation ?? 0) + 1;
}

function immutabilityCauses(obj: KubeObject, old: KubeObject): StatusCause[] {
  const now = new Map(asObjectList(isPlainObject(obj.spec) ? obj.spec.ephemeralContainers : undefined).map((c) => [c.name, c]));
  const causes: StatusCause[] = [];
  for (const before of asObjectList(isPlainObject(old.spec) ? old.spec.ephemeralContainers : undefined)) {
    const name = asString(before.name);
    const after = now.get(before.name);
    if (!after) causes.push(forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    else if (!deepEqual(before, after)) {
      causes.push(forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n  ${JSON.stringify(before)} -> ${JSON.stringify(after)}`));
    }
  }
  return causes;
}

/** The subresource's strategy, built on the pod's main strategy for the rules every write meets. */
export function ephemeralContainersStrategy(
  main: Strategy,
  applyDefaults: (o: KubeObject) => void,
  validateAll: (o: KubeObject, old: KubeObject) => StatusCause[],
): Strategy {
  return {
    ...main,
    prepareForUpdate: (obj, old) => prepare(obj, old, applyDefaults),
    validateUpdate: (obj, old) => [...validateAll(obj, old), ...immutabilityCauses(obj, old)],
  };
}
