// core/v1 Event and events.k8s.io/v1 Event are two views of one stored object, as in
// kube-apiserver: both store core/v1 objects under /registry/events/<namespace>/<name>, and an
// event written through one view is read, listed, watched, patched and deleted through the other
// with the field renames of pkg/apis/events/v1/conversion.go applied both ways.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { openWatch } from '../support/watch-client.js';

type Obj = Record<string, unknown>;

const CORE = '/api/v1/namespaces/default/events';
const EVENTS = '/apis/events.k8s.io/v1/namespaces/default/events';

const newStyle = (name: string, extra: Obj = {}): Obj => ({
  apiVersion: 'events.k8s.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2024-05-01T10:00:00.123456Z',
  type: 'Warning',
  reason: 'BackOff',
  action: 'Pulling',
  reportingController: 'k8s.io/kubelet',
  reportingInstance: 'kubelet-node-1',
  regarding: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: 'u-1', fieldPath: 'spec.containers{web}' },
  related: { kind: 'Node', name: 'node-1' },
  note: 'Back-off pulling image',
  series: { count: 2, lastObservedTime: '2024-05-01T10:01:00.000001Z' },
  ...extra,
});

const oldStyle = (name: string, extra: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-2' },
  reason: 'Started',
  message: 'Started container web',
  source: { component: 'kubelet', host: 'node-2' },
  firstTimestamp: '2024-05-01T10:00:00Z',
  lastTimestamp: '2024-05-01T10:02:00Z',
  count: 3,
  type: 'Normal',
  ...extra,
});

let server: RunningServer;
let creds: Credentials;

async function send(method: string, path: string, body?: unknown, contentType = 'application/json') {
  const res = await call(server.url, path, creds, { method, headers: { 'content-type': contentType }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  return { status: res.status, body: res.json<Obj>() };
}

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  creds = kubeconfigCredentials(server.kubeconfig);
});
afterAll(() => server?.close());

