// kube-apiserver's Event rules (pkg/apis/core/validation/events.go), which depend on the API
// version the request came through and always name the stored (core/v1) fields, whichever view
// was written: an events.k8s.io/v1 write without a controller is reported at
// `reportingController`, a `note` too long at `message`. The one exception is the reporting
// controller of a core/v1 write, which kube names by that version's field, `reportingComponent`.
// Length limits count bytes, as Go's len does. Every write passes the legacy rules;
// writes through events.k8s.io/v1 also pass the strict ones, and on update may not change any
// field but the series (and metadata).

import type { StatusCause } from '../../errors/status-error.js';
import { invalid, required } from '../../validation/field-errors.js';
import { isQualifiedName } from '../../machinery/formats.js';
import { asObject, asString, deepEqual, isPlainObject, type KubeObject } from '../../machinery/object.js';

const REPORTING_INSTANCE_LIMIT = 128;
const ACTION_LIMIT = 128;
const REASON_LIMIT = 128;
const NOTE_LIMIT = 1024;

/** A Go time field is zero when absent or null. */
const isZeroTime = (v: unknown): boolean => v === undefined || v === null || v === '';

/** The API group a write came through: core/v1 ('') or events.k8s.io/v1. */
export type EventRequestGroup = '' | 'events.k8s.io';

/** Go's len of a string: its UTF-8 bytes, so "é" counts twice. */
const byteLength = (s: string): number => Buffer.byteLength(s, 'utf8');

/** Rules every Event meets, whichever version wrote it (legacyValidateEvent). */
export function legacyEventCauses(event: KubeObject, requestGroup: EventRequestGroup): StatusCause[] {
  const controllerField = requestGroup === '' ? 'reportingComponent' : 'reportingController';
  const causes: StatusCause[] = [];
  const namespace = asString(asObject(event.metadata).namespace);
  const involvedNamespace = asString(asObject(event.involvedObject).namespace);
  const mismatch = () => causes.push(invalid('involvedObject.namespace', involvedNamespace, 'does not match event.namespace'));
  if (isZeroTime(event.eventTime)) {
    // Old-style events: an involved object without a namespace is allowed only in "default"
    // (or without one), else the namespaces must agree.
    if (!involvedNamespace) {
      if (namespace !== '' && namespace !== 'default') mismatch();
    } else if (namespace !== involvedNamespace) mismatch();
    return causes;
  }
  if (!involvedNamespace && namespace !== 'default' && namespace !== 'kube-system') mismatch();
  const controller = asString(event.reportingComponent);
  if (!controller) causes.push(required(controllerField));
  for (const msg of isQualifiedName(controller)) causes.push(invalid(controllerField, controller, msg));
  const instance = asString(event.reportingInstance);
  if (!instance) causes.push(required('reportingInstance'));
  if (byteLength(instance) > REPORTING_INSTANCE_LIMIT) causes.push(invalid('reportingInstance', '', `can have at most ${REPORTING_INSTANCE_LIMIT} characters`));
  const action = asString(event.action);
  if (!action) causes.push(required('action'));
  if (byteLength(action) > ACTION_LIMIT) causes.push(invalid('action', '', `can have at most ${ACTION_LIMIT} characters`));
  const reason = asString(event.reason);
  if (!reason) causes.push(required('reason'));
  if (byteLength(reason) > REASON_LIMIT) causes.push(invalid('reason', '', `can have at most ${REASON_LIMIT} characters`));
  if (byteLength(asString(event.message)) > NOTE_LIMIT) causes.push(invalid('message', '', `can have at most ${NOTE_LIMIT} characters`));
  return causes;
}

/** validateV1EventSeries: a series has at least two occurrences and a last observed time. */
function seriesCauses(event: KubeObject): StatusCause[] {
  if (event.series === undefined || event.series === null) return [];
  const series = asObject(event.series);
  const causes: StatusCause[] = [];
  if (typeof series.count !== 'number' || series.count < 2) causes.push(invalid('series.count', '', 'should be at least 2'));
  if (isZeroTime(series.lastObservedTime)) causes.push(required('series.lastObservedTime'));
  return causes;
}

