// The LimitRanger admission plugin, on by default in kube-apiserver: a pod created in a namespace
// with LimitRanges gets their container defaults (mutating) and must then meet their bounds, as
// must every claim created or updated there (validating). The first LimitRange a write breaks
// refuses it with 403 Forbidden listing that LimitRange's violations. Pod updates are left
// alone (containers cannot change after creation), and so are subresources (status,
// ephemeralcontainers) and objects already being deleted.

import { isStatusError } from '../../errors/status-error.js';
import type { KubeObject } from '../../machinery/object.js';
import { admissionForbidden, type AdmissionAttributes, type AdmissionPlugin } from './admission.js';
import { aggregateMessage, claimLimitViolations, defaultPodResources, podLimitViolations } from './limit-ranger-rules.js';

/** The LimitRanges of a namespace, read through the registry (never over HTTP). */
export type LimitRangeLister = (namespace: string) => Promise<readonly KubeObject[]>;

export interface LimitRangerOptions {
  list: LimitRangeLister;
  /** Whether a feature gate is on (PodLevelResources changes a Pod item's totals). */
  featureEnabled?: (gate: string) => boolean;
}

function isCorePod(a: AdmissionAttributes): boolean {
  return a.definition.group === '' && a.definition.kind === 'Pod';
}

function isCoreClaim(a: AdmissionAttributes): boolean {
  return a.definition.group === '' && a.definition.kind === 'PersistentVolumeClaim';
}

export function limitRanger(options: LimitRangerOptions): AdmissionPlugin {
  const podLevelResources = (): boolean => options.featureEnabled?.('PodLevelResources') ?? false;

  async function limitRanges(a: AdmissionAttributes): Promise<readonly KubeObject[]> {
    try {
      return await options.list(a.namespace);
    } catch (e) {
      // admission.NewForbidden keeps a Forbidden as it is and wraps anything else.
      if (isStatusError(e) && e.reason === 'Forbidden') throw e;
      throw admissionForbidden(a, e instanceof Error ? e.message : String(e));
    }
  }

  return {
    name: 'LimitRanger',
    handles(a) {
      if (a.subresource !== '' || !a.namespace) return false;
      if (a.oldObject && (a.oldObject.metadata as { deletionTimestamp?: unknown } | undefined)?.deletionTimestamp) return false;
      if (isCorePod(a)) return a.operation === 'CREATE';
      return isCoreClaim(a);
    },
    async admit(a) {
      if (!isCorePod(a)) return;
      for (const limitRange of await limitRanges(a)) defaultPodResources(limitRange, a.object);
    },
    async validate(a) {
      for (const limitRange of await limitRanges(a)) {
        const violations = isCorePod(a)
          ? podLimitViolations(limitRange, a.object, { podLevelResources: podLevelResources() })
          : claimLimitViolations(limitRange, a.object);
        if (violations.length) throw admissionForbidden(a, aggregateMessage(violations));
      }
    },
  };
}
