// Event validation as kube-apiserver does it (pkg/apis/core/validation/events.go): the rules
// depend on the version a request came through, and causes always name the stored (core/v1)
// fields, even for events.k8s.io/v1 writes. core/v1 writes get the legacy rules only;
// events.k8s.io/v1 writes also the strict ones, and may change little on update.

import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { strategiesFor } from '../../runtime/registry/strategies/index.js';

type Obj = Record<string, unknown>;
type Cause = { reason: string; field: string; message: string };

const core = strategiesFor(resources.find((r) => r.group === '' && r.kind === 'Event')!).main;
const events = strategiesFor(resources.find((r) => r.group === 'events.k8s.io' && r.kind === 'Event')!).main;

const meta = (extra: Obj = {}) => ({ name: 'pod-a.17a1', namespace: 'default', ...extra });

/** A valid new-style event through events.k8s.io/v1. */
const newEvent = (extra: Obj = {}): Obj => ({
  metadata: meta(),
  eventTime: '2024-05-01T10:00:00.123456Z',
  type: 'Normal',
  reason: 'Started',
  action: 'StartContainer',
  reportingController: 'k8s.io/kubelet',
  reportingInstance: 'kubelet-node-1',
  regarding: { kind: 'Pod', namespace: 'default', name: 'pod-a' },
  note: 'Started container app',
  ...extra,
});

/** A valid old-style event through core/v1 (what client-go's legacy recorder writes). */
const oldEvent = (extra: Obj = {}): Obj => ({
  metadata: meta(),
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'pod-a' },
  reason: 'Started',
  message: 'Started container app',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2024-05-01T10:00:00Z',
  lastTimestamp: '2024-05-01T10:00:00Z',
  count: 1,
  type: 'Normal',
  ...extra,
});

const req = (field: string): Cause => ({ reason: 'FieldValueRequired', field, message: 'Required value' });
const inv = (field: string, message: string): Cause => ({ reason: 'FieldValueInvalid', field, message });
const QUALIFIED_NAME_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
// kube-apiserver also runs the qualified-name check on an empty controller: three causes, at the
// field name of the version the request came through.
const noControllerAt = (field: string): Cause[] => [
  req(field),
  inv(field, 'Invalid value: "": name part must be non-empty'),
  inv(field, `Invalid value: "": ${QUALIFIED_NAME_MSG}`),
];
const noController = noControllerAt('reportingController');
const stored = (obj: Obj): Obj => ({ ...obj, metadata: { ...(obj.metadata as Obj), resourceVersion: '7', uid: 'u-1', creationTimestamp: '2024-05-01T10:00:00Z' } });

describe('core/v1 Event: legacy rules only', () => {
  const cases: [string, Obj, Cause[]][] = [
    ['an old-style event', oldEvent(), []],
    ['no involved namespace in "default"', oldEvent({ involvedObject: { kind: 'Node', name: 'node-1' } }), []],
    [
      'no involved namespace outside "default"',
      oldEvent({ metadata: meta({ namespace: 'team-a' }), involvedObject: { kind: 'Node', name: 'node-1' } }),
      [inv('involvedObject.namespace', 'Invalid value: "": does not match event.namespace')],
    ],
    [
      'involved namespace differs',
      oldEvent({ involvedObject: { kind: 'Pod', namespace: 'team-a', name: 'p' } }),
      [inv('involvedObject.namespace', 'Invalid value: "team-a": does not match event.namespace')],
    ],
    ['no type, reason or action: lenient', oldEvent({ type: 'Custom', reason: undefined }), []],
    ['a name that is only a path segment', oldEvent({ metadata: meta({ name: 'Pod_A:1' }) }), []],
    [
      'eventTime set: the new-style fields are required, the controller under its core/v1 name',
      oldEvent({ eventTime: '2024-05-01T10:00:00.000001Z', reason: undefined }),
      [...noControllerAt('reportingComponent'), req('reportingInstance'), req('action'), req('reason')],
    ],
    [
      'eventTime set: a cluster-scoped object may be reported from kube-system',
      oldEvent({ metadata: meta({ namespace: 'kube-system' }), involvedObject: { kind: 'Node', name: 'n' }, eventTime: '2024-05-01T10:00:00.000001Z', reportingComponent: 'kubelet', reportingInstance: 'n', action: 'A' }),
      [],
    ],
    [
      'eventTime set: a cluster-scoped object elsewhere',
      oldEvent({ metadata: meta({ namespace: 'team-a' }), involvedObject: { kind: 'Node', name: 'n' }, eventTime: '2024-05-01T10:00:00.000001Z', reportingComponent: 'kubelet', reportingInstance: 'n', action: 'A' }),
      [inv('involvedObject.namespace', 'Invalid value: "": does not match event.namespace')],
    ],
    [
      'eventTime set: limits of reportingInstance, action, reason and message',
      oldEvent({
        eventTime: '2024-05-01T10:00:00.000001Z',
        reportingComponent: 'kubelet',
        reportingInstance: 'i'.repeat(129),
        action: 'a'.repeat(129),
        reason: 'r'.repeat(129),
        message: 'm'.repeat(1025),
      }),
      [
        inv('reportingInstance', 'Invalid value: "": can have at most 128 characters'),
        inv('action', 'Invalid value: "": can have at most 128 characters'),
        inv('reason', 'Invalid value: "": can have at most 128 characters'),
        inv('message', 'Invalid value: "": can have at most 1024 characters'),
      ],
    ],
    [
      'eventTime set: reportingComponent must be a qualified name',
      oldEvent({ eventTime: '2024-05-01T10:00:00.000001Z', reportingComponent: 'bad name', reportingInstance: 'i', action: 'A' }),
      [
        inv('reportingComponent', `Invalid value: "bad name": ${QUALIFIED_NAME_MSG}`),
      ],
    ],
    // Go's len counts bytes: 100 x "é" is 200 bytes, over the limit of 128.
    [
      'eventTime set: limits count UTF-8 bytes, not characters',
      oldEvent({
        eventTime: '2024-05-01T10:00:00.000001Z',
        reportingComponent: 'kubelet',
        reportingInstance: 'é'.repeat(65),
        action: 'é'.repeat(65),
        reason: 'é'.repeat(100),
        message: 'é'.repeat(513),
      }),
      [
        inv('reportingInstance', 'Invalid value: "": can have at most 128 characters'),
        inv('action', 'Invalid value: "": can have at most 128 characters'),
        inv('reason', 'Invalid value: "": can have at most 128 characters'),
        inv('message', 'Invalid value: "": can have at most 1024 characters'),
      ],
    ],
    [
      'eventTime set: exactly at the byte limits',
      oldEvent({
        eventTime: '2024-05-01T10:00:00.000001Z',
        reportingComponent: 'kubelet',
        reportingInstance: 'é'.repeat(64),
        action: 'é'.repeat(64),
        reason: 'é'.repeat(64),
        message: 'é'.repeat(512),
      }),
      [],
    ],
  ];
  it.each(cases)('%s', (_name, obj, want) => {
    expect(core.validate(obj)).toEqual(want);
  });

  it('lets every field change on update', () => {
    const old = stored(oldEvent());
    const changed = { ...old, message: 'other', count: 2, lastTimestamp: '2024-05-01T10:05:00Z', type: 'Warning', involvedObject: { kind: 'Pod', namespace: 'default', name: 'pod-b' } };
    expect(core.validateUpdate(changed, old)).toEqual([]);
  });
});

