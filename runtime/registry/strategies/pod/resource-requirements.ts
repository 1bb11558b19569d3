// A container's (or the pod's) resources as kube-apiserver's validateResourceRequirements checks
// them (pkg/apis/core/validation): each limit, then each request, by name and quantity: the name
// one the container (or the pod) may ask for, no negative quantity, a whole number of an extended
// resource (example.com/gpu), a huge-pages quantity a whole number of its pages, no request above
// its limit (and equal to it, with a limit required, where overcommitting is not allowed); huge
// pages only beside cpu or memory.
// Go walks the maps in random order; here the names are sorted, so the causes come in one order.

import type { StatusCause } from '../../../errors/status-error.js';
import { forbidden, invalid, notSupported, required } from '../../../validation/field-errors.js';
import { isHugePageResourceName, isOvercommitAllowed, resourceQuantityValueCauses, validateResourceName } from '../../../validation/resource-names.js';
import { compareQuantities, formatQuantity, parseQuantity, quantityOf, quantitySign, quantityValue, type Quantity } from '../../../machinery/quantity.js';
import { asObject } from '../../../machinery/object.js';
import { hasMember } from '../../../machinery/own-member.js';

type Obj = Record<string, unknown>;
export type ResourceNameCheck = (name: string, path: string) => StatusCause[];

/** The resources pod-level requests and limits may name (PodLevelResources, kube 1.33). */
const POD_LEVEL_RESOURCES = ['cpu', 'memory'];

/** validatePodResourceName: a valid resource name, and one pod-level resources support. */
export const validatePodResourceName: ResourceNameCheck = (name, path) => {
  const causes = validateResourceName(name, path);
  if (causes.length === 0 && !POD_LEVEL_RESOURCES.includes(name)) causes.push(notSupported(path, name, POD_LEVEL_RESOURCES));
  return causes;
};

const sortedEntries = (list: unknown): [string, unknown][] => Object.entries(asObject(list)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * IsHugePageResourceValueDivisible: the page size is the quantity after "hugepages-", a positive
 * whole number of bytes, and the value a multiple of it.
 */
function hugePagesDivisible(name: string, q: Quantity): boolean {
  const page = parseQuantity(name.slice('hugepages-'.length));
  if (!page || quantitySign(page) <= 0 || page.num % page.den !== 0n) return false;
  return quantityValue(q) % quantityValue(page) === 0n;
}

function hugePagesCauses(name: string, value: unknown, path: string): StatusCause[] {
  const q = quantityOf(value);
  if (!q || hugePagesDivisible(name, q)) return [];
  const shown = formatQuantity(q);
  return [invalid(path, shown, `${shown} is not positive integer multiple of ${name}`)];
}

export function resourceRequirementsCauses(resources: Obj, at: string, checkName: ResourceNameCheck): StatusCause[] {
  const causes: StatusCause[] = [];
  const limits = asObject(resources.limits);
  let cpuOrMemory = false;
  let hugePages = false;
  for (const [name, value] of sortedEntries(limits)) {
    const path = `${at}.limits[${name}]`;
    causes.push(...checkName(name, path), ...resourceQuantityValueCauses(name, value, path));
    if (isHugePageResourceName(name)) {
      hugePages = true;
      causes.push(...hugePagesCauses(name, value, path));
    }
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  for (const [name, value] of sortedEntries(resources.requests)) {
    const path = `${at}.requests[${name}]`;
    causes.push(...checkName(name, path), ...resourceQuantityValueCauses(name, value, path));
    const request = quantityOf(value);
    const limit = quantityOf(limits[name]);
    // Resources that may not be overcommitted (extended ones, huge pages) request exactly their limit.
    if (request && limit) {
      const order = compareQuantities(request, limit);
      if (order !== 0 && !isOvercommitAllowed(name)) {
        causes.push(invalid(`${at}.requests`, formatQuantity(request), `must be equal to ${name} limit of ${formatQuantity(limit)}`));
      } else if (order > 0) {
        causes.push(invalid(`${at}.requests`, formatQuantity(request), `must be less than or equal to ${name} limit of ${formatQuantity(limit)}`));
      }
    } else if (!hasMember(limits, name) && !isOvercommitAllowed(name)) {
      causes.push(required(`${at}.limits`, 'Limit must be set for non overcommitable resources'));
    }
    if (isHugePageResourceName(name)) {
      hugePages = true;
      causes.push(...hugePagesCauses(name, value, path));
    }
    if (name === 'cpu' || name === 'memory') cpuOrMemory = true;
  }
  if (hugePages && !cpuOrMemory) causes.push(forbidden(at, 'HugePages require cpu or memory'));
  return causes;
}
