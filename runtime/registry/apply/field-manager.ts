// kube-apiserver's field manager around the Updater: reads and writes metadata.managedFields,
// honours the reset rules, never gives anyone the server-owned metadata (name, uid,
// resourceVersion, ...), stamps the time of managers whose fields changed, names managers by
// manager/operation/apiVersion/subresource, and turns conflicts into the 409 Status clients parse.

import { StatusError } from '../../errors/status-error.js';
import { deepClone, isPlainObject, nowRFC3339, type KubeObject } from '../../machinery/object.js';
import { setMember } from '../../machinery/own-member.js';
import { capUpdateManagers } from './cap-managers.js';
import { FieldSet, fieldElement, pathString } from './fieldpath.js';
import { allowedConflictsFromLastApplied, KUBECTL_MANAGER, syncLastApplied } from './last-applied.js';
import {
  decodeManagedFields,
  decodeOrEmpty,
  emptyManaged,
  encodeManagedFields,
  isResetManagedFields,
  managerIdentifier,
  parseManagerIdentifier,
  type Managed,
  type ManagedFieldsEntry,
} from './managed-fields.js';
import type { TypeNode } from './schema.js';
import { addedFieldsV1 } from '../patch/typed-merge.js';
import { Conflicts, Updater, type Conflict, type ManagedFields } from './updater.js';

/** Fields no manager owns: the server sets them (kube-apiserver's stripMetaManager). */
const STRIPPED = FieldSet.of(
  [fieldElement('apiVersion')],
  [fieldElement('kind')],
  [fieldElement('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => [
    fieldElement('metadata'),
    fieldElement(f),
  ]),
);

/** The manager of an object that had fields but no managedFields when it was first applied. */
const BEFORE_FIRST_APPLY = 'before-first-apply';
/** A name no real manager can have: the writer of the current Update before it is merged in. */
const CURRENT_OPERATION = '\u0000current-operation';

/** The manager of a non-apply write: fieldManager, else the User-Agent up to its first '/'. */
export function managerOrUserAgent(fieldManager: string | undefined, userAgent: string | undefined): string {
  if (fieldManager) return fieldManager;
  if (userAgent === undefined) return '';
  const slash = userAgent.indexOf('/');
  return slash < 0 ? userAgent : userAgent.slice(0, slash);
}

export interface FieldManagerOptions {
  /** The kind's type, from the generated schema. */
  node: TypeNode;
  /** group/version the object is served at. */
  apiVersion: string;
  subresource?: string;
  /** Path prefixes the endpoint's strategy resets, which nobody owns through it. */
  resetFields?: FieldSet;
  /**
   * Converts a manager's field set between two versions of the kind (kinds served in several
   * versions with different field names, such as Event): ownership is compared in the request's
   * version and every entry is kept in its own, as structured-merge-diff's version converter does.
   */
  convertSet?: (set: FieldSet, fromApiVersion: string, toApiVersion: string) => FieldSet;
}

export class FieldManager {
  private readonly updater: Updater;
  private readonly resetFields: FieldSet;

  constructor(private readonly options: FieldManagerOptions) {
    this.resetFields = options.resetFields ?? new FieldSet();
    this.updater = new Updater(options.node, this.resetFields);
  }

  private info(manager: string, operation: 'Apply' | 'Update'): string {
    return managerIdentifier({ manager, operation, apiVersion: this.options.apiVersion, subresource: this.options.subresource });
  }

  /**
   * Records a create, update or non-apply patch by `manager`: returns `next` with its
   * managedFields. `live` is undefined for a create. Never fails: on an internal error the
   * object is returned without managedFields, as kube-apiserver's UpdateNoErrors does.
   */
  update(live: KubeObject | undefined, next: KubeObject, manager: string): KubeObject {
    const out = deepClone(next);
    const recorded = this.recordedUpdate(live, next, manager);
    if (recorded) setManagedFields(out, recorded);
    else delete (out.metadata ?? {}).managedFields;
    return out;
  }

