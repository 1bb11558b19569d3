// The cap on Update managers through HTTP: after a non-apply write leaves more than ten Update
// entries, the oldest are folded per apiVersion into "ancient-changes" (kube-apiserver's
// capManagersManager); Apply entries are never counted nor folded.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWireServer, type WireServer } from '../support/wire-client.js';

let wire: WireServer;
const NS = '/api/v1/namespaces/default/configmaps';

beforeAll(async () => {
  wire = await startWireServer();
});
afterAll(async () => {
  await wire?.close();
});

interface Entry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
}
interface ConfigMap {
  metadata: { name: string; resourceVersion: string; managedFields?: Entry[] };
  data?: Record<string, string>;
}

const pad = (n: number) => String(n).padStart(2, '0');
const owning = (...keys: string[]) => ({ 'f:data': Object.fromEntries(keys.map((k) => [`f:${k}`, {}])) });
const update = (manager: string, apiVersion: string, second: number, ...keys: string[]): Entry => ({
  manager,
  operation: 'Update',
  apiVersion,
  time: `2020-01-01T00:00:${pad(second)}Z`,
  fieldsType: 'FieldsV1',
  fieldsV1: owning(...keys),
});

async function create(name: string, data: Record<string, string>): Promise<ConfigMap> {
  const r = await wire.call('POST', `${NS}?fieldManager=creator`, {
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data }),
  });
  expect(r.status).toBe(201);
  return r.json<ConfigMap>();
}

const summary = (cm: ConfigMap) => (cm.metadata.managedFields ?? []).map((e) => [e.manager, e.operation, e.apiVersion, e.fieldsV1]);

describe('the Update manager cap', () => {
  it('folds the oldest Update entries of each apiVersion into ancient-changes, leaving ten', async () => {
    const keys = Array.from({ length: 12 }, (_, i) => `k${pad(i)}`);
    const live = await create('capped', Object.fromEntries(keys.map((k) => [k, 'x'])));
    // Eleven Update managers with known times (one in an older apiVersion) and one applier.
    const managedFields: Entry[] = [
      { manager: 'applier', operation: 'Apply', apiVersion: 'v1', time: '2019-01-01T00:00:00Z', fieldsType: 'FieldsV1', fieldsV1: owning('k00') },
      update('legacy', 'v0', 0, 'k01'),
      ...Array.from({ length: 10 }, (_, i) => update(`m${pad(i + 2)}`, 'v1', i + 1, `k${pad(i + 2)}`)),
    ];
    const r = await wire.call('PUT', `${NS}/capped?fieldManager=writer`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...live, metadata: { ...live.metadata, managedFields }, data: { ...live.data, new: 'y' } }),
    });
    expect(r.status).toBe(200);
    const out = r.json<ConfigMap>();
    // Twelve Update entries: legacy is the only v0 one, so it stays; m02 becomes the v1 bucket and
    // takes in m03 and m04 (the bucket has m04's time), leaving ten.
    expect(summary(out)).toEqual([
      ['applier', 'Apply', 'v1', owning('k00')],
      ['legacy', 'Update', 'v0', owning('k01')],
      ['ancient-changes', 'Update', 'v1', owning('k02', 'k03', 'k04')],
      ...Array.from({ length: 7 }, (_, i) => [`m${pad(i + 5)}`, 'Update', 'v1', owning(`k${pad(i + 5)}`)]),
      ['writer', 'Update', 'v1', owning('new')],
    ]);
    const bucket = out.metadata.managedFields!.find((e) => e.manager === 'ancient-changes')!;
    expect(bucket.time).toBe('2020-01-01T00:00:03Z');
    expect((await wire.call('GET', `${NS}/capped`)).json<ConfigMap>().metadata.managedFields).toEqual(out.metadata.managedFields);

    // The next writer folds one more entry into the existing bucket, which takes its time.
    const again = await wire.call('PATCH', `${NS}/capped?fieldManager=late`, {
      headers: { 'content-type': 'application/merge-patch+json' },
      body: JSON.stringify({ data: { later: 'z' } }),
    });
    expect(again.status).toBe(200);
    const entries = again.json<ConfigMap>().metadata.managedFields!;
    expect(entries.filter((e) => e.operation === 'Update')).toHaveLength(10);
    const folded = entries.find((e) => e.manager === 'ancient-changes')!;
    expect(folded.fieldsV1).toEqual(owning('k02', 'k03', 'k04', 'k05'));
    expect(folded.time).toBe('2020-01-01T00:00:04Z');
    expect(entries.map((e) => e.manager)).toEqual(['applier', 'legacy', 'ancient-changes', 'm06', 'm07', 'm08', 'm09', 'm10', 'm11', expect.any(String), expect.any(String)]);
    expect(entries.slice(-2).map((e) => e.manager).sort()).toEqual(['late', 'writer']);
  });

  it('leaves ten Update entries alone', async () => {
    const data = Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`k${i}`, 'x']));
    const live = await create('ten', data);
    const managedFields = Array.from({ length: 9 }, (_, i) => update(`m${i}`, 'v1', i, `k${i}`));
    const r = await wire.call('PUT', `${NS}/ten?fieldManager=writer`, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...live, metadata: { ...live.metadata, managedFields }, data: { ...data, b: '2' } }),
    });
    expect(r.status).toBe(200);
    const names = r.json<ConfigMap>().metadata.managedFields!.map((e) => e.manager);
    expect(names).toHaveLength(10);
    expect(names).not.toContain('ancient-changes');
  });

  it('never folds Apply entries, however many appliers there are', async () => {
    for (let i = 0; i < 12; i++) {
      const r = await wire.call('PATCH', `${NS}/applied?fieldManager=applier-${pad(i)}`, {
        headers: { 'content-type': 'application/apply-patch+yaml' },
        body: `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  k${pad(i)}: "v"\n`,
      });
      expect(r.status).toBe(i === 0 ? 201 : 200);
    }
    const got = (await wire.call('GET', `${NS}/applied`)).json<ConfigMap>();
    const appliers = got.metadata.managedFields!.filter((e) => e.operation === 'Apply').map((e) => e.manager);
    expect(appliers.sort()).toEqual(Array.from({ length: 12 }, (_, i) => `applier-${pad(i)}`));
    expect(got.metadata.managedFields!.some((e) => e.manager === 'ancient-changes')).toBe(false);
  });
});
