// DeleteOptions and the other write options, checked as k8s.io/apimachinery's
// metav1 validation does: a bad option is a 422 Invalid naming the options kind.
//
// Garbage collection: propagationPolicy becomes the `orphan` or `foregroundDeletion` finalizer
// (gc-finalizers.ts), which the garbagecollector controller acts on.

import { StatusError, type StatusCause } from '../errors/status-error.js';
import type { UserInfo } from '../auth/user.js';

export interface DeleteOptions {
  dryRun?: boolean;
  preconditions?: { uid?: string | null; resourceVersion?: string | null };
  propagationPolicy?: string;
  orphanDependents?: boolean;
  gracePeriodSeconds?: number;
  /** Who deletes, for the admission plugins that judge deletes (NodeRestriction); absent for the server's own. */
  user?: UserInfo;
}

export interface SuccessStatus {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never>;
  status: 'Success';
  details: { name: string; group?: string; kind: string; uid: string };
}

const quoted = (values: string[]) => values.map((v) => JSON.stringify(v)).join(', ');

/** NewInvalid for a meta.k8s.io options kind: the message names the group-qualified kind. */
export function invalidOptions(kind: string, causes: StatusCause[]): StatusError {
  const rendered = causes.map((c) => `${c.field}: ${c.message}`);
  const summary = rendered.length === 1 ? rendered[0] : `[${rendered.join(', ')}]`;
  return new StatusError(422, 'Invalid', `${kind}.meta.k8s.io "" is invalid: ${summary}`, {
    group: 'meta.k8s.io',
    kind,
    causes,
  });
}

export function dryRunCauses(dryRun: string[]): StatusCause[] {
  if (dryRun.length === 0 || (dryRun.length === 1 && dryRun[0] === 'All')) return [];
  return [{ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(dryRun)}: supported values: "All"`, field: 'dryRun' }];
}

export function validateDeleteOptions(options: DeleteOptions): void {
  const causes: StatusCause[] = [];
  const policy = options.propagationPolicy;
  if (options.orphanDependents !== undefined && policy !== undefined) {
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(policy)}: orphanDependents and deletionPropagation cannot be both set`, field: 'propagationPolicy' });
  }
  if (policy !== undefined && !['Foreground', 'Background', 'Orphan'].includes(policy)) {
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(policy)}: supported values: ${quoted(['Foreground', 'Background', 'Orphan', 'nil'])}`,
      field: 'propagationPolicy',
    });
  }
  if (causes.length) throw invalidOptions('DeleteOptions', causes);
}
