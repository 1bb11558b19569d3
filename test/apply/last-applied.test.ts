// The handover between client-side and server-side apply through HTTP, as kube-apiserver's
// lastAppliedManager and lastAppliedUpdater behave: a "kubectl" server-side apply of an object
// its client-side applies manage takes the fields over without conflicts, where the annotation
// still describes them, and it keeps the annotation in step with what it applied.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWireServer, type WireServer } from '../support/wire-client.js';

let wire: WireServer;
const NS = '/api/v1/namespaces/default/configmaps';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

beforeAll(async () => {
  wire = await startWireServer();
});
afterAll(async () => {
  await wire?.close();
});

interface Entry {
  manager: string;
  operation: string;
  fieldsV1: Record<string, Record<string, unknown>>;
}
interface ConfigMap {
  metadata: { annotations?: Record<string, string>; managedFields?: Entry[] };
  data?: Record<string, string>;
}
interface Status {
  message: string;
  details: { causes: { reason: string; message: string; field: string }[] };
}

const manifest = (name: string, data: Record<string, string>, annotations?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', ...(annotations ? { annotations } : {}) },
  data,
});

/** What `kubectl apply` (client-side) leaves on a new object: the manifest in the annotation. */
async function clientSideCreate(name: string, data: Record<string, string>): Promise<ConfigMap> {
  const lastApplied = `${JSON.stringify(manifest(name, data))}\n`;
  const r = await wire.call('POST', `${NS}?fieldManager=kubectl-client-side-apply`, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(manifest(name, data, { [LAST_APPLIED]: lastApplied })),
  });
  expect(r.status).toBe(201);
  return r.json<ConfigMap>();
}

const apply = (name: string, manager: string, body: unknown) =>
  wire.call('PATCH', `${NS}/${name}?fieldManager=${manager}`, { headers: { 'content-type': 'application/apply-patch+yaml' }, body: JSON.stringify(body) });

const mergePatch = (name: string, manager: string, body: unknown) =>
  wire.call('PATCH', `${NS}/${name}?fieldManager=${manager}`, { headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify(body) });

const owned = (cm: ConfigMap, manager: string) => cm.metadata.managedFields?.find((e) => e.manager === manager)?.fieldsV1;

describe('client-side to server-side apply handover', () => {
  it('lets kubectl take over fields its client-side apply set, and rewrites the annotation', async () => {
    await clientSideCreate('handover', { a: '1', b: '2' });
    const config = manifest('handover', { a: 'changed', b: '2' });
    const r = await apply('handover', 'kubectl', config);
    expect(r.status).toBe(200);
    const cm = r.json<ConfigMap>();
    expect(cm.data).toEqual({ a: 'changed', b: '2' });
    expect(owned(cm, 'kubectl')).toEqual({ 'f:data': { 'f:a': {}, 'f:b': {} } });
    // The client-side manager loses the field whose value changed and shares the one that did not.
    expect(owned(cm, 'kubectl-client-side-apply')?.['f:data']).toEqual({ '.': {}, 'f:b': {} });
    // Go's encoder: keys sorted, one final newline.
    expect(cm.metadata.annotations?.[LAST_APPLIED]).toBe(
      '{"apiVersion":"v1","data":{"a":"changed","b":"2"},"kind":"ConfigMap","metadata":{"name":"handover","namespace":"default"}}\n',
    );
  });

  it('keeps the conflicts of any other applier', async () => {
    await clientSideCreate('other-applier', { a: '1' });
    const r = await apply('other-applier', 'helm', manifest('other-applier', { a: 'changed' }));
    expect(r.status).toBe(409);
    expect(r.json<Status>().message).toBe('Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a');
  });

  it('does not forgive a field changed since the last client-side apply', async () => {
    await clientSideCreate('edited', { a: '1', b: '2' });
    expect((await mergePatch('edited', 'editor', { data: { a: 'edited' } })).status).toBe(200);
    const r = await apply('edited', 'kubectl', manifest('edited', { a: 'mine', b: 'mine' }));
    expect(r.status).toBe(409);
    const status = r.json<Status>();
    // b is forgiven (the annotation still describes it); a is the editor's.
    expect(status.message).toBe('Apply failed with 1 conflict: conflict with "editor" using v1: .data.a');
    expect(status.details.causes).toEqual([{ reason: 'FieldManagerConflict', message: 'conflict with "editor" using v1', field: '.data.a' }]);
  });

  it('does not forgive fields the annotation never set', async () => {
    await clientSideCreate('unlisted', { a: '1' });
    expect((await mergePatch('unlisted', 'editor', { data: { c: '3' } })).status).toBe(200);
    const r = await apply('unlisted', 'kubectl', manifest('unlisted', { a: 'mine', c: 'mine' }));
    expect(r.status).toBe(409);
    expect(r.json<Status>().message).toBe('Apply failed with 1 conflict: conflict with "editor" using v1: .data.c');
  });

  it('ignores an annotation of another apiVersion or that is not JSON', async () => {
    for (const [name, text] of [
      ['wrong-version', '{"apiVersion":"v2","kind":"ConfigMap","metadata":{"name":"wrong-version"},"data":{"a":"1"}}'],
      ['not-json', '{not json'],
    ]) {
      const created = await wire.call('POST', `${NS}?fieldManager=kubectl-client-side-apply`, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(manifest(name, { a: '1' }, { [LAST_APPLIED]: text })),
      });
      expect(created.status).toBe(201);
      expect((await apply(name, 'kubectl', manifest(name, { a: 'mine' }))).status).toBe(409);
    }
  });

  it('adds no annotation to an object that has none, and keeps the annotation out of itself', async () => {
    expect((await apply('plain', 'kubectl', manifest('plain', { a: '1' }))).json<ConfigMap>().metadata.annotations).toBeUndefined();

    // Applying the annotation's current value conflicts with no one; the new text leaves it out.
    const created = await clientSideCreate('self', { a: '1' });
    const current = created.metadata.annotations![LAST_APPLIED];
    const r = await apply('self', 'kubectl', manifest('self', { a: '<&>' }, { note: 'x', [LAST_APPLIED]: current }));
    expect(r.status).toBe(200);
    expect(r.json<ConfigMap>().metadata.annotations).toEqual({
      note: 'x',
      [LAST_APPLIED]:
        '{"apiVersion":"v1","data":{"a":"\\u003c\\u0026\\u003e"},"kind":"ConfigMap","metadata":{"annotations":{"note":"x"},"name":"self","namespace":"default"}}\n',
    });
  });

  it('updates the annotation only for the kubectl manager', async () => {
    const created = await clientSideCreate('other-name', { a: '1' });
    const r = await apply('other-name', 'helm', manifest('other-name', { a: '1', b: '2' }));
    expect(r.status).toBe(200);
    expect(r.json<ConfigMap>().metadata.annotations?.[LAST_APPLIED]).toBe(created.metadata.annotations?.[LAST_APPLIED]);
  });

  it('drops the annotation rather than exceed the annotation size limit', async () => {
    await clientSideCreate('big', { a: '1' });
    const r = await apply('big', 'kubectl', manifest('big', { a: '1', big: 'x'.repeat(200 * 1024) }, { pad: 'y'.repeat(100 * 1024) }));
    expect(r.status).toBe(200);
    const annotations = r.json<ConfigMap>().metadata.annotations!;
    expect(Object.keys(annotations)).toEqual(['pad']);
  });
});