describe('events.k8s.io/v1 Event: strict rules on create', () => {
  const cases: [string, Obj, Cause[]][] = [
    ['a new-style event', newEvent(), []],
    ['a series with two occurrences', newEvent({ series: { count: 2, lastObservedTime: '2024-05-01T10:01:00.000000Z' } }), []],
    ['type Warning', newEvent({ type: 'Warning' }), []],
    [
      'nothing but a name: eventTime and type',
      { metadata: meta() },
      [req('eventTime'), inv('type', 'Invalid value: "": has invalid value: ')],
    ],
    ['an unknown type', newEvent({ type: 'Info' }), [inv('type', 'Invalid value: "": has invalid value: Info')]],
    [
      'missing controller, instance, action and reason',
      newEvent({ reportingController: undefined, reportingInstance: '', action: undefined, reason: undefined }),
      [...noController, req('reportingInstance'), req('action'), req('reason')],
    ],
    ['a note over 1 KiB is reported at message', newEvent({ note: 'n'.repeat(1025) }), [inv('message', 'Invalid value: "": can have at most 1024 characters')]],
    ['a note of exactly 1 KiB', newEvent({ note: 'n'.repeat(1024) }), []],
    ['a note of 1 KiB + 1 in UTF-8 bytes', newEvent({ note: 'é'.repeat(512) + 'n' }), [inv('message', 'Invalid value: "": can have at most 1024 characters')]],
    ['a reason of 100 x "é" (200 bytes)', newEvent({ reason: 'é'.repeat(100) }), [inv('reason', 'Invalid value: "": can have at most 128 characters')]],
    [
      'the deprecated fields must be unset',
      newEvent({ deprecatedFirstTimestamp: '2024-05-01T10:00:00Z', deprecatedLastTimestamp: '2024-05-01T10:00:00Z', deprecatedCount: 3, deprecatedSource: { component: 'kubelet' } }),
      [
        inv('firstTimestamp', 'Invalid value: "": needs to be unset'),
        inv('lastTimestamp', 'Invalid value: "": needs to be unset'),
        inv('count', 'Invalid value: "": needs to be unset'),
        inv('source', 'Invalid value: "": needs to be unset'),
      ],
    ],
    [
      'a series of one, without a time',
      newEvent({ series: { count: 1 } }),
      [inv('series.count', 'Invalid value: "": should be at least 2'), req('series.lastObservedTime')],
    ],
    // New-style events only need a namespace on regarding outside default and kube-system.
    ['regarding in another namespace', newEvent({ regarding: { kind: 'Pod', namespace: 'team-a', name: 'p' } }), []],
    [
      'regarding without a namespace outside default and kube-system',
      newEvent({ metadata: meta({ namespace: 'team-a' }), regarding: { kind: 'Node', name: 'n' } }),
      [inv('involvedObject.namespace', 'Invalid value: "": does not match event.namespace')],
    ],
    [
      'the name must be a DNS subdomain here',
      newEvent({ metadata: meta({ name: 'Pod_A' }) }),
      [
        inv(
          'metadata.name',
          `Invalid value: "Pod_A": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
        ),
      ],
    ],
  ];
  it.each(cases)('%s', (_name, obj, want) => {
    expect(events.validate(obj)).toEqual(want);
  });
});

describe('events.k8s.io/v1 Event: update', () => {
  const old = stored(newEvent({ related: { kind: 'Node', name: 'node-1' } }));
  const immutable = (field: string, message: string): Cause => inv(field, `Invalid value: ${message}: field is immutable`);

  it('accepts a new series and changed metadata', () => {
    const next = { ...old, metadata: { ...(old.metadata as Obj), labels: { a: 'b' } }, series: { count: 2, lastObservedTime: '2024-05-01T10:01:00.5Z' } };
    expect(events.validateUpdate(next, old)).toEqual([]);
  });

  it('checks a changed series', () => {
    expect(events.validateUpdate({ ...old, series: { count: 1, lastObservedTime: '2024-05-01T10:01:00Z' } }, old)).toEqual([inv('series.count', 'Invalid value: "": should be at least 2')]);
  });

  const cases: [string, Obj, Cause[]][] = [
    ['regarding', { regarding: { kind: 'Pod', namespace: 'default', name: 'pod-b' } }, [immutable('involvedObject', 'core.ObjectReference{Kind:"Pod", Namespace:"default", Name:"pod-b", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}')]],
    // kube-apiserver checks reason twice, so a changed reason is reported twice.
    ['reason', { reason: 'Killed' }, [immutable('reason', '"Killed"'), immutable('reason', '"Killed"')]],
    ['note', { note: 'other' }, [immutable('message', '"other"')]],
    ['type', { type: 'Warning' }, [immutable('type', '"Warning"')]],
    ['eventTime', { eventTime: '2024-05-01T10:00:01.5Z' }, [immutable('eventTime', '2024-05-01 10:00:01.5 +0000 UTC')]],
    ['action', { action: 'Kill' }, [immutable('action', '"Kill"')]],
    ['related removed', { related: undefined }, [immutable('related', 'null')]],
    ['reportingController', { reportingController: 'k8s.io/other' }, [immutable('reportingController', '"k8s.io/other"')]],
    ['reportingInstance', { reportingInstance: 'kubelet-node-2' }, [immutable('reportingInstance', '"kubelet-node-2"')]],
  ];
  it.each(cases)('refuses a change of %s', (_name, change, want) => {
    expect(events.validateUpdate({ ...old, ...change }, old)).toEqual(want);
  });

  it('refuses deprecated fields set by an update (they must stay as stored)', () => {
    expect(events.validateUpdate({ ...old, deprecatedCount: 4, deprecatedSource: { component: 'x' } }, old)).toEqual([
      immutable('source', 'core.EventSource{Component:"x", Host:""}'),
      immutable('count', '4'),
    ]);
  });

  it('applies only the legacy rules to updates of old-style events through core/v1', () => {
    const legacy = stored(oldEvent());
    expect(core.validateUpdate({ ...legacy, involvedObject: { kind: 'Pod', namespace: 'team-a', name: 'x' } }, legacy)).toEqual([
      inv('involvedObject.namespace', 'Invalid value: "team-a": does not match event.namespace'),
    ]);
  });
});

describe('Event field selectors', () => {
  const obj = stored(oldEvent({ reportingComponent: 'k8s.io/kubelet', source: {} }));
  it('core/v1 selects by involvedObject.*, reason, reportingComponent, source and type', () => {
    expect(core.selectableFields(obj)).toEqual({
      'metadata.name': 'pod-a.17a1',
      'metadata.namespace': 'default',
      'involvedObject.kind': 'Pod',
      'involvedObject.namespace': 'default',
      'involvedObject.name': 'pod-a',
      'involvedObject.uid': '',
      'involvedObject.apiVersion': '',
      'involvedObject.resourceVersion': '',
      'involvedObject.fieldPath': '',
      reason: 'Started',
      reportingComponent: 'k8s.io/kubelet',
      // Without a source component, `source` is the reporting controller.
      source: 'k8s.io/kubelet',
      type: 'Normal',
    });
  });
  it('events.k8s.io/v1 selects by the names of its own fields', () => {
    expect(Object.keys(events.selectableFields(newEvent())).sort()).toEqual(
      [
        'metadata.name',
        'metadata.namespace',
        'reason',
        'regarding.apiVersion',
        'regarding.fieldPath',
        'regarding.kind',
        'regarding.name',
        'regarding.namespace',
        'regarding.resourceVersion',
        'regarding.uid',
        'reportingController',
        'source',
        'type',
      ].sort(),
    );
    expect(events.selectableFields(newEvent())).toMatchObject({ 'regarding.name': 'pod-a', reportingController: 'k8s.io/kubelet', source: 'k8s.io/kubelet' });
  });
});
