// The resourceVersion semantics tables of get, list and watch, row by row, against the real server
// over HTTPS on each storage backend (the etcd backend joins through the same table). Messages,
// codes and field paths are kube-apiserver's (ValidateListOptions, etcd3 GetList, the cacher).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { etcdBinary, startEtcd, type EtcdProcess } from '../support/etcd.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { openWatch, summary, type WatchConnection } from '../support/watch-client.js';

const NS = 'sem';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

const etcd = etcdBinary();
const backends: Array<'memory' | 'sqlite' | 'etcd'> = ['memory', 'sqlite', ...(etcd ? (['etcd'] as const) : [])];

interface ListJson {
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: { metadata: { name: string; resourceVersion: string }; data?: Record<string, string> }[];
}

describe.each(backends)('list, get and watch semantics on %s storage', (storage) => {
  let server: RunningServer;
  let creds: Credentials;
  const watches: WatchConnection[] = [];
  /** Revisions: after creating a, after creating c, after updating a. */
  let rvA = 0;
  let rvC = 0;
  let rvA2 = 0;

  const get = (path: string) => call(server.url, path, creds);
  const post = async (path: string, body: unknown) => {
    const res = await call(server.url, path, creds, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(201);
    return res.json<{ metadata: { resourceVersion: string } }>();
  };
  const watch = async (query: string, path = CM) => {
    const w = await openWatch(server.url, `${path}?watch=1&${query}`, creds);
    watches.push(w);
    return w;
  };
  const names = (list: ListJson) => list.items.map((i) => i.metadata.name);
  /** The collection's resourceVersion now: a watch from it sees only later changes. */
  const currentRv = async () => (await get(CM)).json<ListJson>().metadata.resourceVersion;

  let etcdProcess: EtcdProcess | undefined;

  beforeAll(async () => {
    if (storage === 'etcd') etcdProcess = await startEtcd(etcd!);
    const etcdServers = etcdProcess?.endpoints;
    // The root CA publisher's kube-root-ca.crt would join this namespace's ConfigMaps at a moment of its own;
    // the tables here count exact items and revisions, as kube-apiserver's tests do without a controller manager.
    server = await startServer({ storage, etcdServers, featureGates: 'WatchList=true', watchBookmarkIntervalMs: 100, controllers: ['*', '-root-ca-cert-publisher'] });
    creds = kubeconfigCredentials(server.kubeconfig);
    await post('/api/v1/namespaces', { metadata: { name: NS } });
    rvA = Number((await post(CM, { metadata: { name: 'a' }, data: { v: '1' } })).metadata.resourceVersion);
    await post(CM, { metadata: { name: 'b' } });
    rvC = Number((await post(CM, { metadata: { name: 'c' } })).metadata.resourceVersion);
    const a = (await get(`${CM}/a`)).json<{ metadata: Record<string, unknown> }>();
    const put = await call(server.url, `${CM}/a`, creds, {
      method: 'PUT',
      body: JSON.stringify({ ...a, data: { v: '2' } }),
      headers: { 'content-type': 'application/json' },
    });
    rvA2 = Number(put.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion);
  });
  afterAll(async () => {
    for (const w of watches) w.close();
    await server?.close();
    await etcdProcess?.stop();
  });

  describe('list', () => {
    // [query, names expected, how the list resourceVersion relates to the request]
    const rows: [string, string, string[], 'current' | 'exactA' | 'atLeastA'][] = [
      ['resourceVersion unset: Most Recent', '', ['a', 'b', 'c'], 'current'],
      ['resourceVersion=0: Any', 'resourceVersion=0', ['a', 'b', 'c'], 'current'],
      ['resourceVersion=N: Not older than', 'resourceVersion=RV_A', ['a', 'b', 'c'], 'atLeastA'],
      ['resourceVersion=N with limit: Exact', 'resourceVersion=RV_A&limit=10', ['a'], 'exactA'],
      ['Exact match', 'resourceVersion=RV_A&resourceVersionMatch=Exact', ['a'], 'exactA'],
      ['Exact match with limit', 'resourceVersion=RV_A&resourceVersionMatch=Exact&limit=10', ['a'], 'exactA'],
      ['NotOlderThan match', 'resourceVersion=RV_A&resourceVersionMatch=NotOlderThan', ['a', 'b', 'c'], 'atLeastA'],
      ['NotOlderThan match with limit', 'resourceVersion=RV_A&resourceVersionMatch=NotOlderThan&limit=10', ['a', 'b', 'c'], 'atLeastA'],
      ['NotOlderThan match at 0: Any', 'resourceVersion=0&resourceVersionMatch=NotOlderThan', ['a', 'b', 'c'], 'current'],
      ['limit without resourceVersion: Most Recent', 'limit=10', ['a', 'b', 'c'], 'current'],
      ['limit with resourceVersion=0: Any', 'resourceVersion=0&limit=10', ['a', 'b', 'c'], 'current'],
    ];
    it.each(rows)('%s', async (_name, query, expected, rv) => {
      const res = await get(`${CM}?${query.replace('RV_A', String(rvA))}`);
      expect(res.status).toBe(200);
      const list = res.json<ListJson>();
      expect(names(list)).toEqual(expected);
      const listRv = Number(list.metadata.resourceVersion);
      if (rv === 'exactA') expect(listRv).toBe(rvA);
      if (rv === 'atLeastA') expect(listRv).toBeGreaterThanOrEqual(rvA);
      if (rv === 'current') expect(listRv).toBeGreaterThanOrEqual(rvA2);
      // Whatever the source, a list not pinned to an older version shows the newest state of a.
      if (rv !== 'exactA') expect(list.items[0].data).toEqual({ v: '2' });
    });

    const invalid: [string, string, string, string][] = [
      ['Exact without resourceVersion', 'resourceVersionMatch=Exact', 'resourceVersionMatch', 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
      ['NotOlderThan without resourceVersion', 'resourceVersionMatch=NotOlderThan&limit=2', 'resourceVersionMatch', 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided'],
      ['Exact at 0', 'resourceVersion=0&resourceVersionMatch=Exact', 'resourceVersionMatch', 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"'],
      ['an unknown match', 'resourceVersion=5&resourceVersionMatch=Newest', 'resourceVersionMatch', 'Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""'],
      ['sendInitialEvents on a list', 'sendInitialEvents=true', 'sendInitialEvents', 'Forbidden: sendInitialEvents is forbidden for list'],
    ];
    it.each(invalid)('422 for %s', async (_name, query, field, message) => {
      const res = await get(`${CM}?${query}`);
      expect(res.status).toBe(422);
      expect(res.json()).toMatchObject({
        kind: 'Status',
        reason: 'Invalid',
        code: 422,
        message: `ListOptions.meta.k8s.io "" is invalid: ${field}: ${message}`,
        details: { group: 'meta.k8s.io', kind: 'ListOptions', causes: [{ field, message }] },
      });
    });

    it('pages at one revision with continue and remainingItemCount; a token with resourceVersion=0 continues', async () => {
      const first = (await get(`${CM}?limit=2`)).json<ListJson>();
      expect(names(first)).toEqual(['a', 'b']);
      expect(first.metadata.remainingItemCount).toBe(1);
      const token = first.metadata.continue!;
      // kube-apiserver's token shape: base64 of {"v":"meta.k8s.io/v1","rv":N,"start":"..."}.
      expect(JSON.parse(Buffer.from(token, 'base64url').toString())).toMatchObject({ v: 'meta.k8s.io/v1', rv: Number(first.metadata.resourceVersion) });
      await post(CM, { metadata: { name: 'b2' } });
      const second = (await get(`${CM}?limit=2&continue=${token}`)).json<ListJson>();
      expect(names(second)).toEqual(['c']);
      expect(second.metadata.resourceVersion).toBe(first.metadata.resourceVersion);
      expect(second.metadata.continue).toBeUndefined();
      const withZero = await get(`${CM}?limit=2&continue=${token}&resourceVersion=0`);
      expect(withZero.status).toBe(200);
      await call(server.url, `${CM}/b2`, creds, { method: 'DELETE' });
    });

    it('400 for continue with a resourceVersion other than 0; 422 for continue with a match', async () => {
      const token = (await get(`${CM}?limit=1`)).json<ListJson>().metadata.continue!;
      const res = await get(`${CM}?limit=1&continue=${token}&resourceVersion=${rvA}`);
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({ reason: 'BadRequest', message: 'specifying resource version is not allowed when using continue' });
      const match = await get(`${CM}?limit=1&continue=${token}&resourceVersion=${rvA}&resourceVersionMatch=Exact`);
      expect(match.status).toBe(422);
      expect(match.json()).toMatchObject({ message: 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided' });
    });

    it('504 Too large resource version with Retry-After for versions the store has not reached (list, exact list, get)', async () => {
      const future = rvA2 + 1000;
      const [notOlder, exact, single] = await Promise.all([
        get(`${CM}?resourceVersion=${future}`),
        get(`${CM}?resourceVersion=${future}&resourceVersionMatch=Exact`),
        get(`${CM}/a?resourceVersion=${future}`),
      ]);
      for (const res of [notOlder, exact, single]) {
        expect(res.status).toBe(504);
        expect(res.headers['retry-after']).toBe('1');
        expect(res.json()).toMatchObject({
          reason: 'Timeout',
          code: 504,
          details: { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 },
        });
        expect(res.json<{ message: string }>().message).toMatch(new RegExp(`^Too large resource version: ${future}, current: \\d+$`));
      }
    });
  });

  describe('get', () => {
    it.each([
      ['unset: Most Recent', ''],
      ['0: Any', '?resourceVersion=0'],
      ['N: Not older than', '?resourceVersion=RV_A'],
    ])('resourceVersion %s', async (_name, query) => {
      const res = await get(`${CM}/a${query.replace('RV_A', String(rvA))}`);
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ kind: 'ConfigMap', data: { v: '2' }, metadata: { resourceVersion: String(rvA2) } });
    });

    it('404 from the cache as from the store', async () => {
      for (const query of ['', '?resourceVersion=0', `?resourceVersion=${rvA}`]) {
        const res = await get(`${CM}/missing${query}`);
        expect(res.status).toBe(404);
        expect(res.json()).toMatchObject({ reason: 'NotFound', message: 'configmaps "missing" not found' });
      }
    });
  });

  describe('watch', () => {
    it('resourceVersion unset: synthetic ADDED for the current state, then changes; DELETED carries the last state', async () => {
      const w = await watch('');
      expect(summary(await w.until((e) => e.object.metadata?.name === 'c'))).toEqual(['ADDED a', 'ADDED b', 'ADDED c']);
      await post(CM, { metadata: { name: 'd' }, data: { last: 'state' } });
      await call(server.url, `${CM}/d`, creds, { method: 'DELETE' });
      const events = await w.until((e) => e.type === 'DELETED');
      expect(summary(events)).toEqual(['ADDED d', 'DELETED d']);
      expect(events[1].object.data).toEqual({ last: 'state' });
      expect(Number(events[1].object.metadata!.resourceVersion)).toBeGreaterThan(Number(events[0].object.metadata!.resourceVersion));
      w.close();
    });

    it('resourceVersion=0: the state as synthetic ADDED events', async () => {
      const w = await watch('resourceVersion=0');
      expect(summary(await w.until((e) => e.object.metadata?.name === 'c'))).toEqual(['ADDED a', 'ADDED b', 'ADDED c']);
      w.close();
    });

    it('resourceVersion=N: exactly the changes after N, from the history', async () => {
      const w = await watch(`resourceVersion=${rvA}`);
      const events = await w.until((e) => e.type === 'MODIFIED');
      expect(summary(events)).toEqual(['ADDED b', 'ADDED c', 'MODIFIED a']);
      expect(events[2].object.metadata!.resourceVersion).toBe(String(rvA2));
      w.close();
    });

    it('a named watch sees only its object; a contradicting field selector is 400', async () => {
      const named = `/api/v1/watch/namespaces/${NS}/configmaps/b`;
      const w = await watch('', named);
      expect(summary(await w.until(() => true))).toEqual(['ADDED b']);
      w.close();
      const bySelector = await watch(`fieldSelector=metadata.name%3Dc&resourceVersion=${rvA}`);
      expect(summary(await bySelector.until(() => true))).toEqual(['ADDED c']);
      bySelector.close();
      const bad = await watch('fieldSelector=metadata.name%3Dc', named);
      expect(bad.status).toBe(400);
      expect(JSON.parse(bad.body)).toMatchObject({ reason: 'BadRequest', message: "fieldSelector metadata.name doesn't match requested name" });
    });

    it('allowWatchBookmarks=true: BOOKMARK events with only kind, apiVersion and metadata.resourceVersion', async () => {
      const w = await watch(`resourceVersion=${await currentRv()}&allowWatchBookmarks=true`);
      const [bookmark] = await w.until((e) => e.type === 'BOOKMARK');
      expect(bookmark.type).toBe('BOOKMARK');
      expect(Object.keys(bookmark.object).sort()).toEqual(['apiVersion', 'kind', 'metadata']);
      expect(bookmark.object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
      expect(Object.keys(bookmark.object.metadata!)).toEqual(['resourceVersion']);
      expect(Number(bookmark.object.metadata!.resourceVersion)).toBeGreaterThanOrEqual(rvA2);
      w.close();
    });

    it('sendInitialEvents=true: the state, then a BOOKMARK annotated k8s.io/initial-events-end, then changes', async () => {
      for (const rv of ['', '0', String(rvA)]) {
        const w = await watch(`sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=${rv}`);
        const events = await w.until((e) => e.type === 'BOOKMARK');
        expect(summary(events)).toEqual(['ADDED a', 'ADDED b', 'ADDED c', 'BOOKMARK']);
        expect(events[3].object.metadata).toEqual({
          resourceVersion: expect.stringMatching(/^\d+$/),
          annotations: { 'k8s.io/initial-events-end': 'true' },
        });
        expect(Number(events[3].object.metadata!.resourceVersion)).toBeGreaterThanOrEqual(rvA2);
        w.close();
      }
    });

    it('sendInitialEvents=false: changes only', async () => {
      const w = await watch('sendInitialEvents=false&resourceVersionMatch=NotOlderThan');
      await post(CM, { metadata: { name: 'e' } });
      expect(summary(await w.until(() => true))).toEqual(['ADDED e']);
      w.close();
      await call(server.url, `${CM}/e`, creds, { method: 'DELETE' });
    });

    const invalid: [string, string, string, string][] = [
      ['sendInitialEvents without NotOlderThan', 'sendInitialEvents=true', 'resourceVersionMatch', 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan'],
      ['resourceVersionMatch without sendInitialEvents', 'resourceVersion=0&resourceVersionMatch=NotOlderThan', 'resourceVersionMatch', 'Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided'],
    ];
    it.each(invalid)('422 for %s', async (_name, query, field, message) => {
      const w = await watch(query);
      expect(w.status).toBe(422);
      expect(JSON.parse(w.body)).toMatchObject({
        reason: 'Invalid',
        message: `ListOptions.meta.k8s.io "" is invalid: ${field}: ${message}`,
        details: { kind: 'ListOptions', group: 'meta.k8s.io', causes: [{ field, message, reason: 'FieldValueForbidden' }] },
      });
    });

    it('an Exact watch match is unsupported', async () => {
      const w = await watch('sendInitialEvents=true&resourceVersion=5&resourceVersionMatch=Exact');
      expect(w.status).toBe(422);
      expect(JSON.parse(w.body).details.causes).toEqual([
        { reason: 'FieldValueForbidden', message: 'Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan', field: 'resourceVersionMatch' },
        { reason: 'FieldValueNotSupported', message: 'Unsupported value: "Exact": supported values: "NotOlderThan"', field: 'resourceVersionMatch' },
      ]);
    });

    it('timeoutSeconds ends the stream', async () => {
      const w = await watch(`resourceVersion=${await currentRv()}&timeoutSeconds=1`);
      expect(await w.next()).toBeUndefined();
    });

    it('label selectors: ADDED and DELETED on match transitions', async () => {
      const w = await watch(`labelSelector=tier%3Dweb&resourceVersion=${await currentRv()}`);
      await post(CM, { metadata: { name: 'f', labels: { tier: 'web' } } });
      const f = (await get(`${CM}/f`)).json<{ metadata: Record<string, unknown> }>();
      await call(server.url, `${CM}/f`, creds, {
        method: 'PUT',
        body: JSON.stringify({ ...f, metadata: { ...f.metadata, labels: { tier: 'db' } } }),
        headers: { 'content-type': 'application/json' },
      });
      const events = await w.until((e) => e.type === 'DELETED');
      expect(summary(events)).toEqual(['ADDED f', 'DELETED f']);
      expect(events[1].object.metadata).toMatchObject({ labels: { tier: 'web' } });
      w.close();
      await call(server.url, `${CM}/f`, creds, { method: 'DELETE' });
    });
  });
});

describe('without the WatchList gate', () => {
  it('refuses sendInitialEvents as kube-apiserver does with the gate off', async () => {
    const server = await startServer({ storage: 'memory' });
    try {
      const creds = kubeconfigCredentials(server.kubeconfig);
      const w = await openWatch(server.url, '/api/v1/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true', creds);
      expect(w.status).toBe(422);
      expect(JSON.parse(w.body)).toMatchObject({
        reason: 'Invalid',
        message: 'ListOptions.meta.k8s.io "" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled',
      });
    } finally {
      await server.close();
    }
  });
});
