// The admission seam of the store, after k8s.io/apiserver's admission.Interface: plugins see a
// write's attributes and may change the object (mutating admission, run once the object is
// decoded and defaulted, before the kind's strategy prepares it) or refuse it (validating
// admission, run after the strategy's own validation, as the generic store calls
// createValidation / updateValidation). Plugins run in the order given; the first error stops
// the write. Dry-run writes are admitted like any other.

import { forbidden, type GroupResource } from '../../errors/status-error.js';
import type { UserInfo } from '../../auth/user.js';
import type { ResourceDefinition } from '../definition.js';
import { metaOf, type KubeObject } from '../../machinery/object.js';

export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE';

/** admission.Attributes: what a plugin knows about the write it is asked about. */
export interface AdmissionAttributes {
  operation: AdmissionOperation;
  definition: ResourceDefinition;
  /** '' for the main resource. */
  subresource: string;
  /** '' for cluster-scoped kinds. */
  namespace: string;
  /** The object being written (mutating plugins change it in place); on delete, the stored one. */
  object: KubeObject;
  /** The stored object, on update. */
  oldObject?: KubeObject;
  dryRun: boolean;
  /** Who writes; absent for the server's own writes. */
  user?: UserInfo;
}

export interface AdmissionPlugin {
  readonly name: string;
  /** Whether the plugin has anything to say about this write; the others are skipped. */
  handles(attributes: AdmissionAttributes): boolean;
  /** Mutating admission: may change `attributes.object`; throws a StatusError to refuse. */
  admit?(attributes: AdmissionAttributes): Promise<void>;
  /** Validating admission: must not change the object; throws a StatusError to refuse. */
  validate?(attributes: AdmissionAttributes): Promise<void>;
  /** Validating admission of a delete, given the stored object; only plugins with it are asked about deletes. */
  validateDelete?(attributes: AdmissionAttributes): Promise<void>;
}

/** Runs the mutating step of `plugins`, which are those that handle this write (asked once, by the store). */
export async function runMutatingAdmission(plugins: readonly AdmissionPlugin[], attributes: AdmissionAttributes): Promise<void> {
  for (const plugin of plugins) await plugin.admit?.(attributes);
}

/** Runs the validating step of `plugins`, which are those that handle this write. */
export async function runValidatingAdmission(plugins: readonly AdmissionPlugin[], attributes: AdmissionAttributes): Promise<void> {
  for (const plugin of plugins) await plugin.validate?.(attributes);
}

/**
 * admission.NewForbidden: 403 naming the resource and the object. The name is the object's, or
 * its generateName while none was generated yet (kube-apiserver writes "Unknown" only for a
 * write without an object, which the store never admits).
 */
export function admissionForbidden(attributes: AdmissionAttributes, why: string): Error {
  const def = attributes.definition;
  const gr: GroupResource = { group: def.group, resource: def.plural };
  const meta = metaOf(attributes.object);
  return forbidden(gr, meta.name || meta.generateName || '', why);
}