  /**
   * The managedFields entries `update` gives `next`, without copying the object: undefined when
   * there are none, or on an internal error.
   */
  managedFieldsAfterUpdate(live: KubeObject | undefined, next: KubeObject, manager: string): unknown[] | undefined {
    if (live === undefined && !this.options.subresource && noManagedFields(next)) return this.createdBy(next, manager);
    const recorded = this.recordedUpdate(live, next, manager);
    if (!recorded) return undefined;
    const holder: KubeObject = { metadata: {} };
    setManagedFields(holder, recorded);
    return holder.metadata!.managedFields as unknown[] | undefined;
  }

  /**
   * What recordedUpdate comes to for a create that names no managedFields, the common write:
   * nobody owned anything before, so the writer owns every field the object sets, less the reset
   * and server-owned ones, and is the only entry.
   */
  private createdBy(next: KubeObject, manager: string): ManagedFieldsEntry[] | undefined {
    try {
      const fieldsV1 = addedFieldsV1(viewWithoutManagedFields(next), this.options.node, this.resetFields, STRIPPED);
      if (!fieldsV1) return undefined;
      const entry: ManagedFieldsEntry = {};
      if (manager) entry.manager = manager;
      entry.operation = 'Update';
      entry.apiVersion = this.options.apiVersion;
      entry.time = nowRFC3339();
      entry.fieldsType = 'FieldsV1';
      entry.fieldsV1 = fieldsV1;
      return [entry];
    } catch {
      return undefined;
    }
  }

  /** The managers after an Update by `manager`; undefined on an internal error. */
  private recordedUpdate(live: KubeObject | undefined, next: KubeObject, manager: string): Managed | undefined {
    try {
      const managed = this.managedForUpdate(live, next);
      managed.fields = this.inRequestVersion(managed.fields);
      // The comparison only reads both sides: views without managedFields, not copies.
      const liveBare = viewWithoutManagedFields(live ?? {});
      const nextBare = viewWithoutManagedFields(next);
      const fields = this.updater.update(liveBare, nextBare, this.options.apiVersion, managed.fields, CURRENT_OPERATION);
      const taken = fields.get(CURRENT_OPERATION);
      fields.delete(CURRENT_OPERATION);
      const id = this.info(manager, 'Update');
      if (taken) {
        const owned = taken.set.difference(STRIPPED);
        const previous = fields.get(id);
        const set = previous ? owned.union(previous.set) : owned;
        if (set.empty()) fields.delete(id);
        else fields.set(id, { set, apiVersion: this.options.apiVersion, applied: false });
        managed.times.set(id, nowRFC3339());
      }
      return capUpdateManagers({ fields: this.inOwnVersions(fields), times: managed.times });
    } catch {
      return undefined;
    }
  }

  /** The starting ownership of an Update: the request's managedFields when it sets them, else the live object's. */
  private managedForUpdate(live: KubeObject | undefined, next: KubeObject): Managed {
    const liveManaged = () => decodeOrEmpty(live?.metadata?.managedFields);
    if (this.options.subresource) return liveManaged();
    const requested = next.metadata?.managedFields;
    if (isResetManagedFields(requested)) return emptyManaged();
    try {
      const managed = decodeManagedFields(requested);
      return managed.fields.size ? managed : liveManaged();
    } catch {
      return liveManaged();
    }
  }

  /**
   * Server-side apply of `config` by `manager` onto `live` (undefined: the object is being
   * created). Returns the object to write, with managedFields. Throws the 409 on conflicts.
   */
  apply(live: KubeObject | undefined, config: KubeObject, manager: string, force: boolean, describe: string): KubeObject {
    let out: KubeObject;
    try {
      out = this.applyOnce(live, config, manager, force, describe);
    } catch (e) {
      if (!(e instanceof Conflicts)) throw e;
      out = this.applyOverLastApplied(live, config, manager, describe, e.conflicts);
    }
    syncLastApplied(out, config, manager);
    return out;
  }

