// Ownership bookkeeping as structured-merge-diff's Updater does it, over manager identifiers and
// their field sets. An Update takes what the writer changed (from everyone else, without asking);
// an Apply takes what the configuration sets, refusing fields others own with a different value
// unless forced, and removes what the applier set last time, no longer sets, and nobody else owns.

import { deepEqual } from '../../machinery/object.js';
import { FieldSet, type Path } from './fieldpath.js';
import type { TypeNode } from './schema.js';
import { compare, ensureNamedFieldsAreMembers, merge, removeItems, toFieldSet, type Comparison } from '../patch/typed-merge.js';

export interface VersionedSet {
  set: FieldSet;
  apiVersion: string;
  /** True for an Apply manager. */
  applied: boolean;
}

/** Manager identifier to the fields it owns. */
export type ManagedFields = Map<string, VersionedSet>;

export interface Conflict {
  manager: string;
  path: Path;
}

/** The fields an apply would take from other managers, one entry per field. */
export class Conflicts extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super(`${conflicts.length} conflict(s)`);
    this.name = 'Conflicts';
  }
}

export class Updater {
  /**
   * @param ignored path prefixes nobody gains ownership of through this endpoint (the fields the
   *   strategy resets, e.g. status on the main resource).
   */
  constructor(
    private readonly node: TypeNode,
    private readonly ignored: FieldSet = new FieldSet(),
  ) {}

  /** Records a non-apply write of `next` over `live` by `manager`. */
  update(live: unknown, next: unknown, apiVersion: string, managers: ManagedFields, manager: string): ManagedFields {
    const { managers: out, comparison } = this.takeOwnership(live, next, managers, manager, true);
    const previous = out.get(manager)?.set ?? new FieldSet();
    const owned = previous.difference(comparison.removed).union(comparison.modified).union(comparison.added).withoutPrefixes(this.ignored);
    if (owned.empty()) out.delete(manager);
    else out.set(manager, { set: owned, apiVersion, applied: false });
    return out;
  }

  /**
   * Merges an applied configuration into `live`. Returns the new object (undefined when it equals
   * `live`) and the new ownership; throws Conflicts unless forced, TypedValueError for a bad config.
   */
  apply(live: unknown, config: unknown, apiVersion: string, managers: ManagedFields, manager: string, force: boolean): { object: unknown; managers: ManagedFields } {
    const configSet = toFieldSet(config, this.node, true);
    let object = merge(live, config, this.node);
    const next: ManagedFields = new Map(managers);
    const lastSet = next.get(manager);
    next.set(manager, { set: configSet.withoutPrefixes(this.ignored), apiVersion, applied: true });
    object = this.prune(object, next, lastSet);
    const { managers: out } = this.takeOwnership(live, object, next, manager, force);
    return { object: deepEqual(live, object) ? undefined : object, managers: out };
  }

  /**
   * Moves every changed field away from the managers that owned it (a conflict for a write that
   * may not take it), and drops removed fields from everyone's sets.
   */
  private takeOwnership(live: unknown, next: unknown, managers: ManagedFields, writer: string, force: boolean): { managers: ManagedFields; comparison: Comparison } {
    const raw = compare(live, next, this.node);
    const comparison: Comparison = {
      added: raw.added.withoutPrefixes(this.ignored),
      modified: raw.modified.withoutPrefixes(this.ignored),
      removed: raw.removed.withoutPrefixes(this.ignored),
    };
    const changed = comparison.modified.union(comparison.added);
    const conflicts = new Map<string, FieldSet>();
    for (const [manager, owned] of managers) {
      if (manager === writer) continue;
      const taken = owned.set.intersection(changed);
      if (!taken.empty()) conflicts.set(manager, taken);
    }
    if (!force && conflicts.size) {
      const list: Conflict[] = [];
      for (const manager of [...conflicts.keys()].sort()) {
        for (const path of conflicts.get(manager)!.paths()) list.push({ manager, path });
      }
      throw new Conflicts(list);
    }
    const out: ManagedFields = new Map();
    for (const [manager, owned] of managers) {
      let set = owned.set;
      if (manager !== writer) {
        const taken = conflicts.get(manager);
        if (taken) set = set.difference(taken);
        set = set.difference(comparison.removed);
      }
      if (!set.empty()) out.set(manager, { ...owned, set });
    }
    return { managers: out, comparison };
  }

  /**
   * Removes from the merged object what the applier owned before and no longer applies, unless
   * another manager (or the applier's new configuration) still owns it.
   */
  private prune(merged: unknown, managers: ManagedFields, lastSet: VersionedSet | undefined): unknown {
    if (!lastSet || lastSet.set.empty()) return merged;
    const ensure = (s: FieldSet) => ensureNamedFieldsAreMembers(s, this.node);
    const last = ensure(lastSet.set);
    const firstCut = removeItems(merged, last, this.node);
    let owned = new FieldSet();
    for (const v of managers.values()) owned = owned.union(v.set);
    const mergedSet = ensure(toFieldSet(merged, this.node));
    const kept = ensure(toFieldSet(firstCut, this.node)).union(ensure(owned));
    const withOwned = removeItems(merged, mergedSet.difference(kept), this.node);
    const gone = mergedSet.difference(ensure(toFieldSet(withOwned, this.node)));
    return removeItems(merged, gone.intersection(last), this.node);
  }
}
