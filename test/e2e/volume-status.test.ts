// The status subresources of PersistentVolumeClaim and PersistentVolume over HTTPS: a write to
// the main resource ignores status, a write to /status ignores spec; invalid claims get 422
// Invalid with kube-apiserver's causes; the claim's dataSourceRef (AnyVolumeDataSource, GA in
// 1.33) is served by a real server's gates.
import { beforeAll, describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

type Obj = Record<string, unknown> & { metadata: Record<string, unknown>; spec: Record<string, unknown>; status?: Record<string, unknown> };
const api = useMemoryServer();
const send = (method: string, path: string, body?: unknown) => api.send<Obj>(method, path, body);

const PVCS = '/api/v1/namespaces/default/persistentvolumeclaims';
const PVS = '/api/v1/persistentvolumes';

describe('PersistentVolumeClaim over HTTPS', () => {
  it('creates a claim Pending, ignoring a status in the request, and normalizes its data source', async () => {
    const res = await send('POST', PVCS, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, dataSource: { kind: 'PersistentVolumeClaim', name: 'src' } },
      status: { phase: 'Bound' },
    });
    expect(res.status).toBe(201);
    expect(res.body.status).toEqual({ phase: 'Pending' });
    expect(res.body.spec.volumeMode).toBe('Filesystem');
    expect(res.body.spec.dataSourceRef).toEqual({ kind: 'PersistentVolumeClaim', name: 'src' });
  });

  it('takes status from /status only, and keeps spec there', async () => {
    const current = (await send('GET', `${PVCS}/data`)).body;
    const statusWrite = { ...current, spec: { ...current.spec, accessModes: ['ReadOnlyMany'] }, status: { phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } } };
    const res = await send('PUT', `${PVCS}/data/status`, statusWrite);
    expect(res.status).toBe(200);
    expect(res.body.status).toEqual({ phase: 'Bound', accessModes: ['ReadWriteOnce'], capacity: { storage: '1Gi' } });
    expect(res.body.spec.accessModes).toEqual(['ReadWriteOnce']);

    const mainWrite = { ...res.body, spec: { ...res.body.spec, volumeName: 'pv-data' }, status: { phase: 'Lost' } };
    const main = await send('PUT', `${PVCS}/data`, mainWrite);
    expect(main.status).toBe(200);
    expect(main.body.spec.volumeName).toBe('pv-data');
    expect(main.body.status?.phase).toBe('Bound');
  });

  it('lets the bound claim grow but not shrink', async () => {
    const current = (await send('GET', `${PVCS}/data`)).body;
    const bigger = await send('PUT', `${PVCS}/data`, { ...current, spec: { ...current.spec, resources: { requests: { storage: '2Gi' } } } });
    expect(bigger.status).toBe(200);
    const smaller = await send('PUT', `${PVCS}/data`, { ...bigger.body, spec: { ...bigger.body.spec, resources: { requests: { storage: '1Gi' } } } });
    expect(smaller.status).toBe(422);
    expect(smaller.body).toMatchObject({
      kind: 'Status',
      reason: 'Invalid',
      details: { causes: [{ reason: 'FieldValueForbidden', field: 'spec.resources.requests.storage', message: 'Forbidden: field can not be less than previous value' }] },
    });
  });

  it('lists a repeated spec cause twice but names it once in the message, as kube-apiserver does', async () => {
    const current = (await send('GET', `${PVCS}/data`)).body;
    const res = await send('PUT', `${PVCS}/data`, { ...current, spec: { ...current.spec, accessModes: ['Sometimes'] } });
    expect(res.status).toBe(422);
    const causes = (res.body.details as { causes: { field: string; reason: string }[] }).causes;
    expect(causes.map((c) => `${c.field} ${c.reason}`)).toEqual(['spec.accessModes FieldValueNotSupported', 'spec.accessModes FieldValueNotSupported', 'spec FieldValueForbidden']);
    expect((res.body.message as string).match(/spec\.accessModes: Unsupported value/g)).toHaveLength(1);
  });

  it('stores quantities in canonical form, as kube-apiserver re-encodes them', async () => {
    const res = await send('POST', PVCS, {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: 'canonical' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1024Mi' }, limits: { storage: 2147483648 } } },
    });
    expect(res.status).toBe(201);
    expect(res.body.spec.resources).toEqual({ requests: { storage: '1Gi' }, limits: { storage: '2147483648' } });
    expect((await send('GET', `${PVCS}/canonical`)).body.spec.resources).toEqual({ requests: { storage: '1Gi' }, limits: { storage: '2147483648' } });
  });

  it('answers 422 Invalid for a claim without storage request', async () => {
    const res = await send('POST', PVCS, { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'empty' }, spec: { accessModes: ['ReadWriteOnce'] } });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('PersistentVolumeClaim "empty" is invalid: spec.resources[storage]: Required value');
  });
});

describe('field selectors', () => {
  // PV and PVC register no field label conversion in v1, so only the metadata fields are
  // selectable (the claim's legacy "name" field never reaches the store).
  it('select claims by metadata.name and refuse other fields', async () => {
    const ok = await api.send<{ items: Obj[] }>('GET', `${PVCS}?fieldSelector=metadata.name%3Ddata`);
    expect(ok.status).toBe(200);
    expect(ok.body.items.map((i) => i.metadata.name)).toEqual(['data']);
    const bad = await api.send<{ message: string }>('GET', `${PVCS}?fieldSelector=name%3Ddata`);
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('field label not supported: name');
  });
});

describe('PersistentVolume over HTTPS', () => {
  it('creates a volume Pending with defaults, and moves its phase only through /status', async () => {
    const res = await send('POST', PVS, {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv-data' },
      spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/srv/data' } },
      status: { phase: 'Available' },
    });
    expect(res.status).toBe(201);
    expect(res.body.status?.phase).toBe('Pending');
    expect(res.body.spec).toMatchObject({ persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem', hostPath: { path: '/srv/data', type: '' } });

    const main = await send('PUT', `${PVS}/pv-data`, { ...res.body, status: { phase: 'Released' } });
    expect(main.status).toBe(200);
    expect(main.body.status?.phase).toBe('Pending');

    const status = await send('PUT', `${PVS}/pv-data/status`, { ...main.body, spec: { ...main.body.spec, capacity: { storage: '1Gi' } }, status: { phase: 'Available' } });
    expect(status.status).toBe(200);
    expect(status.body.status?.phase).toBe('Available');
    expect(status.body.spec.capacity).toEqual({ storage: '5Gi' });
  });

  it('warns about the deprecated Recycle policy and beta zone label', async () => {
    const res = await send('POST', PVS, {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'pv-recycle' },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        persistentVolumeReclaimPolicy: 'Recycle',
        nfs: { server: 'nfs.example.com', path: '/exports' },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'failure-domain.beta.kubernetes.io/zone', operator: 'In', values: ['a'] }] }] } },
      },
    });
    expect(res.status).toBe(201);
    expect(res.warnings).toEqual([
      '299 - "spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning."',
      '299 - "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key: failure-domain.beta.kubernetes.io/zone is deprecated since v1.17; use \\"topology.kubernetes.io/zone\\" instead"',
    ]);
  });

  it('refuses to change the volume source', async () => {
    const current = (await send('GET', `${PVS}/pv-data`)).body;
    const res = await send('PUT', `${PVS}/pv-data`, { ...current, spec: { ...current.spec, hostPath: { path: '/elsewhere' } } });
    expect(res.status).toBe(422);
    expect((res.body.details as { causes: { field: string }[] }).causes.map((c) => c.field)).toEqual(['spec.persistentvolumesource']);
  });
});