  /**
   * A kubectl apply that conflicts only over fields its client-side applies set (and that still
   * hold the values they set) is forced through; any other conflict stands.
   */
  private applyOverLastApplied(live: KubeObject | undefined, config: KubeObject, manager: string, describe: string, conflicts: Conflict[]): KubeObject {
    // Conflicts are judged in the request's version and reported in each owner's own.
    const reported = (list: Conflict[]) => conflictError(this.inManagerVersions(list, decodeOrEmpty(live?.metadata?.managedFields).fields));
    if (manager !== KUBECTL_MANAGER) throw reported(conflicts);
    const allowed = allowedConflictsFromLastApplied(live && withoutManagedFields(live), this.options.apiVersion, this.options.node);
    if (!allowed) throw reported(conflicts);
    const remaining = conflicts.filter((c) => !allowed.has(c.path));
    if (remaining.length) throw reported(remaining);
    return this.applyOnce(live, config, manager, true, describe);
  }

  /** One apply; throws Conflicts for the caller to judge. */
  private applyOnce(live: KubeObject | undefined, config: KubeObject, manager: string, force: boolean, describe: string): KubeObject {
    const managed = decodeOrEmpty(live?.metadata?.managedFields);
    managed.fields = this.inRequestVersion(managed.fields);
    let liveBare = withoutManagedFields(live ?? {});
    // Fields set before anyone applied are owned by a stand-in Update manager, so an applier
    // neither conflicts with nor removes them unknowingly.
    if (live && managed.fields.size === 0) {
      const empty = {};
      const fields = this.updater.update(empty, liveBare, this.options.apiVersion, managed.fields, this.info(BEFORE_FIRST_APPLY, 'Update'));
      const id = this.info(BEFORE_FIRST_APPLY, 'Update');
      const before = fields.get(id);
      if (before) {
        const set = before.set.difference(STRIPPED);
        if (set.empty()) fields.delete(id);
        else fields.set(id, { ...before, set });
      }
      managed.fields = fields;
      liveBare = withoutManagedFields(liveBare);
    }
    const id = this.info(manager, 'Apply');
    let result;
    try {
      result = this.updater.apply(liveBare, config, this.options.apiVersion, managed.fields, id, force);
    } catch (e) {
      if (e instanceof Error && e.name === 'TypedValueError') {
        // kube-apiserver returns this as a plain error: 500 with no reason.
        throw new StatusError(500, '', `failed to create typed patch object (${describe}): ${e.message}`);
      }
      throw e;
    }
    const fields = result.managers;
    const applied = fields.get(id);
    if (applied) {
      const set = applied.set.difference(STRIPPED);
      if (set.empty()) fields.delete(id);
      else fields.set(id, { ...applied, set });
    }
    const object = (result.object === undefined ? liveBare : dropNulls(result.object)) as KubeObject;
    if (result.object !== undefined) managed.times.set(id, nowRFC3339());
    const out = deepClone(object);
    setManagedFields(out, { fields: this.inOwnVersions(fields), times: managed.times });
    return out;
  }

  /** Conflicting paths as each manager's own version names them, as kube-apiserver reports them. */
  private inManagerVersions(conflicts: Conflict[], fields: ManagedFields): Conflict[] {
    const convert = this.options.convertSet;
    if (!convert) return conflicts;
    return conflicts.map((c) => {
      const own = fields.get(c.manager)?.apiVersion;
      if (!own || own === this.options.apiVersion) return c;
      const [path] = convert(FieldSet.of(c.path), this.options.apiVersion, own).paths();
      return path ? { ...c, path } : c;
    });
  }

  /** Every manager's fields named as the request's version names them. */
  private inRequestVersion(fields: ManagedFields): ManagedFields {
    const convert = this.options.convertSet;
    const to = this.options.apiVersion;
    if (!convert) return fields;
    return new Map([...fields].map(([id, v]) => [id, v.apiVersion === to ? v : { ...v, set: convert(v.set, v.apiVersion, to) }]));
  }

