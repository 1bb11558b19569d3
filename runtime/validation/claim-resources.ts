// The quantity rules of a PersistentVolumeClaimSpec (also a Pod's ephemeral claim template):
// requests[storage] is required and greater than zero (kube-apiserver's
// ValidatePersistentVolumeClaimSpec, which reports them at `<spec>.resources[storage]`), and, as
// the specification adds, no request may exceed its limit. They compare quantities, which the
// spec's CEL rules cannot, so callers add them to the generated validator's causes.

import type { StatusCause } from '../errors/status-error.js';
import * as fe from './field-errors.js';
import { compareQuantities, formatQuantity, quantityOf, quantitySign, type Quantity } from '../machinery/quantity.js';

const asRecord = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

function quantityAt(list: Record<string, unknown> | undefined, key: string): Quantity | undefined {
  return quantityOf(list?.[key]);
}

/** `spec` is the claim spec object, `path` its field path (`spec`, `spec.volumes[0].ephemeral.volumeClaimTemplate.spec`). */
export function validateClaimSpecResources(spec: unknown, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const resources = asRecord(asRecord(spec)?.resources);
  const requests = asRecord(resources?.requests);
  const limits = asRecord(resources?.limits);
  const storagePath = `${path}.resources[storage]`;
  if (!requests || !('storage' in requests)) {
    causes.push(fe.required(storagePath));
  } else {
    const storage = quantityAt(requests, 'storage');
    // A quantity that does not parse is the decoder's error, reported by the generated validator.
    if (storage && quantitySign(storage) <= 0) causes.push(fe.invalid(storagePath, formatQuantity(storage), 'must be greater than zero'));
  }
  for (const name of Object.keys(requests ?? {}).sort()) {
    const request = quantityAt(requests, name);
    const limit = quantityAt(limits, name);
    if (request && limit && compareQuantities(request, limit) > 0) {
      causes.push(fe.invalid(`${path}.resources.requests[${name}]`, formatQuantity(request), `must be less than or equal to ${name} limit of ${formatQuantity(limit)}`));
    }
  }
  return causes;
}

/** The storage request of a claim spec, for the resize rules of an update. */
export function storageRequestOf(spec: unknown): Quantity | undefined {
  return quantityAt(asRecord(asRecord(asRecord(spec)?.resources)?.requests), 'storage');
}