describe('one Event, two views', () => {
  it('reads an events.k8s.io/v1 event through core/v1 with the core names', async () => {
    const created = await send('POST', EVENTS, newStyle('pull-1'));
    expect(created.status).toBe(201);
    const got = await send('GET', `${CORE}/pull-1`);
    expect(got.status).toBe(200);
    const { metadata, ...rest } = got.body;
    expect(rest).toEqual({
      kind: 'Event',
      apiVersion: 'v1',
      eventTime: '2024-05-01T10:00:00.123456Z',
      type: 'Warning',
      reason: 'BackOff',
      action: 'Pulling',
      reportingComponent: 'k8s.io/kubelet',
      reportingInstance: 'kubelet-node-1',
      involvedObject: { kind: 'Pod', namespace: 'default', name: 'web-1', uid: 'u-1', fieldPath: 'spec.containers{web}' },
      related: { kind: 'Node', name: 'node-1' },
      message: 'Back-off pulling image',
      series: { count: 2, lastObservedTime: '2024-05-01T10:01:00.000001Z' },
    });
    expect((metadata as Obj).uid).toBe((created.body.metadata as Obj).uid);
    expect((metadata as Obj).resourceVersion).toBe((created.body.metadata as Obj).resourceVersion);
  });

  it('reads a core/v1 event through events.k8s.io/v1 with the deprecated names', async () => {
    expect((await send('POST', CORE, oldStyle('started-1'))).status).toBe(201);
    const got = await send('GET', `${EVENTS}/started-1`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      regarding: { kind: 'Pod', namespace: 'default', name: 'web-2' },
      note: 'Started container web',
      deprecatedSource: { component: 'kubelet', host: 'node-2' },
      deprecatedFirstTimestamp: '2024-05-01T10:00:00Z',
      deprecatedLastTimestamp: '2024-05-01T10:02:00Z',
      deprecatedCount: 3,
      type: 'Normal',
    });
    for (const old of ['involvedObject', 'message', 'source', 'firstTimestamp', 'lastTimestamp', 'count']) expect(got.body).not.toHaveProperty(old);
  });

  it('lists both kinds of events through both views, across namespaces too', async () => {
    for (const path of [CORE, EVENTS, '/api/v1/events', '/apis/events.k8s.io/v1/events']) {
      const list = await send('GET', path);
      const names = (list.body.items as Obj[]).map((i) => (i.metadata as Obj).name);
      expect(names).toEqual(expect.arrayContaining(['pull-1', 'started-1']));
    }
    const viaEvents = await send('GET', EVENTS);
    expect(viaEvents.body.kind).toBe('EventList');
    expect(viaEvents.body.apiVersion).toBe('events.k8s.io/v1');
    expect((viaEvents.body.items as Obj[]).find((i) => (i.metadata as Obj).name === 'started-1')).toHaveProperty('note', 'Started container web');
  });

  it('selects by each version’s field names', async () => {
    const names = async (path: string) => {
      const res = await send('GET', path);
      return res.status === 200 ? (res.body.items as Obj[]).map((i) => (i.metadata as Obj).name) : res;
    };
    expect(await names(`${CORE}?fieldSelector=involvedObject.name%3Dweb-1`)).toEqual(['pull-1']);
    expect(await names(`${CORE}?fieldSelector=reportingComponent%3Dk8s.io/kubelet`)).toEqual(['pull-1']);
    expect(await names(`${CORE}?fieldSelector=source%3Dkubelet`)).toEqual(['started-1']);
    expect(await names(`${CORE}?fieldSelector=type%3DWarning,reason%3DBackOff`)).toEqual(['pull-1']);
    expect(await names(`${EVENTS}?fieldSelector=regarding.name%3Dweb-2`)).toEqual(['started-1']);
    expect(await names(`${EVENTS}?fieldSelector=reportingController%3Dk8s.io/kubelet`)).toEqual(['pull-1']);
    expect(await names(`/apis/events.k8s.io/v1/events?fieldSelector=regarding.kind%3DPod,type!%3DNormal`)).toEqual(['pull-1']);
    // Each view knows only its own names.
    const wrong = await send('GET', `${EVENTS}?fieldSelector=involvedObject.name%3Dweb-1`);
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe('field label not supported: involvedObject.name');
    expect((await send('GET', `${CORE}?fieldSelector=regarding.name%3Dweb-1`)).status).toBe(400);
  });

  it('watches through one view what is written through the other', async () => {
    const list = await send('GET', CORE);
    const rv = (list.body.metadata as Obj).resourceVersion as string;
    const coreWatch = await openWatch(server.url, `${CORE}?watch=1&resourceVersion=${rv}`, creds);
    const eventsWatch = await openWatch(server.url, `${EVENTS}?watch=1&resourceVersion=${rv}&fieldSelector=regarding.name%3Dweb-3`, creds);
    try {
      expect((await send('POST', EVENTS, newStyle('watched-1', { regarding: { kind: 'Pod', namespace: 'default', name: 'web-3' } }))).status).toBe(201);
      expect((await send('PATCH', `${CORE}/watched-1`, { metadata: { labels: { seen: 'yes' } } }, 'application/merge-patch+json')).status).toBe(200);
      expect((await send('DELETE', `${CORE}/watched-1`)).status).toBe(200);
      const viaCore = await coreWatch.until((e) => e.type === 'DELETED');
      expect(viaCore.map((e) => [e.type, e.object.apiVersion, e.object.message])).toEqual([
        ['ADDED', 'v1', 'Back-off pulling image'],
        ['MODIFIED', 'v1', 'Back-off pulling image'],
        ['DELETED', 'v1', 'Back-off pulling image'],
      ]);
      const viaEvents = await eventsWatch.until((e) => e.type === 'DELETED');
      expect(viaEvents.map((e) => [e.type, e.object.apiVersion, e.object.note, (e.object.regarding as Obj).name])).toEqual([
        ['ADDED', 'events.k8s.io/v1', 'Back-off pulling image', 'web-3'],
        ['MODIFIED', 'events.k8s.io/v1', 'Back-off pulling image', 'web-3'],
        ['DELETED', 'events.k8s.io/v1', 'Back-off pulling image', 'web-3'],
      ]);
    } finally {
      coreWatch.close();
      eventsWatch.close();
    }
  });

  it('patches through the other view with every patch type', async () => {
    expect((await send('POST', CORE, oldStyle('patched-1'))).status).toBe(201);
    const merge = await send('PATCH', `${EVENTS}/patched-1`, { deprecatedCount: 4, metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json');
    // An update through events.k8s.io/v1 may not change the deprecated count (kube-apiserver's
    // strict update rules), even of an event created through core/v1; through core/v1 it may.
    expect(merge.status).toBe(422);
    expect((merge.body.details as Obj).causes).toEqual([{ reason: 'FieldValueInvalid', message: 'Invalid value: 4: field is immutable', field: 'count' }]);
    const strategic = await send('PATCH', `${CORE}/patched-1`, { count: 4, message: 'again' }, 'application/strategic-merge-patch+json');
    expect(strategic.status).toBe(200);
    const json = await send('PATCH', `${CORE}/patched-1`, [{ op: 'replace', path: '/lastTimestamp', value: '2024-05-01T10:09:00Z' }], 'application/json-patch+json');
    expect(json.status).toBe(200);
    const labels = await send('PATCH', `${EVENTS}/patched-1`, { metadata: { labels: { a: 'b' } } }, 'application/merge-patch+json');
    expect(labels.status).toBe(200);
    expect(labels.body).toMatchObject({ deprecatedCount: 4, note: 'again', deprecatedLastTimestamp: '2024-05-01T10:09:00Z', metadata: { labels: { a: 'b' } } });
  });

  it('applies through events.k8s.io/v1, recording the manager with that apiVersion', async () => {
    const body = { ...newStyle('applied-1'), metadata: { name: 'applied-1', namespace: 'default' } };
    const applied = await send('PATCH', `${EVENTS}/applied-1?fieldManager=recorder`, body, 'application/apply-patch+yaml');
    expect(applied.status).toBe(201);
    const viaCore = await send('GET', `${CORE}/applied-1`);
    const managed = (viaCore.body.metadata as Obj).managedFields as Obj[];
    expect(managed.map((m) => [m.manager, m.operation, m.apiVersion])).toEqual([['recorder', 'Apply', 'events.k8s.io/v1']]);
    expect(viaCore.body).toMatchObject({ message: 'Back-off pulling image', reportingComponent: 'k8s.io/kubelet' });
  });

  it('compares ownership across views: an apply through core/v1 conflicts with the events.k8s.io/v1 applier', async () => {
    const body = { ...newStyle('owned-1'), metadata: { name: 'owned-1', namespace: 'default' } };
    expect((await send('PATCH', `${EVENTS}/owned-1?fieldManager=recorder`, body, 'application/apply-patch+yaml')).status).toBe(201);
    const core = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'owned-1', namespace: 'default' }, message: 'changed' };
    const conflict = await send('PATCH', `${CORE}/owned-1?fieldManager=other`, core, 'application/apply-patch+yaml');
    expect(conflict.status).toBe(409);
    // The conflict names the field as the owner's version does.
    expect(conflict.body.message).toBe('Apply failed with 1 conflict: conflict with "recorder": .note');
    const forced = await send('PATCH', `${CORE}/owned-1?fieldManager=other&force=true`, core, 'application/apply-patch+yaml');
    expect(forced.status).toBe(200);
    // Each manager keeps its fields in the names of the version it wrote with.
    const managed = (forced.body.metadata as Obj).managedFields as { manager: string; apiVersion: string; fieldsV1: Obj }[];
    const byManager = Object.fromEntries(managed.map((m) => [m.manager, m]));
    expect(Object.keys(byManager).sort()).toEqual(['other', 'recorder']);
    expect(byManager.recorder!.apiVersion).toBe('events.k8s.io/v1');
    expect(Object.keys(byManager.recorder!.fieldsV1)).not.toContain('f:note');
    expect(Object.keys(byManager.recorder!.fieldsV1)).toContain('f:regarding');
    expect(byManager.other).toMatchObject({ apiVersion: 'v1', fieldsV1: { 'f:message': {} } });
    // An update through core/v1 takes the field from the events.k8s.io/v1 applier too.
    const update = await send('PATCH', `${CORE}/owned-1?fieldManager=editor`, { reason: 'Changed' }, 'application/merge-patch+json');
    const after = (update.body.metadata as Obj).managedFields as { manager: string; fieldsV1: Obj }[];
    expect(Object.keys(after.find((m) => m.manager === 'recorder')!.fieldsV1)).not.toContain('f:reason');
  });

  it('deletes a collection through one view, selected by its field names', async () => {
    expect((await send('POST', EVENTS, newStyle('gone-1', { regarding: { kind: 'Pod', namespace: 'default', name: 'doomed' } }))).status).toBe(201);
    expect((await send('POST', CORE, oldStyle('gone-2', { involvedObject: { kind: 'Pod', namespace: 'default', name: 'doomed' } }))).status).toBe(201);
    const deleted = await send('DELETE', `${EVENTS}?fieldSelector=regarding.name%3Ddoomed`);
    expect(deleted.status).toBe(200);
    expect((deleted.body.items as Obj[]).map((i) => (i.metadata as Obj).name).sort()).toEqual(['gone-1', 'gone-2']);
    expect((await send('GET', `${CORE}/gone-1`)).status).toBe(404);
    expect((await send('GET', `${EVENTS}/gone-2`)).status).toBe(404);
  });

  it('creates a missing event on PUT (201), as kube-apiserver’s event strategy allows, and replaces it after', async () => {
    const put = await send('PUT', `${CORE}/put-1`, { ...oldStyle('put-1'), metadata: { name: 'put-1', resourceVersion: '12345' } });
    expect(put.status).toBe(201);
    expect(put.body).toMatchObject({ apiVersion: 'v1', message: 'Started container web' });
    const again = await send('PUT', `${EVENTS}/put-1`, { ...(await send('GET', `${EVENTS}/put-1`)).body, metadata: { name: 'put-1', labels: { x: 'y' } } });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'Started container web', metadata: { labels: { x: 'y' } } });
    const viaEvents = await send('PUT', `${EVENTS}/put-2`, newStyle('put-2'));
    expect(viaEvents.status).toBe(201);
    // The body must still name the object the URL names; other kinds still answer 404.
    expect((await send('PUT', `${CORE}/put-3`, oldStyle('put-4'))).body.message).toBe('the name of the object (put-4) does not match the name on the URL (put-3)');
    expect((await send('PUT', '/api/v1/namespaces/default/configmaps/none', { metadata: { name: 'none' } })).status).toBe(404);
    // Patches of a missing event are still 404.
    expect((await send('PATCH', `${CORE}/put-5`, { message: 'x' }, 'application/merge-patch+json')).status).toBe(404);
  });

  it('reports errors as kube-apiserver’s shared event storage does', async () => {
    // NotFound and AlreadyExists name the resource of the request…
    const missing = await send('GET', `${EVENTS}/nope`);
    expect(missing.body).toMatchObject({ code: 404, reason: 'NotFound', message: 'events.events.k8s.io "nope" not found', details: { name: 'nope', group: 'events.k8s.io', kind: 'events' } });
    expect((await send('POST', EVENTS, newStyle('pull-1'))).body.message).toBe('events.events.k8s.io "pull-1" already exists');
    // …while Invalid names the kind validated, core Event, whichever endpoint was used.
    const bad = await send('POST', EVENTS, newStyle('bad-1', { type: 'Info' }));
    expect(bad.status).toBe(422);
    expect(bad.body.message).toBe('Event "bad-1" is invalid: type: Invalid value: "": has invalid value: Info');
    expect(bad.body.details).toEqual({ name: 'bad-1', kind: 'Event', causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: "": has invalid value: Info', field: 'type' }] });
  });

  it('shows the same storageVersionHash for both in discovery', async () => {
    const core = await send('GET', '/api/v1');
    const events = await send('GET', '/apis/events.k8s.io/v1');
    const hash = (doc: Obj) => (doc.resources as Obj[]).find((r) => r.name === 'events')!.storageVersionHash;
    expect(hash(core.body)).toBe('r2yiGXH7wu8=');
    expect(hash(events.body)).toBe('r2yiGXH7wu8=');
  });

  it('prints both views with the core Event columns', async () => {
    const table = async (path: string) => {
      const res = await call(server.url, path, creds, { headers: { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' } });
      return res.json<{ columnDefinitions: { name: string }[]; rows: { cells: unknown[] }[] }>();
    };
    for (const path of [`${CORE}?fieldSelector=metadata.name%3Dstarted-1`, `${EVENTS}?fieldSelector=metadata.name%3Dstarted-1`]) {
      const t = await table(path);
      expect(t.columnDefinitions.map((c) => c.name)).toEqual(['Last Seen', 'Type', 'Reason', 'Object', 'Subobject', 'Source', 'Message', 'First Seen', 'Count', 'Name']);
      const [lastSeen, type, reason, object, subobject, source, message, firstSeen, count, name] = t.rows[0]!.cells;
      expect([type, reason, object, subobject, source, message, count, name]).toEqual(['Normal', 'Started', 'pod/web-2', '', 'kubelet, node-2', 'Started container web', 3, 'started-1']);
      expect(lastSeen).toMatch(/^\d+[smhdy]/);
      expect(firstSeen).toMatch(/^\d+[smhdy]/);
    }
    const series = await table(`${EVENTS}?fieldSelector=metadata.name%3Dpull-1`);
    // A series counts its occurrences; its source is the reporting controller and instance.
    expect(series.rows[0]!.cells.slice(1, 9)).toEqual(['Warning', 'BackOff', 'pod/web-1', 'spec.containers{web}', 'k8s.io/kubelet, kubelet-node-1', 'Back-off pulling image', expect.any(String), 2]);
  });
});

describe('storage of both views', () => {
  it('keeps core/v1 objects under /registry/events/<namespace>/<name>', async () => {
    const storage = new MemoryStorage();
    const registry = new ResourceRegistry(storage, resources, { watchCache: false });
    const events = registry.storeFor('events.k8s.io', 'v1', 'events')!;
    const core = registry.storeFor('', 'v1', 'events')!;
    await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'default' } });
    await events.create('default', newStyle('kept-1'));
    const kv = await storage.get('/registry/events/default/kept-1');
    expect(kv).toBeDefined();
    const stored = JSON.parse(kv!.value) as Obj;
    expect(stored).toMatchObject({ apiVersion: 'v1', kind: 'Event', message: 'Back-off pulling image', involvedObject: { name: 'web-1' }, reportingComponent: 'k8s.io/kubelet' });
    expect(stored).not.toHaveProperty('note');
    expect(await core.get('default', 'kept-1')).toMatchObject({ apiVersion: 'v1', message: 'Back-off pulling image' });
    expect(registry.namespacedStores().filter((s) => s.definition.plural === 'events')).toHaveLength(1);
    registry.close();
  });
});
