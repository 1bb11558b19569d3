// The finalizers a delete leaves for the garbage collector, as kube-apiserver's store computes
// them (deletionFinalizersForGarbageCollection): `orphan` asks the collector to release the
// dependents before the owner goes, `foregroundDeletion` to delete the blocking ones first.
// The request's propagationPolicy (or the deprecated orphanDependents) wins, then a finalizer
// the object already carries, then the kind's default policy, which its definition declares.

import type { GarbageCollectionPolicy, ResourceDefinition } from './definition.js';
import type { DeleteOptions } from './delete-options.js';

export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

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
  const policy = def.garbageCollectionPolicy ?? 'DeleteDependents';
  const next = finalizers.filter((f) => f !== FINALIZER_ORPHAN && f !== FINALIZER_FOREGROUND);
  if (shouldOrphan(policy, finalizers, options)) next.push(FINALIZER_ORPHAN);
  if (shouldDeleteInForeground(policy, finalizers, options)) next.push(FINALIZER_FOREGROUND);
  const before = new Set(finalizers);
  const after = new Set(next);
  if (before.size === after.size && [...after].every((f) => before.has(f))) return undefined;
  return next;
}
