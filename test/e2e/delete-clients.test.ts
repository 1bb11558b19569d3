// Real clients deleting with a DeleteOptions body: kubectl's typed clientset sends it in protobuf
// (`kubectl debug --replace` deletes the pod it copies that way), @kubernetes/client-node in JSON
// with the options it is given. Each must delete, and a dry run must not.
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlVersions, startKubectlServer, type KubectlServer } from '../support/kubectl.js';

let cluster: KubectlServer;
let core: CoreV1Api;

beforeAll(async () => {
  cluster = await startKubectlServer('e2e-delete-clients-', { storage: 'memory' });
  const kc = new KubeConfig();
  kc.loadFromString(cluster.server.kubeconfig);
  core = kc.makeApiClient(CoreV1Api);
});
afterAll(async () => {
  await cluster?.close();
});

/** The Content-Type of the DELETE of `path` in kubectl's -v=8 log (the headers follow the request line). */
function deleteContentType(log: string, path: string): string | undefined {
  const lines = log.split('\n');
  const at = lines.findIndex((l) => /DELETE/.test(l) && l.includes(path));
  const header = lines.slice(at + 1, at + 12).find((l) => l.includes('Content-Type:'));
  return at < 0 ? undefined : header?.split('Content-Type:')[1].trim();
}

const podNames = async (): Promise<string[]> => (await core.listNamespacedPod({ namespace: 'default' })).items.map((p) => p.metadata?.name ?? '').sort();

for (const { version, path } of kubectlVersions()) {
  describe.skipIf(!path)(`kubectl ${version}`, () => {
    it('debug --replace deletes the pod it copies, with the DeleteOptions body its clientset sends', async () => {
      const original = `replaced-${version.replace('.', '-')}`;
      const copy = `${original}-copy`;
      const run = await cluster.kubectl(path!, ['run', original, '--image=nginx']);
      expect(run.code, run.stderr).toBe(0);
      const debug = await cluster.kubectl(path!, ['debug', original, `--copy-to=${copy}`, '--replace', '--image=busybox', '--container=debugger', '-v=8', '--', 'true']);
      expect(debug.code, debug.stderr).toBe(0);
      // kubectl 1.33's clientset speaks protobuf to the pods endpoint, its DELETE included (1.27's, JSON).
      expect(deleteContentType(debug.stderr, `/pods/${original}`)).toBe(version === '1.27' ? 'application/json' : 'application/vnd.kubernetes.protobuf');
      const names = await podNames();
      expect(names).toContain(copy);
      expect(names).not.toContain(original);
    });
  });
}

describe('@kubernetes/client-node', () => {
  const namespace = 'default';
  const create = (name: string) => core.createNamespacedConfigMap({ namespace, body: { metadata: { name }, data: { a: '1' } } });
  const present = async (name: string) => (await core.listNamespacedConfigMap({ namespace })).items.some((c) => c.metadata?.name === name);

  it('deletes with a DeleteOptions body, and keeps the object under a dry run in the body', async () => {
    const created = await create('client-node-body');
    await core.deleteNamespacedConfigMap({ name: 'client-node-body', namespace, body: { dryRun: ['All'] } });
    expect(await present('client-node-body')).toBe(true);
    await expect(core.deleteNamespacedConfigMap({ name: 'client-node-body', namespace, body: { preconditions: { uid: 'not-the-uid' } } })).rejects.toMatchObject({ code: 409 });
    expect(await present('client-node-body')).toBe(true);
    await core.deleteNamespacedConfigMap({ name: 'client-node-body', namespace, body: { preconditions: { uid: created.metadata!.uid }, gracePeriodSeconds: 0 } });
    expect(await present('client-node-body')).toBe(false);
  });

  it('deletes with the options as query parameters when it sends no body', async () => {
    await create('client-node-query');
    await core.deleteNamespacedConfigMap({ name: 'client-node-query', namespace, dryRun: 'All' });
    expect(await present('client-node-query')).toBe(true);
    await core.deleteNamespacedConfigMap({ name: 'client-node-query', namespace, gracePeriodSeconds: 0 });
    expect(await present('client-node-query')).toBe(false);
  });
});
