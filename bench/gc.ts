// The garbage collector's bench row: an owner ConfigMap with 1,000 dependents is deleted
// (Background) and the time until the last dependent is gone is measured (goal <= 2 s). The
// server runs in this process on memory storage; the dependents are created before the clock starts.
import { startServer } from '../runtime/index.js';
import { call, kubeconfigCredentials } from '../test/support/https-client.js';

const DEPENDENTS = 1000;
const CM = '/api/v1/namespaces/default/configmaps';

export async function measureGcDelete(): Promise<{ dependents: number; seconds: number }> {
  const server = await startServer({ storage: 'memory' });
  const creds = kubeconfigCredentials(server.kubeconfig);
  const send = async (method: string, path: string, body?: unknown) => {
    const res = await call(server.url, path, creds, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: res.json<{ metadata: { uid: string }; items: { metadata: { name: string } }[] }>() };
  };
  try {
    const owner = (await send('POST', CM, { metadata: { name: 'gc-bench-owner' } })).body;
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'gc-bench-owner', uid: owner.metadata.uid };
    for (let i = 0; i < DEPENDENTS; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, j) => send('POST', CM, { metadata: { name: `gc-bench-${i + j}`, ownerReferences: [ref] } })));
    }
    const started = performance.now();
    await send('DELETE', `${CM}/gc-bench-owner`, { propagationPolicy: 'Background' });
    for (;;) {
      const list = await send('GET', CM);
      if (!list.body.items.some((o) => o.metadata.name.startsWith('gc-bench-'))) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    return { dependents: DEPENDENTS, seconds: (performance.now() - started) / 1000 };
  } finally {
    await server.close();
  }
}

if (process.argv[1]?.endsWith('gc.ts')) {
  const { dependents, seconds } = await measureGcDelete();
  console.log(`delete an owner with ${dependents} dependents until all are gone: ${seconds.toFixed(2)} s (goal <= 2 s)`);
}
