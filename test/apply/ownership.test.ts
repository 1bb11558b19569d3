import { describe, expect, it } from 'vitest';
import { isStatusError, type StatusError } from '../../runtime/errors/status-error.js';
import { managerOrUserAgent } from '../../runtime/registry/apply/field-manager.js';
import type { ManagedFieldsEntry } from '../../runtime/registry/apply/managed-fields.js';
import type { KubeObject } from '../../runtime/machinery/object.js';
import { widget, widgetManager } from './widget-schema.js';

const fm = widgetManager();
const WHERE = 'ns/w; example.com/v1, Kind=Widget';

/** Apply onto a stored object (or create when `live` is undefined). */
function apply(live: KubeObject | undefined, config: KubeObject, manager: string, force = false): KubeObject {
  const out = fm.apply(live, config, manager, force, WHERE);
  // what the store keeps: a resourceVersion and uid the field manager must never give to anyone
  out.metadata = { uid: 'u1', resourceVersion: '1', ...out.metadata };
  return out;
}

function entries(obj: KubeObject): ManagedFieldsEntry[] {
  return (obj.metadata?.managedFields ?? []) as ManagedFieldsEntry[];
}

function entry(obj: KubeObject, manager: string, operation = 'Apply'): ManagedFieldsEntry | undefined {
  return entries(obj).find((e) => e.manager === manager && e.operation === operation);
}

function conflictOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (e) {
    if (isStatusError(e)) return e;
    throw e;
  }
  throw new Error('expected a conflict');
}

const base = widget({ metadata: { name: 'w', namespace: 'ns' }, data: { a: '1', b: '2' } });

