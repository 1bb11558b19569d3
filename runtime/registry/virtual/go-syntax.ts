// Go's `%#v` rendering of the internal structs kube-apiserver's review validation prints as the
// bad value of a field error (field.Error.ErrorBody falls back to %#v for structs without a
// String method), so the 422s of the reviews read as kube's do.

import { goQuote } from '../../machinery/go-format.js';
import { isPlainObject } from '../../machinery/object.js';

type Obj = Record<string, unknown>;

const str = (v: unknown): string => goQuote(typeof v === 'string' ? v : '');

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * time.Time's GoString. metav1.Time decodes into the local zone (the server runs in UTC, as
 * kube-apiserver's image does), and the zero time is UTC.
 */
function goTime(value: unknown): string {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) return 'time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC)';
  const d = new Date(ms);
  const parts = [d.getUTCFullYear(), `time.${MONTHS[d.getUTCMonth()]}`, d.getUTCDate(), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), 0];
  return `time.Date(${parts.join(', ')}, time.Local)`;
}

function goStringMap(value: unknown): string {
  if (!isPlainObject(value)) return 'map[string]string(nil)';
  const entries = Object.keys(value)
    .sort()
    .map((k) => `${goQuote(k)}:${str(value[k])}`);
  return `map[string]string{${entries.join(', ')}}`;
}

function goStrings(value: unknown): string {
  if (!Array.isArray(value)) return '[]string(nil)';
  return `[]string{${value.map(str).join(', ')}}`;
}

/** A pointer field: nil, or (for the values a client can send) Go's rendering through the pointer's type. */
function goPointer(type: string, value: unknown, render: (v: unknown) => string): string {
  return value === undefined || value === null ? `(*${type})(nil)` : render(value);
}

function goOwnerReference(ref: unknown): string {
  const r = isPlainObject(ref) ? ref : {};
  const bool = (v: unknown) => goPointer('bool', v, (b) => `&${b === true}`);
  return `v1.OwnerReference{APIVersion:${str(r.apiVersion)}, Kind:${str(r.kind)}, Name:${str(r.name)}, UID:${str(r.uid)}, Controller:${bool(r.controller)}, BlockOwnerDeletion:${bool(r.blockOwnerDeletion)}}`;
}

function goManagedFieldsEntry(entry: unknown): string {
  const e = isPlainObject(entry) ? entry : {};
  const time = e.time === undefined || e.time === null ? '<nil>' : goTime(e.time);
  const fields = e.fieldsV1 === undefined || e.fieldsV1 === null ? '(*v1.FieldsV1)(nil)' : `&v1.FieldsV1{Raw:[]uint8(${goQuote(JSON.stringify(e.fieldsV1))})}`;
  return `v1.ManagedFieldsEntry{Manager:${str(e.manager)}, Operation:${str(e.operation)}, APIVersion:${str(e.apiVersion)}, Time:${time}, FieldsType:${str(e.fieldsType)}, FieldsV1:${fields}, Subresource:${str(e.subresource)}}`;
}

function goList(type: string, value: unknown, render: (v: unknown) => string): string {
  if (!Array.isArray(value)) return `[]${type}(nil)`;
  return `[]${type}{${value.map(render).join(', ')}}`;
}

/** metav1.ObjectMeta as `%#v` prints it (pointer targets shown by value, where Go shows an address). */
export function goObjectMeta(meta: unknown): string {
  const m: Obj = isPlainObject(meta) ? meta : {};
  const generation = typeof m.generation === 'number' ? m.generation : 0;
  const deletion = m.deletionTimestamp === undefined || m.deletionTimestamp === null ? '<nil>' : goTime(m.deletionTimestamp);
  const grace = goPointer('int64', m.deletionGracePeriodSeconds, (v) => `&${String(v)}`);
  return (
    `v1.ObjectMeta{Name:${str(m.name)}, GenerateName:${str(m.generateName)}, Namespace:${str(m.namespace)}, SelfLink:${str(m.selfLink)}, ` +
    `UID:${str(m.uid)}, ResourceVersion:${str(m.resourceVersion)}, Generation:${generation}, CreationTimestamp:${goTime(m.creationTimestamp)}, ` +
    `DeletionTimestamp:${deletion}, DeletionGracePeriodSeconds:${grace}, Labels:${goStringMap(m.labels)}, Annotations:${goStringMap(m.annotations)}, ` +
    `OwnerReferences:${goList('v1.OwnerReference', m.ownerReferences, goOwnerReference)}, Finalizers:${goStrings(m.finalizers)}, ` +
    `ManagedFields:${goList('v1.ManagedFieldsEntry', m.managedFields, goManagedFieldsEntry)}}`
  );
}

/** authorization.NonResourceAttributes (the internal type) as `%#v` prints it. */
export function goNonResourceAttributes(attrs: unknown): string {
  const a: Obj = isPlainObject(attrs) ? attrs : {};
  return `authorization.NonResourceAttributes{Path:${str(a.path)}, Verb:${str(a.verb)}}`;
}
