// kubectl delete --cascade=foreground|background|orphan against the garbage collector, as on a
// cluster: foreground returns once the owner is gone and its blocking dependents with it (kubectl
// waits for the owner), background leaves the dependents to the collector, orphan keeps them
// without the reference.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlVersions, startKubectlServer, type KubectlServer } from '../support/kubectl.js';

const kubectl133 = kubectlVersions().find((v) => v.version === '1.33')?.path;

describe.runIf(kubectl133)('kubectl delete --cascade (kubectl 1.33)', () => {
  let k: KubectlServer;
  const run = (args: string[], input?: string) => k.kubectl(kubectl133!, args, input);

  beforeAll(async () => {
    k = await startKubectlServer('gc-kubectl-', { storage: 'memory' }, 60_000);
  });
  afterAll(() => k?.close());

  async function family(owner: string, dependents: string[]): Promise<void> {
    expect((await run(['create', 'configmap', owner])).code).toBe(0);
    const uid = (await run(['get', 'configmap', owner, '-o', 'jsonpath={.metadata.uid}'])).stdout;
    const docs = dependents.map((name) =>
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        `  name: ${name}`,
        '  ownerReferences:',
        '  - apiVersion: v1',
        '    kind: ConfigMap',
        `    name: ${owner}`,
        `    uid: ${uid}`,
        '    blockOwnerDeletion: true',
      ].join('\n'),
    );
    const created = await run(['create', '-f', '-'], docs.join('\n---\n'));
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
  }

  const names = async () => (await run(['get', 'configmaps', '-o', 'jsonpath={.items[*].metadata.name}'])).stdout.split(' ');

  it('--cascade=foreground returns once the owner and its blocking dependents are gone', async () => {
    await family('fg', ['fg-a', 'fg-b']);
    const res = await run(['delete', 'configmap', 'fg', '--cascade=foreground']);
    expect(res.stderr).toBe('');
    expect(res.stdout).toContain('configmap "fg" deleted');
    const left = await names();
    expect(left).not.toContain('fg');
    expect(left).not.toContain('fg-a');
    expect(left).not.toContain('fg-b');
  });

  it('--cascade=background deletes the owner, then the collector its dependents', async () => {
    await family('bg', ['bg-a']);
    const res = await run(['delete', 'configmap', 'bg', '--cascade=background']);
    expect(res.code).toBe(0);
    const deadline = Date.now() + 20_000;
    while ((await names()).includes('bg-a') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(await names()).not.toContain('bg-a');
  });

  it('--cascade=orphan deletes the owner and keeps its dependents, released', async () => {
    await family('or', ['or-a']);
    const res = await run(['delete', 'configmap', 'or', '--cascade=orphan']);
    expect(res.stderr).toBe('');
    expect(res.stdout).toContain('configmap "or" deleted');
    expect(await names()).not.toContain('or');
    const refs = await run(['get', 'configmap', 'or-a', '-o', 'jsonpath={.metadata.ownerReferences}']);
    expect(refs.code).toBe(0);
    expect(refs.stdout).toBe('');
  });
});
