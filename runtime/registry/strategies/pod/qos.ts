// status.qosClass as kube-apiserver computes it on create (the QoS helper of pkg/apis/core):
// BestEffort when no container requests or limits cpu or memory; Guaranteed when every
// container limits both and each request it states equals its limit (pod-level resources, when
// set, decide instead); Burstable otherwise.

import { compareQuantities, quantityOf, quantitySign, type Quantity } from '../../../machinery/quantity.js';
import { asObject, asObjectList } from '../../../machinery/object.js';

type Obj = Record<string, unknown>;
const COMPUTE = ['cpu', 'memory'];

/** The compute entries of a resource list as quantities, skipping zeros. */
function compute(resources: Obj): Map<string, Quantity> {
  const out = new Map<string, Quantity>();
  for (const name of COMPUTE) {
    const q = quantityOf(resources[name]);
    if (q === undefined || quantitySign(q) === 0) continue;
    out.set(name, q);
  }
  return out;
}

function classOf(resourceSets: Obj[]): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  let any = false;
  let guaranteed = true;
  for (const r of resourceSets) {
    const requests = compute(asObject(r.requests));
    const limits = compute(asObject(r.limits));
    if (requests.size || limits.size) any = true;
    if (!COMPUTE.every((name) => limits.has(name))) guaranteed = false;
    for (const [name, request] of requests) {
      const limit = limits.get(name);
      if (limit === undefined || compareQuantities(request, limit) !== 0) guaranteed = false;
    }
  }
  if (!any) return 'BestEffort';
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

export function podQOSClass(spec: Obj): 'Guaranteed' | 'Burstable' | 'BestEffort' {
  if (spec.resources !== undefined) return classOf([asObject(spec.resources)]);
  const containers = [...asObjectList(spec.initContainers), ...asObjectList(spec.containers)];
  return classOf(containers.map((c) => asObject(c.resources)));
}
