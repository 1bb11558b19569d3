// Resource names (cpu, memory, storage, example.com/gpu, ...) as kube-apiserver checks them in
// resource lists (pkg/apis/core/validation and pkg/apis/core/helper): a qualified name; a name
// without a domain must be a standard one; a container may only name compute resources.

import type { StatusCause } from '../errors/status-error.js';
import * as fe from './field-errors.js';
import { isQualifiedName } from '../machinery/formats.js';
import { GoStringer } from '../machinery/go-format.js';
import { canonicalQuantity, milliValue, quantityOf, quantitySign } from '../machinery/quantity.js';

const STANDARD_RESOURCES: ReadonlySet<string> = new Set([
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'persistentvolumeclaims',
  'storage',
  'requests.storage',
  'services.nodeports',
  'services.loadbalancers',
]);

const STANDARD_CONTAINER_RESOURCES: ReadonlySet<string> = new Set(['cpu', 'memory', 'ephemeral-storage']);

const HUGEPAGES_PREFIX = 'hugepages-';

export const isHugePageResourceName = (name: string): boolean => name.startsWith(HUGEPAGES_PREFIX);

/** No domain, or a kubernetes.io domain. */
export const isNativeResource = (name: string): boolean => !name.includes('/') || name.includes('kubernetes.io/');

/** Resources whose limit may exceed the request: native ones except huge pages. */
export const isOvercommitAllowed = (name: string): boolean => isNativeResource(name) && !isHugePageResourceName(name);

function isStandardResourceName(name: string): boolean {
  return STANDARD_RESOURCES.has(name) || name.startsWith(HUGEPAGES_PREFIX) || name.startsWith(`requests.${HUGEPAGES_PREFIX}`);
}

function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return isQualifiedName(`requests.${name}`).length === 0;
}

/** Resources counted in whole objects (quota's object counts). */
const INTEGER_RESOURCES: ReadonlySet<string> = new Set([
  'pods',
  'resourcequotas',
  'services',
  'replicationcontrollers',
  'secrets',
  'configmaps',
  'persistentvolumeclaims',
  'services.nodeports',
  'services.loadbalancers',
]);

/** IsIntegerResourceName: object counts, and extended resources (example.com/gpu), have whole values. */
const isIntegerResourceName = (name: string): boolean => INTEGER_RESOURCES.has(name) || isExtendedResourceName(name);

/**
 * ValidateResourceQuantityValue: never negative (the value printed as its String(), a quoted
 * text), and whole for integer resources (the Quantity itself as BadValue, printed bare).
 */
export function resourceQuantityValueCauses(name: string, value: unknown, path: string): StatusCause[] {
  const q = quantityOf(value);
  if (!q) return [];
  const causes: StatusCause[] = [];
  const shown = canonicalQuantity(String(value));
  if (quantitySign(q) < 0) causes.push(fe.invalid(path, shown, 'must be greater than or equal to 0'));
  if (isIntegerResourceName(name) && milliValue(q) % 1000n !== 0n) causes.push(fe.invalid(path, new GoStringer(shown), 'must be an integer'));
  return causes;
}

/** validateResourceName: any resource a quota or a limit range may name. */
export function validateResourceName(name: string, path: string): StatusCause[] {
  const causes = isQualifiedName(name).map((msg) => fe.invalid(path, name, msg));
  if (causes.length > 0) return causes;
  if (!name.includes('/') && !isStandardResourceName(name)) {
    causes.push(fe.invalid(path, name, 'must be a standard resource type or fully qualified'));
  }
  return causes;
}

/** validateContainerResourceName: what a container (or a pod) may request. */
export function validateContainerResourceName(name: string, path: string): StatusCause[] {
  const causes = validateResourceName(name, path);
  if (!name.includes('/')) {
    if (!STANDARD_CONTAINER_RESOURCES.has(name) && !isHugePageResourceName(name)) {
      causes.push(fe.invalid(path, name, 'must be a standard resource for containers'));
    }
  } else if (!isNativeResource(name) && !isExtendedResourceName(name)) {
    causes.push(fe.invalid(path, name, "doesn't follow extended resource name standard"));
  }
  return causes;
}

/** validatePersistentVolumeClaimResourceKey: a qualified name; of the native names only storage. */
export function validatePersistentVolumeClaimResourceKey(name: string, path: string): StatusCause[] {
  const causes = isQualifiedName(name).map((msg) => fe.invalid(path, name, msg));
  if (causes.length === 0 && isNativeResource(name) && name !== 'storage') causes.push(fe.notSupported(path, name, ['storage']));
  return causes;
}
