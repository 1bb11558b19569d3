// CSINode: a driver entry cannot change once written (ValidateCSINodeUpdate), compared by driver
// name; with the MutableCSINodeAllocatableCount gate on, its allocatable may change (the kubelet
// refreshes the volume limit), so the entries are compared without it. The rule depends on a
// feature gate, which no spec rule can see; it runs after the generated checks, as upstream's
// update check runs after ValidateCSINode.

import type { StatusCause } from '../../errors/status-error.js';
import { goStructJSON } from '../../machinery/go-format.js';
import type { ResourceDefinition } from '../definition.js';
import { asObject, asObjectList, deepEqual, type KubeObject } from '../../machinery/object.js';
import { defaultStrategies, withRules, type ResourceStrategies } from '../strategy.js';
import type { FeatureGateCheck } from './index.js';

const driversOf = (obj: KubeObject): Record<string, unknown>[] => asObjectList(asObject(obj.spec).drivers);

/**
 * The entry as kube-apiserver prints it: the internal Go struct has no JSON tags, so its field
 * names are Go's, in declaration order, with null for what is unset.
 */
function shownDriver(driver: Record<string, unknown>, withAllocatable: boolean): string {
  const allocatable = asObject(driver.allocatable);
  return goStructJSON({
    Name: driver.name ?? '',
    NodeID: driver.nodeID ?? '',
    TopologyKeys: Array.isArray(driver.topologyKeys) ? driver.topologyKeys : null,
    Allocatable: withAllocatable && driver.allocatable ? { Count: allocatable.count ?? null } : null,
  });
}

/** One Invalid at spec.drivers per changed entry, in the stored object's driver order. */
export function driverChangeCauses(obj: KubeObject, old: KubeObject, allocatableMutable: boolean): StatusCause[] {
  const compared = (driver: Record<string, unknown>): Record<string, unknown> => {
    if (!allocatableMutable) return driver;
    const { allocatable: _allocatable, ...rest } = driver;
    return rest;
  };
  const causes: StatusCause[] = [];
  for (const before of driversOf(old)) {
    for (const after of driversOf(obj)) {
      if (after.name !== before.name) continue;
      if (deepEqual(compared(after), compared(before))) continue;
      causes.push({ reason: 'FieldValueInvalid', field: 'spec.drivers', message: `Invalid value: ${shownDriver(after, !allocatableMutable)}: field is immutable` });
    }
  }
  return causes;
}

export function csiNodeStrategies(def: ResourceDefinition, enabled: FeatureGateCheck): ResourceStrategies {
  const base = defaultStrategies(def);
  return { ...base, main: withRules(base.main, { onUpdate: (obj, old) => driverChangeCauses(obj, old, enabled('MutableCSINodeAllocatableCount')) }) };
}
