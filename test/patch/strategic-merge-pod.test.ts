// Strategic merge patch over the real generated schema of core/v1 Pod, the one the server builds
// (OpenAPIPatchSchemas over the generated OpenAPI components): each list follows the patch
// strategy and merge key kube publishes for it. Expected orders follow kube's strategicpatch: the
// items the patch names in the patch's order, server-only items interleaved by the server's order.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedSchemaIndex } from '../../runtime/machinery/openapi-schema.js';
import { OpenAPIPatchSchemas } from '../../runtime/registry/patch/patch-meta.js';
import { applyStrategicMergePatch } from '../../runtime/registry/patch/strategic-merge.js';
import { startWireServer, type WireServer } from '../support/wire-client.js';

const podSchema = new OpenAPIPatchSchemas(generatedSchemaIndex()).forComponent('io.k8s.api.core.v1.Pod');

type Json = Record<string, any>;

const livePod = (): Json => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'shop',
    finalizers: ['example.com/a', 'example.com/b'],
    ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'shop-rs', uid: 'uid-1' }],
  },
  spec: {
    containers: [
      {
        name: 'app',
        image: 'shop:1',
        env: [
          { name: 'MODE', value: 'prod' },
          { name: 'LEVEL', value: 'info' },
        ],
        volumeMounts: [
          { name: 'data', mountPath: '/data' },
          { name: 'conf', mountPath: '/etc/shop' },
        ],
        ports: [{ containerPort: 8080, name: 'http' }],
      },
      { name: 'proxy', image: 'proxy:1', ports: [{ containerPort: 9000 }] },
      { name: 'logger', image: 'logger:1' },
    ],
    tolerations: [
      { key: 'dedicated', operator: 'Exists' },
      { key: 'spot', operator: 'Exists' },
    ],
    volumes: [
      { name: 'data', emptyDir: {} },
      { name: 'conf', configMap: { name: 'shop-conf' } },
    ],
  },
});

const patchPod = (patch: Json) => applyStrategicMergePatch(livePod(), patch, podSchema);
const names = (list: Json[]) => list.map((c) => c.name);

interface Row {
  name: string;
  patch: Json;
  /** Reads the part of the patched pod the row is about. */
  pick: (pod: Json) => unknown;
  want: unknown;
}

const rows: Row[] = [
  {
    name: 'containers merge by name: one changed, one added, server-only ones kept',
    patch: { spec: { containers: [{ name: 'proxy', image: 'proxy:2' }, { name: 'metrics', image: 'metrics:1' }] } },
    pick: (pod) => pod.spec.containers.map((c: Json) => [c.name, c.image, c.ports ?? null]),
    want: [
      ['app', 'shop:1', [{ containerPort: 8080, name: 'http' }]],
      ['proxy', 'proxy:2', [{ containerPort: 9000 }]],
      ['metrics', 'metrics:1', null],
      ['logger', 'logger:1', null],
    ],
  },
  {
    name: 'env merges by name',
    patch: { spec: { containers: [{ name: 'app', env: [{ name: 'LEVEL', value: 'debug' }, { name: 'REGION', value: 'eu' }] }] } },
    pick: (pod) => pod.spec.containers[0].env,
    want: [
      { name: 'MODE', value: 'prod' },
      { name: 'LEVEL', value: 'debug' },
      { name: 'REGION', value: 'eu' },
    ],
  },
  {
    name: 'volumeMounts merge by mountPath',
    patch: { spec: { containers: [{ name: 'app', volumeMounts: [{ mountPath: '/data', name: 'data', readOnly: true }] }] } },
    pick: (pod) => pod.spec.containers[0].volumeMounts,
    want: [
      { name: 'data', mountPath: '/data', readOnly: true },
      { name: 'conf', mountPath: '/etc/shop' },
    ],
  },
  {
    name: 'ports merge by containerPort',
    patch: { spec: { containers: [{ name: 'app', ports: [{ containerPort: 8080, protocol: 'TCP' }, { containerPort: 9090, name: 'admin' }] }] } },
    pick: (pod) => pod.spec.containers[0].ports,
    want: [
      { containerPort: 8080, name: 'http', protocol: 'TCP' },
      { containerPort: 9090, name: 'admin' },
    ],
  },
  {
    name: '$patch: delete removes one container',
    patch: { spec: { containers: [{ name: 'proxy', $patch: 'delete' }] } },
    pick: (pod) => names(pod.spec.containers),
    want: ['app', 'logger'],
  },
  {
    name: '$setElementOrder/containers orders the named ones; a server-only one keeps its place by server order',
    patch: { spec: { '$setElementOrder/containers': [{ name: 'logger' }, { name: 'app' }], containers: [{ name: 'app', image: 'shop:2' }] } },
    pick: (pod) => pod.spec.containers.map((c: Json) => `${c.name}=${c.image}`),
    want: ['proxy=proxy:1', 'logger=logger:1', 'app=shop:2'],
  },
  {
    name: 'tolerations are atomic: the patch list replaces the live one',
    patch: { spec: { tolerations: [{ key: 'gpu', operator: 'Exists' }] } },
    pick: (pod) => pod.spec.tolerations,
    want: [{ key: 'gpu', operator: 'Exists' }],
  },
  {
    name: 'metadata.finalizers merge as a set',
    patch: { metadata: { finalizers: ['example.com/c', 'example.com/a'] } },
    pick: (pod) => pod.metadata.finalizers,
    want: ['example.com/c', 'example.com/a', 'example.com/b'],
  },
  {
    name: '$deleteFromPrimitiveList/finalizers removes from the set',
    patch: { metadata: { '$deleteFromPrimitiveList/finalizers': ['example.com/a'] } },
    pick: (pod) => pod.metadata.finalizers,
    want: ['example.com/b'],
  },
  {
    name: 'ownerReferences merge by uid',
    patch: { metadata: { ownerReferences: [{ uid: 'uid-1', controller: true }, { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'uid-2' }] } },
    pick: (pod) => pod.metadata.ownerReferences,
    want: [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'shop-rs', uid: 'uid-1', controller: true },
      { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'uid-2' },
    ],
  },
  {
    name: 'volumes (merge,retainKeys): $retainKeys drops the source the patch leaves out',
    patch: { spec: { volumes: [{ name: 'data', hostPath: { path: '/srv' }, $retainKeys: ['hostPath', 'name'] }] } },
    pick: (pod) => pod.spec.volumes,
    want: [
      { name: 'data', hostPath: { path: '/srv' } },
      { name: 'conf', configMap: { name: 'shop-conf' } },
    ],
  },
  {
    name: 'volumes without $retainKeys keep both sources',
    patch: { spec: { volumes: [{ name: 'data', hostPath: { path: '/srv' } }] } },
    pick: (pod) => pod.spec.volumes[0],
    want: { name: 'data', emptyDir: {}, hostPath: { path: '/srv' } },
  },
];

