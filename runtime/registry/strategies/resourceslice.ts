// ResourceSlice: the cross-field rules of resourceslice-rules.ts after the generated ones; taints
// get timeAdded when the writer left it out (kube-apiserver stamps new taints on create and
// update); field selectors spec.driver and spec.nodeName, as kube-apiserver offers them.
// metadata.generation follows spec changes through the definition's tracksGeneration.

import type { ResourceDefinition } from '../definition.js';
import { asObject, asString, isPlainObject, metaOf, nowRFC3339, type KubeObject } from '../../machinery/object.js';
import { defaultStrategies, type ResourceStrategies, type Strategy } from '../strategy.js';
import { validateResourceSliceSpec } from './resourceslice-rules.js';

/** Sets timeAdded, in place, on every device taint without one. */
export function stampTaints(obj: KubeObject): void {
  const spec = obj.spec;
  if (!isPlainObject(spec) || !Array.isArray(spec.devices)) return;
  const now = nowRFC3339();
  for (const device of spec.devices) {
    if (!isPlainObject(device) || !Array.isArray(device.taints)) continue;
    for (const taint of device.taints) {
      if (isPlainObject(taint) && (taint.timeAdded === undefined || taint.timeAdded === null)) taint.timeAdded = now;
    }
  }
}

export function resourceSliceStrategies(def: ResourceDefinition): ResourceStrategies {
  const base = defaultStrategies(def);
  const main: Strategy = {
    ...base.main,
    prepareForCreate(obj) {
      base.main.prepareForCreate(obj);
      stampTaints(obj);
    },
    prepareForUpdate(obj, old) {
      stampTaints(obj);
      base.main.prepareForUpdate(obj, old);
    },
    validate: (obj) => [...base.main.validate(obj), ...validateResourceSliceSpec(obj)],
    validateUpdate: (obj, old) => [...base.main.validateUpdate(obj, old), ...validateResourceSliceSpec(obj)],
    selectableFields(obj) {
      const spec = asObject(obj.spec);
      return {
        'metadata.name': metaOf(obj).name ?? '',
        'spec.driver': asString(spec.driver),
        'spec.nodeName': asString(spec.nodeName),
      };
    },
  };
  return { ...base, main };
}