describe('apply: ownership', () => {
  it('creates with one Apply entry that owns exactly the applied fields', () => {
    const obj = apply(undefined, base, 'alice');
    expect(obj.data).toEqual({ a: '1', b: '2' });
    const e = entry(obj, 'alice')!;
    expect(e).toMatchObject({ manager: 'alice', operation: 'Apply', apiVersion: 'example.com/v1', fieldsType: 'FieldsV1' });
    expect(e.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // name, namespace, apiVersion and kind belong to no one
    expect(e.fieldsV1).toEqual({ 'f:data': { 'f:a': {}, 'f:b': {} } });
    expect(Object.keys(e)).toEqual(['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1']);
  });

  it('a second applier that changes a field owned by another conflicts, one cause per field', () => {
    const obj = apply(undefined, base, 'alice');
    const err = conflictOf(() => apply(obj, widget({ metadata: { name: 'w' }, data: { a: 'x', b: 'y', c: '3' } }), 'bob'));
    expect(err.code).toBe(409);
    expect(err.reason).toBe('Conflict');
    expect(err.message).toBe('Apply failed with 2 conflicts: conflicts with "alice":\n- .data.a\n- .data.b');
    expect(err.details?.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.a' },
      { reason: 'FieldManagerConflict', message: 'conflict with "alice"', field: '.data.b' },
    ]);
  });

  it('names an Update manager with its apiVersion, as kube-apiserver prints it', () => {
    const created = fm.update(undefined, base, 'kubectl');
    const err = conflictOf(() => apply(created, widget({ metadata: { name: 'w' }, data: { a: 'z' } }), 'bob'));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "kubectl" using example.com/v1: .data.a');
    expect(err.details?.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "kubectl" using example.com/v1', field: '.data.a' }]);
  });

  it('force takes the fields: the value changes and the old manager loses them', () => {
    const obj = apply(undefined, base, 'alice');
    const forced = apply(obj, widget({ metadata: { name: 'w' }, data: { a: 'x' } }), 'bob', true);
    expect(forced.data).toEqual({ a: 'x', b: '2' });
    expect(entry(forced, 'alice')!.fieldsV1).toEqual({ 'f:data': { 'f:b': {} } });
    expect(entry(forced, 'bob')!.fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
  });

  it('two appliers of the same value share the field; a later change by either conflicts', () => {
    const obj = apply(undefined, base, 'alice');
    const shared = apply(obj, widget({ metadata: { name: 'w' }, data: { a: '1' } }), 'bob');
    expect(entry(shared, 'alice')!.fieldsV1).toEqual({ 'f:data': { 'f:a': {}, 'f:b': {} } });
    expect(entry(shared, 'bob')!.fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
    const err = conflictOf(() => apply(shared, widget({ metadata: { name: 'w' }, data: { a: '9', b: '2' } }), 'alice'));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "bob": .data.a');
  });

  it('a field omitted from an apply and owned by no one else is removed', () => {
    const obj = apply(undefined, base, 'alice');
    const next = apply(obj, widget({ metadata: { name: 'w' }, data: { a: '1' } }), 'alice');
    expect(next.data).toEqual({ a: '1' });
    expect(entry(next, 'alice')!.fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
  });

  it('a field omitted by one applier but still owned by another stays, owned by the other only', () => {
    const obj = apply(undefined, base, 'alice');
    const shared = apply(obj, widget({ metadata: { name: 'w' }, data: { a: '1' } }), 'bob');
    const gaveUp = apply(shared, widget({ metadata: { name: 'w' }, data: { b: '2' } }), 'alice');
    expect(gaveUp.data).toEqual({ a: '1', b: '2' });
    expect(entry(gaveUp, 'alice')!.fieldsV1).toEqual({ 'f:data': { 'f:b': {} } });
    expect(entry(gaveUp, 'bob')!.fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
  });

  it('removes a struct the applier leaves empty, and map-list items it no longer applies', () => {
    const obj = apply(undefined, widget({ metadata: { name: 'w' }, spec: { replicas: 2, containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y' }] } }), 'alice');
    const next = apply(obj, widget({ metadata: { name: 'w' }, spec: { containers: [{ name: 'b', image: 'y' }] } }), 'alice');
    expect(next.spec).toEqual({ containers: [{ name: 'b', image: 'y' }] });
    const gone = apply(next, widget({ metadata: { name: 'w' }, data: { z: '1' } }), 'alice');
    expect(gone.spec).toBeUndefined();
  });

  it('an apply that changes nothing keeps the object and the applier entry time', () => {
    const obj = apply(undefined, base, 'alice');
    const again = apply(obj, base, 'alice');
    expect(again.data).toEqual(base.data);
    expect(entries(again)).toEqual(entries(obj));
  });

  it('owns set items and atomic lists as structured-merge-diff does', () => {
    const obj = apply(undefined, widget({ metadata: { name: 'w', finalizers: ['a/x'] }, spec: { tags: ['t1'], flags: ['f1'] } }), 'alice');
    const both = apply(obj, widget({ metadata: { name: 'w', finalizers: ['b/y'] }, spec: { flags: ['f2'] } }), 'bob');
    expect((both.metadata as { finalizers: string[] }).finalizers).toEqual(['a/x', 'b/y']);
    expect((both.spec as { flags: string[] }).flags).toEqual(['f1', 'f2']);
    expect(entry(both, 'bob')!.fieldsV1).toEqual({ 'f:metadata': { 'f:finalizers': { 'v:"b/y"': {} } }, 'f:spec': { 'f:flags': { 'v:"f2"': {} } } });
    const err = conflictOf(() => apply(both, widget({ metadata: { name: 'w' }, spec: { tags: ['t2'] } }), 'bob'));
    expect(err.message).toBe('Apply failed with 1 conflict: conflict with "alice": .spec.tags');
  });

  it('gives fields set before any apply to before-first-apply', () => {
    const legacy = widget({ metadata: { name: 'w', uid: 'u' }, data: { old: '1' } });
    const obj = apply(legacy, widget({ metadata: { name: 'w' }, data: { new: '2' } }), 'alice');
    expect(obj.data).toEqual({ old: '1', new: '2' });
    expect(entry(obj, 'before-first-apply', 'Update')!.fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:old': {} } });
  });

  it('refuses a configuration that does not fit the schema, as kube-apiserver words it', () => {
    const err = conflictOf(() => apply(undefined, widget({ metadata: { name: 'w' }, sops: { mac: 'x' } }), 'alice'));
    expect(err.code).toBe(500);
    expect(err.reason).toBe('');
    expect(err.message).toBe('failed to create typed patch object (ns/w; example.com/v1, Kind=Widget): .sops: field not declared in schema');
  });
});

describe('update: ownership of non-apply writes', () => {
  it('records the writer as an Update manager of what it changed, including new containers', () => {
    const created = fm.update(undefined, widget({ metadata: { name: 'w', labels: { app: 'x' } }, data: { a: '1' } }), 'kubectl-create');
    const e = entry(created, 'kubectl-create', 'Update')!;
    expect(e.apiVersion).toBe('example.com/v1');
    expect(e.fieldsV1).toEqual({ 'f:data': { '.': {}, 'f:a': {} }, 'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } } });
  });

  it('moves a changed field from its applier to the writer without conflict', () => {
    const obj = apply(undefined, base, 'alice');
    const written = fm.update(obj, { ...obj, data: { a: 'edited', b: '2' } }, 'editor');
    expect(entry(written, 'alice')!.fieldsV1).toEqual({ 'f:data': { 'f:b': {} } });
    expect(entry(written, 'editor', 'Update')!.fieldsV1).toEqual({ 'f:data': { 'f:a': {} } });
    // Apply entries sort before Update entries
    expect(entries(written).map((x) => x.operation)).toEqual(['Apply', 'Update']);
  });

  it('removing a field takes it from its owner', () => {
    const obj = apply(undefined, base, 'alice');
    const written = fm.update(obj, { ...obj, data: { b: '2' } }, 'editor');
    expect(entry(written, 'alice')!.fieldsV1).toEqual({ 'f:data': { 'f:b': {} } });
    expect(entry(written, 'editor', 'Update')).toBeUndefined();
  });

  it('a write that keeps managedFields out of its body keeps the stored ones', () => {
    const obj = apply(undefined, base, 'alice');
    const { managedFields: _dropped, ...meta } = obj.metadata!;
    const written = fm.update(obj, { ...obj, metadata: meta }, 'editor');
    expect(entries(written)).toEqual(entries(obj));
  });

  it('an empty managedFields list does not reset', () => {
    const obj = apply(undefined, base, 'alice');
    const written = fm.update(obj, { ...obj, metadata: { ...obj.metadata, managedFields: [] } }, 'editor');
    expect(entries(written)).toEqual(entries(obj));
  });

  it('a list with one empty entry resets managedFields', () => {
    const obj = apply(undefined, base, 'alice');
    const written = fm.update(obj, { ...obj, metadata: { ...obj.metadata, managedFields: [{}] } }, 'editor');
    expect(written.metadata?.managedFields).toBeUndefined();
  });

  it('reset combined with other changes: the reset happens first, then the writer owns what it changed', () => {
    const obj = apply(undefined, base, 'alice');
    const written = fm.update(obj, { ...obj, metadata: { ...obj.metadata, managedFields: [{}] }, data: { a: '1', b: 'changed', c: 'new' } }, 'editor');
    expect(entries(written)).toHaveLength(1);
    expect(entry(written, 'editor', 'Update')!.fieldsV1).toEqual({ 'f:data': { 'f:b': {}, 'f:c': {} } });
  });

  it('a write may replace managedFields with entries of its own', () => {
    const obj = apply(undefined, base, 'alice');
    const mine: ManagedFieldsEntry[] = [{ manager: 'carol', operation: 'Apply', apiVersion: 'example.com/v1', fieldsType: 'FieldsV1', fieldsV1: { 'f:data': { 'f:a': {} } } }];
    const written = fm.update(obj, { ...obj, metadata: { ...obj.metadata, managedFields: mine } }, 'editor');
    expect(entries(written)).toEqual(mine);
  });

  it('a write that changes nothing leaves the entries as they were', () => {
    const obj = fm.update(undefined, base, 'kubectl');
    expect(fm.update(obj, obj, 'kubectl')).toEqual(obj);
  });
});

describe('managerOrUserAgent', () => {
  it('takes fieldManager, else the User-Agent up to the first slash', () => {
    expect(managerOrUserAgent('mine', 'kubectl/v1.33.0 (linux/amd64)')).toBe('mine');
    expect(managerOrUserAgent(undefined, 'kubectl/v1.33.0 (linux/amd64) kubernetes/abc')).toBe('kubectl');
    expect(managerOrUserAgent('', 'node-fetch')).toBe('node-fetch');
    expect(managerOrUserAgent(undefined, undefined)).toBe('');
  });
});
