// The finalizers a delete leaves for the garbage collector, as kube-apiserver's store computes
// them (deletionFinalizersForGarbageCollection): `orphan` asks the collector to release the
// dependents before the owner goes, `foregroundDeletion` to delete the blocking ones first.
// The request's propagationPolicy (or the deprecated orphanDependents) wins, then a finalizer
// the object already carries, then the kind's default policy.

import type { ResourceDefinition } from './definition.js';
import type { DeleteOptions } from './delete-options.js';

export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

type GarbageCollectionPolicy = 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';

const LEGACY_APPS_VERSIONS = new Set(['extensions/v1beta1', 'apps/v1beta1', 'apps/v1beta2']);
const LEGACY_APPS_KINDS = new Set(['deployments', 'replicasets', 'daemonsets', 'statefulsets', 'replicationcontrollers']);

/**
 * The kind's DefaultGarbageCollectionPolicy: Events take no part in garbage collection; a few
 * controllers' kinds keep orphaning by default in the versions that always did (core/v1
 * ReplicationController, batch/v1 Job, the beta workload versions); every other kind deletes
 * its dependents.
 */
export function defaultGarbageCollectionPolicy(def: ResourceDefinition): GarbageCollectionPolicy {
  const groupVersion = def.group ? `${def.group}/${def.version}` : def.version;
  if (def.plural === 'events' && (def.group === '' || def.group === 'events.k8s.io')) return 'Unsupported';
  if (groupVersion === 'v1' && def.plural === 'replicationcontrollers') return 'OrphanDependents';
  if (groupVersion === 'batch/v1' && def.plural === 'jobs') return 'OrphanDependents';
  if (LEGACY_APPS_VERSIONS.has(groupVersion) && LEGACY_APPS_KINDS.has(def.plural)) return 'OrphanDependents';
  return 'DeleteDependents';
}

function shouldOrphan(policy: GarbageCollectionPolicy, finalizers: readonly string[], options: DeleteOptions): boolean {
  if (policy === 'Unsupported') return false;
  if (options.orphanDependents !== undefined) return options.orphanDependents;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Orphan';
  if (finalizers.includes(FINALIZER_ORPHAN)) return true;
  if (finalizers.includes(FINALIZER_FOREGROUND)) return false;
  return policy === 'OrphanDependents';
}

function shouldDeleteInForeground(policy: GarbageCollectionPolicy, finalizers: readonly string[], options: DeleteOptions): boolean {
  if (policy === 'Unsupported' || options.orphanDependents !== undefined) return false;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === 'Foreground';
  // The first of the two finalizers decides, as kube-apiserver walks the list.
  for (const f of finalizers) {
    if (f === FINALIZER_FOREGROUND) return true;
    if (f === FINALIZER_ORPHAN) return false;
  }
  return false;
}

/** The object's finalizers after this delete, or undefined when the delete does not change them. */
export function finalizersForGarbageCollection(def: ResourceDefinition, finalizers: readonly string[], options: DeleteOptions): string[] | undefined {
  const policy = defaultGarbageCollectionPolicy(def);
  const next = finalizers.filter((f) => f !== FINALIZER_ORPHAN && f !== FINALIZER_FOREGROUND);
  if (shouldOrphan(policy, finalizers, options)) next.push(FINALIZER_ORPHAN);
  if (shouldDeleteInForeground(policy, finalizers, options)) next.push(FINALIZER_FOREGROUND);
  const before = new Set(finalizers);
  const after = new Set(next);
  if (before.size === after.size && [...after].every((f) => before.has(f))) return undefined;
  return next;
}