  /** Every manager's fields back in the names of the version it wrote with. */
  private inOwnVersions(fields: ManagedFields): ManagedFields {
    const convert = this.options.convertSet;
    const from = this.options.apiVersion;
    if (!convert) return fields;
    return new Map([...fields].map(([id, v]) => [id, v.apiVersion === from ? v : { ...v, set: convert(v.set, from, v.apiVersion) }]));
  }
}

/** True when a write sets no managedFields of its own (absent, null, or an empty list). */
function noManagedFields(obj: KubeObject): boolean {
  const entries = isPlainObject(obj.metadata) ? obj.metadata.managedFields : undefined;
  return entries === undefined || entries === null || (Array.isArray(entries) && entries.length === 0);
}

/** The object without managedFields, sharing everything else with it: for reading only. */
function viewWithoutManagedFields(obj: KubeObject): KubeObject {
  if (!isPlainObject(obj.metadata) || !('managedFields' in obj.metadata)) return obj;
  const { managedFields: _, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

function withoutManagedFields(obj: KubeObject): KubeObject {
  const copy = deepClone(obj);
  if (isPlainObject(copy.metadata)) delete copy.metadata.managedFields;
  return copy;
}

function setManagedFields(obj: KubeObject, managed: Managed): void {
  if (!isPlainObject(obj.metadata)) obj.metadata = {};
  const meta = obj.metadata!;
  // Times of managers that no longer own anything are dropped with them.
  for (const id of [...managed.times.keys()]) if (!managed.fields.has(id)) managed.times.delete(id);
  const entries = encodeManagedFields(managed);
  if (entries.length) meta.managedFields = entries;
  else delete meta.managedFields;
}

/** Nulls in an applied configuration mean "unset" once the object takes its typed form. */
/** Walked with an explicit stack, as the object may nest 10,000 levels: each copy is filled after its parent holds it. */
function dropNulls(value: unknown): unknown {
  const root = emptyCopy(value);
  const sources: unknown[] = [value];
  const copies: unknown[] = [root];
  while (sources.length > 0) {
    const from = sources.pop();
    const to = copies.pop();
    if (Array.isArray(from)) {
      const out = to as unknown[];
      for (const item of from) {
        const copy = emptyCopy(item);
        out.push(copy);
        if (copy !== item) {
          sources.push(item);
          copies.push(copy);
        }
      }
    } else if (isPlainObject(from)) {
      const out = to as Record<string, unknown>;
      for (const k in from) {
        const v = from[k];
        if (v === null) continue;
        const copy = emptyCopy(v);
        setMember(out, k, copy);
        if (copy !== v) {
          sources.push(v);
          copies.push(copy);
        }
      }
    }
  }
  return root;
}

/** A container's empty copy, to be filled; anything else as it is. */
const emptyCopy = (v: unknown): unknown => (Array.isArray(v) ? [] : isPlainObject(v) ? {} : v);

/** How a conflict names its manager: `"kubectl"`, `"m" using v1`, `"m" with subresource "status"`. */
export function printManager(id: string): string {
  let info;
  try {
    info = parseManagerIdentifier(id);
  } catch {
    return JSON.stringify(id);
  }
  let out = JSON.stringify(info.manager);
  if (info.subresource) out = `${out} with subresource ${JSON.stringify(info.subresource)}`;
  if (info.operation === 'Update') out = `${out} using ${info.apiVersion ?? ''}`;
  return out;
}

/** The 409 kube-apiserver sends for an apply that would take others' fields: one cause per field. */
export function conflictError(conflicts: Conflict[]): StatusError {
  const causes = conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.manager)}`, field: pathString(c.path) }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0].manager)}: ${pathString(conflicts[0].path)}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), pathString(c.path)]);
    const lines: string[] = [];
    for (const manager of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${printManager(manager)}:`);
      for (const p of byManager.get(manager)!) lines.push(`- ${p}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new StatusError(409, 'Conflict', message, { causes });
}
