// The cap on Update managers that kube-apiserver's field manager applies after every non-apply
// write: with more than ten Update entries, the oldest are folded, per apiVersion, into one entry
// named "ancient-changes", so objects written by many controllers keep a bounded managedFields.
// Apply entries are never folded: an applier must keep its own set to remove fields later.

import { managerIdentifier, type Managed } from './managed-fields.js';

/** kube-apiserver's DefaultMaxUpdateManagers. */
export const MAX_UPDATE_MANAGERS = 10;
/** The manager name of the bucket the oldest Update entries are merged into. */
export const ANCIENT_CHANGES = 'ancient-changes';

const unixSeconds = (time: string | undefined): number => {
  if (!time) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
};

/**
 * Folds the oldest Update entries of `managed` (in place) until at most `max` remain. Oldest
 * means earliest time to the second, ties broken by identifier. The first old entry of an
 * apiVersion stays as it is until a second one of that version joins it; then both become the
 * version's bucket, which takes the time of the newest entry merged into it.
 */
export function capUpdateManagers(managed: Managed, max = MAX_UPDATE_MANAGERS): Managed {
  const updaters = [...managed.fields].filter(([, v]) => !v.applied).map(([id]) => id);
  if (updaters.length <= max) return managed;
  updaters.sort((a, b) => unixSeconds(managed.times.get(a)) - unixSeconds(managed.times.get(b)) || (a < b ? -1 : a > b ? 1 : 0));

  const firstOfVersion = new Map<string, string>();
  let remaining = updaters.length;
  for (let i = 0; i < updaters.length && remaining > max; i++) {
    const id = updaters[i];
    const versioned = managed.fields.get(id)!;
    const time = managed.times.get(id);
    const version = versioned.apiVersion;
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: version });
    const first = firstOfVersion.get(version);
    if (first === undefined) {
      firstOfVersion.set(version, id);
      continue;
    }
    if (!managed.fields.has(bucket)) {
      // The version's first old entry becomes the bucket (its own time is replaced below).
      managed.fields.set(bucket, managed.fields.get(first)!);
      managed.fields.delete(first);
    }
    const into = managed.fields.get(bucket)!;
    managed.fields.set(bucket, { set: versioned.set.union(into.set), apiVersion: version, applied: false });
    // When `id` is an older bucket itself (same second, earlier identifier than another entry of
    // its version) kube-apiserver drops it here too; its fields become unowned, not lost.
    managed.fields.delete(id);
    remaining--;
    if (time) managed.times.set(bucket, time);
    else managed.times.delete(bucket);
  }
  return managed;
}
