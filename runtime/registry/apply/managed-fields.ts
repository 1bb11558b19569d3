// metadata.managedFields on the wire and in memory. Each entry names a manager (manager,
// operation, apiVersion for Update, subresource) and the fields it owns as FieldsV1. In memory
// the entries become a map from a manager identifier (the entry's naming fields as JSON, the way
// kube-apiserver builds it) to its field set, plus the time each manager last changed something.

import { FieldSet } from './fieldpath.js';
import type { ManagedFields } from './updater.js';

export type Operation = 'Apply' | 'Update';

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: string;
  apiVersion?: string;
  time?: string;
  fieldsType?: string;
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ManagerInfo {
  manager: string;
  operation: Operation;
  /** Kept for Update managers only: an applier is the same manager whatever version it applies in. */
  apiVersion?: string;
  subresource?: string;
}

export interface Managed {
  fields: ManagedFields;
  times: Map<string, string>;
}

export const emptyManaged = (): Managed => ({ fields: new Map(), times: new Map() });

/** The identifier of a manager: its naming fields as JSON, in ManagedFieldsEntry field order. */
export function managerIdentifier(info: ManagerInfo): string {
  const id: Record<string, string> = {};
  if (info.manager) id.manager = info.manager;
  id.operation = info.operation;
  if (info.operation === 'Update' && info.apiVersion) id.apiVersion = info.apiVersion;
  if (info.subresource) id.subresource = info.subresource;
  return JSON.stringify(id);
}

export function parseManagerIdentifier(id: string): ManagerInfo {
  const parsed = JSON.parse(id) as Partial<ManagerInfo>;
  return { manager: parsed.manager ?? '', operation: parsed.operation ?? 'Update', apiVersion: parsed.apiVersion, subresource: parsed.subresource };
}

/** True for `[{}]`: a write that asks to clear managedFields (an empty list does not). */
export function isResetManagedFields(entries: unknown): boolean {
  return Array.isArray(entries) && entries.length === 1 && isEmptyEntry(entries[0]);
}

function isEmptyEntry(entry: unknown): boolean {
  return typeof entry === 'object' && entry !== null && !Array.isArray(entry) && Object.values(entry).every((v) => v === undefined);
}

/** Decodes managedFields; throws on an entry kube-apiserver would not accept. */
export function decodeManagedFields(entries: unknown): Managed {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new Error('managedFields must be a list');
  entries.forEach((raw, i) => {
    const entry = (raw ?? {}) as ManagedFieldsEntry;
    if (entry.operation !== 'Apply' && entry.operation !== 'Update') throw new Error('operation must be `Apply` or `Update`');
    if (!entry.apiVersion) throw new Error('apiVersion must not be empty');
    if (!entry.fieldsType) throw new Error(`missing fieldsType in managed fields entry ${i}`);
    if (entry.fieldsType !== 'FieldsV1') throw new Error(`invalid fieldsType ${JSON.stringify(entry.fieldsType)} in managed fields entry ${i}`);
    const id = managerIdentifier({ manager: entry.manager ?? '', operation: entry.operation, apiVersion: entry.apiVersion, subresource: entry.subresource });
    if (managed.fields.has(id)) throw new Error(`duplicate entry for manager ${id}`);
    managed.fields.set(id, { set: FieldSet.fromFieldsV1(entry.fieldsV1 ?? {}), apiVersion: entry.apiVersion, applied: entry.operation === 'Apply' });
    if (entry.time) managed.times.set(id, entry.time);
  });
  return managed;
}

/** Decodes managedFields, treating undecodable ones as none (as kube-apiserver reads a live object's). */
export function decodeOrEmpty(entries: unknown): Managed {
  try {
    return decodeManagedFields(entries);
  } catch {
    return emptyManaged();
  }
}

/**
 * The entries to store, in kube-apiserver's order: by operation (Apply first), then time, then
 * manager, apiVersion and subresource.
 */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] {
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, versioned] of managed.fields) {
    const info = parseManagerIdentifier(id);
    const entry: ManagedFieldsEntry = {};
    if (info.manager) entry.manager = info.manager;
    entry.operation = info.operation;
    entry.apiVersion = versioned.apiVersion;
    const time = managed.times.get(id);
    if (time) entry.time = time;
    entry.fieldsType = 'FieldsV1';
    entry.fieldsV1 = versioned.set.toFieldsV1();
    if (info.subresource) entry.subresource = info.subresource;
    entries.push(entry);
  }
  const seconds = (t?: string) => (t ? Math.floor(Date.parse(t) / 1000) : 0);
  const text = (a = '', b = '') => (a < b ? -1 : a > b ? 1 : 0);
  return entries.sort(
    (p, q) =>
      text(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      text(p.manager, q.manager) ||
      text(p.apiVersion, q.apiVersion) ||
      text(p.subresource, q.subresource),
  );
}
