// Endpoints (core/v1, deprecated in 1.33): the two rules of kube's validateEndpointSubsets that
// look across a subset's members, which no per-field rule can state: a subset needs addresses or
// notReadyAddresses, and once it has two ports or more each needs a name. Everything else is
// declared in the spec.

import type { StatusCause } from '../../errors/status-error.js';
import { asObjectList, type KubeObject } from '../../machinery/object.js';
import * as fe from '../../validation/field-errors.js';
import type { ResourceDefinition } from '../definition.js';
import { defaultStrategies, withRules, type ResourceStrategies } from '../strategy.js';

function subsetCauses(obj: KubeObject): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const [i, subset] of asObjectList(obj.subsets).entries()) {
    if (asObjectList(subset.addresses).length === 0 && asObjectList(subset.notReadyAddresses).length === 0) {
      causes.push(fe.required(`subsets[${i}]`, 'must specify `addresses` or `notReadyAddresses`'));
    }
    const ports = asObjectList(subset.ports);
    if (ports.length < 2) continue;
    for (const [j, port] of ports.entries()) {
      if (typeof port.name !== 'string' || port.name === '') causes.push(fe.required(`subsets[${i}].ports[${j}].name`));
    }
  }
  return causes;
}

export function endpointsStrategies(def: ResourceDefinition): ResourceStrategies {
  const base = defaultStrategies(def);
  return { ...base, main: withRules(base.main, { onWrite: subsetCauses }) };
}
