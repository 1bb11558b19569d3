// What happens when history runs out, on a server whose history window is short (historyWindowMs)
// and whose watches end quickly (minRequestTimeoutSeconds): a watch from a forgotten version gets
// an ERROR event with 410 Expired in its 200 stream, an expired continue token a 410 that carries
// a fresh token, and a @kubernetes/client-node informer relists and carries on.
import { CoreV1Api, KubeConfig, makeInformer, type V1ConfigMap } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { openWatch } from '../support/watch-client.js';

const CONTINUE_EXPIRED =
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.';

const POLL = { timeout: 20_000, interval: 100 };

describe.each(['memory', 'sqlite'] as const)('expired history on %s storage', (storage) => {
  let server: RunningServer;
  let creds: Credentials;
  const post = async (path: string, body: unknown) => {
    const res = await call(server.url, path, creds, { method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(201);
    return res.json<{ metadata: { resourceVersion: string } }>();
  };
  const createNamespace = (name: string) => post('/api/v1/namespaces', { metadata: { name } });

  beforeAll(async () => {
    // The root CA publisher's kube-root-ca.crt would join this namespace's ConfigMaps at a moment of its own;
    // the tables here count exact items and revisions, as kube-apiserver's tests do without a controller manager.
    server = await startServer({ storage, historyWindowMs: 300, minRequestTimeoutSeconds: 1, controllers: ['*', '-root-ca-cert-publisher'] });
    creds = kubeconfigCredentials(server.kubeconfig);
  });
  afterAll(() => server?.close());

  it('a watch from a forgotten version: ERROR event with 410 Expired, then the stream ends', async () => {
    await createNamespace('old');
    const rv = (await post('/api/v1/namespaces/old/configmaps', { metadata: { name: 'x' } })).metadata.resourceVersion;
    await post('/api/v1/namespaces/old/configmaps', { metadata: { name: 'y' } });
    await expect
      .poll(async () => {
        const w = await openWatch(server.url, `/api/v1/namespaces/old/configmaps?watch=1&resourceVersion=${rv}`, creds);
        expect(w.status).toBe(200);
        const first = await w.next();
        const ended = first?.type === 'ERROR' && (await w.next()) === undefined;
        w.close();
        return first?.type === 'ADDED' ? 'not yet' : { first, ended };
      }, POLL)
      .toMatchObject({
        first: {
          type: 'ERROR',
          object: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410, message: expect.stringMatching(new RegExp(`^too old resource version: ${rv} \\(\\d+\\)$`)) },
        },
        ended: true,
      });
  });

  it('an expired continue token: 410 Expired carrying a token that finishes the list', async () => {
    await createNamespace('pages');
    for (const name of ['p1', 'p2', 'p3']) await post('/api/v1/namespaces/pages/configmaps', { metadata: { name } });
    const first = (await call(server.url, '/api/v1/namespaces/pages/configmaps?limit=1', creds)).json<{ metadata: { continue: string } }>();
    await post('/api/v1/namespaces/pages/configmaps', { metadata: { name: 'p4' } });
    let expired: { status: number; json: () => Record<string, unknown> } | undefined;
    await expect
      .poll(async () => {
        expired = await call(server.url, `/api/v1/namespaces/pages/configmaps?limit=1&continue=${first.metadata.continue}`, creds);
        return expired.status;
      }, POLL)
      .toBe(410);
    const status = expired!.json() as { metadata: { continue: string } };
    expect(status).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410, message: CONTINUE_EXPIRED });
    expect(JSON.parse(Buffer.from(status.metadata.continue, 'base64url').toString())).toMatchObject({ v: 'meta.k8s.io/v1', rv: -1 });
    const rest = await call(server.url, `/api/v1/namespaces/pages/configmaps?continue=${status.metadata.continue}`, creds);
    expect(rest.status).toBe(200);
    expect(rest.json<{ items: { metadata: { name: string } }[] }>().items.map((i) => i.metadata.name)).toEqual(['p2', 'p3', 'p4']);
  });

  it('a @kubernetes/client-node informer survives a 410 by relisting', async () => {
    const kc = new KubeConfig();
    kc.loadFromString(server.kubeconfig);
    const core = kc.makeApiClient(CoreV1Api);
    await createNamespace('inf');
    await createNamespace('noise');
    let lists = 0;
    const informer = makeInformer<V1ConfigMap>(kc, '/api/v1/namespaces/inf/configmaps', () => {
      lists++;
      return core.listNamespacedConfigMap({ namespace: 'inf' });
    });
    const added: string[] = [];
    informer.on('add', (o) => added.push(o.metadata?.name ?? ''));
    informer.on('error', () => {});
    await informer.start();
    try {
      await core.createNamespacedConfigMap({ namespace: 'inf', body: { metadata: { name: 'before' } } });
      await expect.poll(() => added, POLL).toContain('before');
      // Changes the informer does not select move the history on past its resourceVersion; once
      // they age out of the window, its next watch (every 1-2 s here) is from a forgotten version.
      await core.createNamespacedConfigMap({ namespace: 'noise', body: { metadata: { name: 'n1' } } });
      await core.createNamespacedConfigMap({ namespace: 'noise', body: { metadata: { name: 'n2' } } });
      await expect.poll(() => lists, POLL).toBeGreaterThanOrEqual(2);
      await core.createNamespacedConfigMap({ namespace: 'inf', body: { metadata: { name: 'after' } } });
      await expect.poll(() => added, POLL).toContain('after');
      expect(informer.list().map((o) => o.metadata?.name).sort()).toEqual(['after', 'before']);
    } finally {
      await informer.stop();
    }
  });
});
