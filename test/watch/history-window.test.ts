// --etcd-compaction-interval=0 keeps history: a watch from an old resourceVersion still replays.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { openWatch } from '../support/watch-client.js';

describe('a history window of 0', () => {
  let server: RunningServer;
  let creds: Credentials;
  const cm = '/api/v1/namespaces/default/configmaps';

  beforeAll(async () => {
    server = await startServer({ storage: 'sqlite', historyWindowMs: 0 });
    creds = kubeconfigCredentials(server.kubeconfig);
  });
  afterAll(() => server?.close());

  it('keeps history for watches instead of dropping it', async () => {
    const first = await call(server.url, cm, creds, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'h0' } }) });
    const rv = first.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    await call(server.url, cm, creds, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'h1' } }) });
    await new Promise((r) => setTimeout(r, 50));
    const watch = await openWatch(server.url, `${cm}?watch=1&resourceVersion=${rv}`, creds);
    try {
      const [event] = await watch.until(() => true);
      expect(`${event.type} ${event.object.metadata?.name}`).toBe('ADDED h1');
    } finally {
      watch.close();
    }
  });
});
