// kubectl 1.33 scaling a custom resource through its scale subresource (a nested replicas path):
// `kubectl scale` and `kubectl patch --subresource=scale` move the replicas field to their manager
// (recorded with subresource `scale`), so a later server-side apply of the parent by its first
// owner conflicts on the replicas field until forced, as against a real cluster.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kubectlVersions, runKubectl, startKubectlServer, type KubectlServer } from '../support/kubectl.js';

const kubectl133 = kubectlVersions().find((v) => v.version === '1.33')?.path;

const CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: pools.scale.example.com}
spec:
  group: scale.example.com
  scope: Namespaced
  names: {plural: pools, singular: pool, kind: Pool}
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.scaling.replicas, statusReplicasPath: .status.replicas}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              image: {type: string}
              scaling: {type: object, properties: {replicas: {type: integer}}}
          status: {type: object, properties: {replicas: {type: integer}}}
`;

const POOL = `apiVersion: scale.example.com/v1
kind: Pool
metadata: {name: web, namespace: default}
spec: {image: nginx, scaling: {replicas: 1}}
`;

type Entry = { manager: string; operation: string; subresource?: string; fieldsV1: Record<string, unknown> };

describe.runIf(kubectl133)('kubectl scaling a custom resource (kubectl 1.33)', () => {
  let k: KubectlServer;
  let homes = 0;
  const run = (args: string[], input?: string) => runKubectl(kubectl133!, args, { kubeconfig: k.kubeconfig, home: `${k.dir}/home-${homes++}`, timeout: 60_000 }, input);
  const owners = async () => {
    const got = JSON.parse((await run(['get', 'pool', 'web', '-o', 'json', '--show-managed-fields'])).stdout);
    const entries = got.metadata.managedFields as Entry[];
    return {
      replicas: got.spec.scaling.replicas as number,
      ofReplicas: entries.filter((e) => JSON.stringify(e.fieldsV1).includes('"f:replicas"')).map((e) => [e.manager, e.operation, e.subresource ?? '']),
    };
  };

  beforeAll(async () => {
    k = await startKubectlServer('crd-scale-kubectl-', { storage: 'memory' }, 60_000);
  });
  afterAll(() => k?.close());

  it('records kubectl scale and patch --subresource=scale as owners of the replicas field', async () => {
    expect((await run(['apply', '-f', '-'], CRD)).stderr).toBe('');
    await run(['wait', '--for=condition=Established', '--timeout=20s', 'crd/pools.scale.example.com']);
    let applied = await run(['apply', '--server-side', '--field-manager=deployer', '-f', '-'], POOL);
    for (let i = 0; i < 40 && applied.stderr.includes('no matches for kind'); i++) {
      await new Promise((r) => setTimeout(r, 100));
      applied = await run(['apply', '--server-side', '--field-manager=deployer', '-f', '-'], POOL);
    }
    expect(applied.stderr).toBe('');
    expect(await owners()).toEqual({ replicas: 1, ofReplicas: [['deployer', 'Apply', '']] });

    const scaled = await run(['scale', 'pool', 'web', '--replicas=3']);
    expect(scaled.stderr).toBe('');
    expect(scaled.stdout.trim()).toBe('pool.scale.example.com/web scaled');
    const afterScale = await owners();
    expect(afterScale.replicas).toBe(3);
    // kubectl scale names no fieldManager: the manager is its User-Agent's product, the binary's name.
    expect(afterScale.ofReplicas).toEqual([['kubectl.1.33', 'Update', 'scale']]);

    const conflict = await run(['apply', '--server-side', '--field-manager=deployer', '-f', '-'], POOL);
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain('.spec.scaling.replicas');
    expect(conflict.stderr).toContain(`conflict with "${afterScale.ofReplicas[0][0]}" with subresource "scale"`);
    expect((await owners()).replicas).toBe(3);

    const forced = await run(['apply', '--server-side', '--field-manager=deployer', '--force-conflicts', '-f', '-'], POOL);
    expect(forced.stderr).toBe('');
    expect(await owners()).toEqual({ replicas: 1, ofReplicas: [['deployer', 'Apply', '']] });

    const patched = await run(['patch', 'pool', 'web', '--subresource=scale', '--type=merge', '-p', '{"spec":{"replicas":4}}', '--field-manager=autoscaler']);
    expect(patched.stderr).toBe('');
    expect(await owners()).toEqual({ replicas: 4, ofReplicas: [['autoscaler', 'Update', 'scale']] });
    // apply --subresource=scale sends the Pool manifest itself, which the Scale's field manager refuses.
    const subApply = await run(['apply', '--server-side', '--subresource=scale', '--field-manager=deployer', '-f', '-'], POOL);
    expect(subApply.code).not.toBe(0);
    expect(subApply.stderr).toContain('invalid object type: scale.example.com/v1, Kind=Pool');
    expect((await owners()).replicas).toBe(4);
    const scale = JSON.parse((await run(['get', 'pool', 'web', '--subresource=scale', '-o', 'json'])).stdout);
    expect(scale).toMatchObject({ kind: 'Scale', apiVersion: 'autoscaling/v1', spec: { replicas: 4 } });
  });
});