describe('strategic merge patch over the generated Pod schema', () => {
  it('reads the patch strategies kube publishes for Pod', () => {
    const spec = podSchema.field('spec').schema;
    expect(spec.field('containers').meta).toEqual({ strategies: ['merge'], mergeKey: 'name' });
    expect(spec.field('volumes').meta).toEqual({ strategies: ['merge', 'retainKeys'], mergeKey: 'name' });
    expect(spec.field('tolerations').meta.strategies).toEqual([]);
    const container = spec.field('containers').schema.items();
    expect(container.field('volumeMounts').meta.mergeKey).toBe('mountPath');
    expect(container.field('ports').meta.mergeKey).toBe('containerPort');
    expect(podSchema.field('metadata').schema.field('ownerReferences').meta.mergeKey).toBe('uid');
  });

  it.each(rows)('$name', ({ patch, pick, want }) => {
    expect(pick(patchPod(patch))).toEqual(want);
  });

  it('refuses a $retainKeys that leaves out a field the patch sets with a 400', () => {
    expect(() => patchPod({ spec: { volumes: [{ name: 'data', hostPath: { path: '/srv' }, $retainKeys: ['name'] }] } })).toThrow(
      expect.objectContaining({ code: 400, reason: 'BadRequest', message: 'invalid patch format of retainKeys' }),
    );
  });
});

describe('strategic merge patch of a Pod over HTTP', () => {
  let wire: WireServer;
  const PODS = '/api/v1/namespaces/default/pods';

  beforeAll(async () => {
    wire = await startWireServer();
  });
  afterAll(async () => {
    await wire?.close();
  });

  it('merges containers by name and finalizers as a set in the stored pod', async () => {
    const created = await wire.call('POST', PODS, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'smp-pod', finalizers: ['example.com/a'] },
        spec: {
          containers: [
            { name: 'app', image: 'shop:1', env: [{ name: 'MODE', value: 'prod' }] },
            { name: 'proxy', image: 'proxy:1' },
          ],
        },
      }),
    });
    expect(created.status).toBe(201);
    const patched = await wire.call('PATCH', `${PODS}/smp-pod`, {
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: JSON.stringify({ metadata: { finalizers: ['example.com/b'] }, spec: { containers: [{ name: 'proxy', image: 'proxy:2' }] } }),
    });
    expect(patched.status).toBe(200);
    const pod = patched.json<Json>();
    expect(pod.spec.containers.map((c: Json) => [c.name, c.image])).toEqual([
      ['app', 'shop:1'],
      ['proxy', 'proxy:2'],
    ]);
    expect(pod.spec.containers[0].env).toEqual([{ name: 'MODE', value: 'prod' }]);
    expect(pod.metadata.finalizers).toEqual(['example.com/b', 'example.com/a']);
  });

  it('answers a $patch directive it does not know with a 500 Status', async () => {
    const r = await wire.call('PATCH', `${PODS}/smp-pod`, {
      headers: { 'content-type': 'application/strategic-merge-patch+json' },
      body: JSON.stringify({ spec: { containers: [{ name: 'proxy', $patch: 'explode' }] } }),
    });
    expect(r.status).toBe(500);
    expect(r.json<{ kind: string; message: string }>()).toMatchObject({ kind: 'Status', message: expect.stringContaining('unknown patch type: explode') });
  });
});