/** The extra rules of a create through events.k8s.io/v1 (metadata is checked by the generated validator). */
export function strictCreateCauses(event: KubeObject): StatusCause[] {
  const causes = seriesCauses(event);
  if (isZeroTime(event.eventTime)) causes.push(required('eventTime'));
  const type = asString(event.type);
  if (type !== 'Normal' && type !== 'Warning') causes.push(invalid('type', '', `has invalid value: ${type}`));
  if (!isZeroTime(event.firstTimestamp)) causes.push(invalid('firstTimestamp', '', 'needs to be unset'));
  if (!isZeroTime(event.lastTimestamp)) causes.push(invalid('lastTimestamp', '', 'needs to be unset'));
  if (typeof event.count === 'number' && event.count !== 0) causes.push(invalid('count', '', 'needs to be unset'));
  const source = asObject(event.source);
  if (asString(source.component) || asString(source.host)) causes.push(invalid('source', '', 'needs to be unset'));
  return causes;
}

/** Go's time.Time.String() of an RFC 3339 value in UTC: `2006-01-02 15:04:05.999999999 +0000 UTC`. */
function goTimeString(v: unknown): string {
  const text = asString(v);
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(text);
  if (!text || !m) return '0001-01-01 00:00:00 +0000 UTC';
  const fraction = (m[3] ?? '').replace(/0+$/, '');
  return `${m[1]} ${m[2]}${fraction ? `.${fraction}` : ''} +0000 UTC`;
}

/** Go's %#v of a core ObjectReference or EventSource, as an immutable-field error prints it. */
function goStruct(type: string, fields: [string, string][], value: unknown): string {
  const o = asObject(value);
  return `core.${type}{${fields.map(([goName, json]) => `${goName}:${JSON.stringify(asString(o[json]))}`).join(', ')}}`;
}

const REFERENCE_FIELDS: [string, string][] = [
  ['Kind', 'kind'],
  ['Namespace', 'namespace'],
  ['Name', 'name'],
  ['UID', 'uid'],
  ['APIVersion', 'apiVersion'],
  ['ResourceVersion', 'resourceVersion'],
  ['FieldPath', 'fieldPath'],
];
const SOURCE_FIELDS: [string, string][] = [
  ['Component', 'component'],
  ['Host', 'host'],
];

type Render = (v: unknown) => string;
const quoted: Render = (v) => JSON.stringify(asString(v));
const int: Render = (v) => String(typeof v === 'number' ? v : 0);
const reference: Render = (v) => goStruct('ObjectReference', REFERENCE_FIELDS, v);
const optionalReference: Render = (v) => (v === undefined || v === null ? 'null' : reference(v));

/** The fields an events.k8s.io/v1 update may not change, in kube's order (reason is checked twice there too). */
const IMMUTABLE: [string, Render, boolean][] = [
  ['involvedObject', reference, false],
  ['reason', quoted, false],
  ['message', quoted, false],
  ['source', (v) => goStruct('EventSource', SOURCE_FIELDS, v), false],
  ['firstTimestamp', goTimeString, true],
  ['lastTimestamp', goTimeString, true],
  ['count', int, false],
  ['reason', quoted, false],
  ['type', quoted, false],
  ['eventTime', goTimeString, true],
  ['action', quoted, false],
  ['related', optionalReference, false],
  ['reportingComponent', quoted, false],
  ['reportingInstance', quoted, false],
];

/** Values equal as Go sees them: an absent field is its zero value. */
function sameAsGo(a: unknown, b: unknown, isTime: boolean): boolean {
  if (isTime) return goTimeString(a) === goTimeString(b);
  const norm = (v: unknown) => (v === null ? undefined : isPlainObject(v) ? Object.fromEntries(Object.entries(v).filter(([, x]) => x !== '' && x !== undefined)) : v === '' || v === 0 ? undefined : v);
  return deepEqual(norm(a), norm(b));
}

/** The extra rules of an update through events.k8s.io/v1 (metadata is checked by the generated validator). */
export function strictUpdateCauses(event: KubeObject, old: KubeObject): StatusCause[] {
  const causes = deepEqual(event.series ?? null, old.series ?? null) ? [] : seriesCauses(event);
  for (const [field, render, isTime] of IMMUTABLE) {
    if (sameAsGo(event[field], old[field], isTime)) continue;
    // The stored name reportingComponent is reported as the internal field reportingController.
    const path = field === 'reportingComponent' ? 'reportingController' : field;
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${render(event[field])}: field is immutable`, field: path });
  }
  return causes;
}
