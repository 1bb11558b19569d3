// status.qosClass as kube-apiserver computes it on create (the QoS helper of pkg/apis/core):
// BestEffort when no container requests or limits cpu or memory; Guaranteed when every
// container limits both and each request it states equals its limit (pod-level resources, when
// set, decide instead); Burstable otherwise.

import { quantityValue } from './quantity.js';
import { asObject, asObjectList } from '../../../machinery/object.js';

type Obj = Record<string, unknown>;
const COMPUTE = ['cpu', 'memory'];

/** The compute entries of a resource list, as numbers, skipping zero requests. */
function compute(resources: Obj, nonZero: boolean): Map<string, number> {
  const out = new Map<string, number>();
  for (const name of COMPUTE) {
    const v = quantityValue(resources[name]);
    if (v === undefined || (nonZero && v === 0)) continue;
    out.set(name, v);
  }
  return out;
}

function classOf(resourceSets: Obj[]): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  let any = false;
  let guaranteed = true;
  for (const r of resourceSets) {
    const requests = compute(asObject(r.requests), true);
    const limits = compute(asObject(r.limits), true);
    if (requests.size || limits.size) any = true;
    if (!COMPUTE.every((name) => limits.has(name))) guaranteed = false;
    for (const [name, value] of requests) if (limits.get(name) !== value) guaranteed = false;
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

export function podQOSClass(spec: Obj): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  if (spec.resources !== undefined) return classOf([asObject(spec.resources)]);
  const containers = [...asObjectList(spec.initContainers), ...asObjectList(spec.containers)];
  return classOf(containers.map((c) => asObject(c.resources)));
}
