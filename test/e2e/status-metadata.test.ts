// What a write through the status subresource may do to metadata, over HTTPS. VolumeAttachment's
// status strategy calls metav1.ResetObjectMetaForStatus (labels, annotations, finalizers and
// ownerReferences come from the stored object), PersistentVolume's keeps the writer's metadata.
// The attach error limits answer 422 Invalid; errorCode is dropped while its gate is off.
import { beforeAll, describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

type Obj = Record<string, unknown> & { metadata: Record<string, unknown>; status?: Record<string, unknown> };
const api = useMemoryServer();
const send = (method: string, path: string, body?: unknown) => api.send<Obj>(method, path, body);

const VAS = '/apis/storage.k8s.io/v1/volumeattachments';
const PVS = '/api/v1/persistentvolumes';
const newMetadata = { labels: { changed: 'yes' }, annotations: { note: 'new' }, finalizers: ['example.com/hold'] };

describe('VolumeAttachment status writes', () => {
  beforeAll(async () => {
    const created = await send('POST', VAS, {
      apiVersion: 'storage.k8s.io/v1',
      kind: 'VolumeAttachment',
      metadata: { name: 'va-1', labels: { kept: 'yes' } },
      spec: { attacher: 'csi.example.com', nodeName: 'node-1', source: { persistentVolumeName: 'pv-1' } },
    });
    expect(created.status).toBe(201);
    // Go always writes the non-pointer status and its bool without omitempty.
    expect(created.body.status).toEqual({ attached: false });
  });

  it('keeps the stored labels, annotations and finalizers, takes the status, drops errorCode (gate off)', async () => {
    const current = (await send('GET', `${VAS}/va-1`)).body;
    const res = await send('PUT', `${VAS}/va-1/status`, {
      ...current,
      metadata: { ...current.metadata, ...newMetadata },
      status: { attached: true, attachError: { message: 'busy', errorCode: 3 } },
    });
    expect(res.status).toBe(200);
    expect(res.body.metadata.labels).toEqual({ kept: 'yes' });
    expect(res.body.metadata.annotations).toBeUndefined();
    expect(res.body.metadata.finalizers).toBeUndefined();
    expect(res.body.status).toEqual({ attached: true, attachError: { message: 'busy' } });
  });

  it('writes attached: false when a status write leaves it out', async () => {
    const current = (await send('GET', `${VAS}/va-1`)).body;
    const res = await send('PUT', `${VAS}/va-1/status`, { ...current, status: { attachmentMetadata: { a: 'b' } } });
    expect(res.status).toBe(200);
    expect(res.body.status).toEqual({ attached: false, attachmentMetadata: { a: 'b' } });
  });

  it('answers 422 for an attach error message over 1024 bytes, naming the metadata limit', async () => {
    const current = (await send('GET', `${VAS}/va-1`)).body;
    const res = await send('PUT', `${VAS}/va-1/status`, { ...current, status: { attached: false, attachError: { message: 'x'.repeat(1025) } } });
    expect(res.status).toBe(422);
    expect((res.body.details as { causes: unknown[] }).causes).toEqual([
      { reason: 'FieldValueTooLong', field: 'status.attachError.message', message: 'Too long: may not be more than 262144 bytes' },
    ]);
  });
});

describe('PersistentVolume status writes', () => {
  it('keep the metadata the writer sends', async () => {
    const created = await send('POST', PVS, {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv-meta' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' } },
    });
    expect(created.status).toBe(201);
    const res = await send('PUT', `${PVS}/pv-meta/status`, { ...created.body, metadata: { ...created.body.metadata, ...newMetadata }, status: { phase: 'Available' } });
    expect(res.status).toBe(200);
    expect(res.body.metadata).toMatchObject(newMetadata);
    expect(res.body.status?.phase).toBe('Available');
  });
});
