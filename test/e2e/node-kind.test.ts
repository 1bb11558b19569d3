// core/v1 Node over HTTPS: kube's node strategy (status written on create, kept by the main
// endpoint; spec kept by the status endpoint; podCIDRs and providerID set once) and the rules of
// ValidateNode / ValidateNodeUpdate with their field paths, and `kubectl get nodes` as kube prints it.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, kubeconfigCredentials, type Credentials, type HttpResult } from '../support/https-client.js';
import { findKubectl, startKubectlServer, type KubectlServer } from '../support/kubectl.js';

type Obj = Record<string, unknown>;

const kubectl133 = findKubectl('1.33');
if (!kubectl133 && process.env.REQUIRE_KUBECTL === '1') throw new Error('REQUIRE_KUBECTL=1 but kubectl 1.33 was not found');

describe('core/v1 Node', () => {
  let ks: KubectlServer;
  let admin: Credentials & { server: string };

  const send = (path: string, method = 'GET', body?: unknown, contentType = 'application/json'): Promise<HttpResult> =>
    call(admin.server, path, admin, { method, ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': contentType } } : {}) });
  const create = (node: Obj) => send('/api/v1/nodes', 'POST', { apiVersion: 'v1', kind: 'Node', ...node });
  const merge = (path: string, body: unknown) => send(path, 'PATCH', body, 'application/merge-patch+json');

  function expectInvalid(res: HttpResult, causes: { field: string; message: string; reason?: string }[]): void {
    expect(res.status, res.body).toBe(422);
    const status = res.json<{ reason: string; details: { causes: Obj[] } }>();
    expect(status.reason).toBe('Invalid');
    for (const cause of causes) expect(status.details.causes).toContainEqual(expect.objectContaining(cause));
  }

  beforeAll(async () => {
    ks = await startKubectlServer('node-kind-', { storage: 'memory' });
    admin = kubeconfigCredentials(ks.server.kubeconfig);
  }, 60_000);

  afterAll(async () => {
    await ks?.close();
  });

  it('keeps the status a node is created with, defaults allocatable and fills what Go always writes', async () => {
    const res = await create({
      metadata: { name: 'n1' },
      spec: { podCIDR: '10.244.1.0/24', configSource: { configMap: { namespace: 'kube-system', name: 'c', kubeletConfigKey: 'k' } } },
      status: { capacity: { cpu: '4', memory: '8Gi' }, conditions: [{ type: 'Ready', status: 'True' }], config: { error: 'x' } },
    });
    expect(res.status, res.body).toBe(201);
    const node = res.json<{ spec: Obj; status: Obj }>();
    // The dynamic kubelet configuration is gone: dropped on create.
    expect(node.spec).toEqual({ podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'] });
    expect(node.status).toEqual({
      capacity: { cpu: '4', memory: '8Gi' },
      allocatable: { cpu: '4', memory: '8Gi' },
      conditions: [{ type: 'Ready', status: 'True' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
      nodeInfo: { machineID: '', systemUUID: '', bootID: '', kernelVersion: '', osImage: '', containerRuntimeVersion: '', kubeletVersion: '', kubeProxyVersion: '', operatingSystem: '', architecture: '' },
    });
  });

  it('keeps the stored status on a spec update and the stored spec on a status update', async () => {
    const current = (await send('/api/v1/nodes/n1')).json<Obj & { metadata: Obj }>();
    const put = await send('/api/v1/nodes/n1', 'PUT', { ...current, spec: { ...(current.spec as Obj), unschedulable: true }, status: { phase: 'Pending' } });
    expect(put.status, put.body).toBe(200);
    expect(put.json<{ spec: Obj; status: Obj }>()).toMatchObject({ spec: { unschedulable: true }, status: { capacity: { cpu: '4' } } });
    expect(put.json<{ status: Obj }>().status.phase).toBeUndefined();
    const status = await merge('/api/v1/nodes/n1/status', { spec: { unschedulable: false }, status: { nodeInfo: { kubeletVersion: 'v1.33.1' } } });
    expect(status.status, status.body).toBe(200);
    expect(status.json<{ spec: Obj; status: { nodeInfo: Obj } }>()).toMatchObject({ spec: { unschedulable: true }, status: { nodeInfo: { kubeletVersion: 'v1.33.1' } } });
  });

  it('lets podCIDRs and providerID be set once, then never changed', async () => {
    expect((await create({ metadata: { name: 'n2' } })).status).toBe(201);
    expect((await merge('/api/v1/nodes/n2', { spec: { podCIDRs: ['10.0.0.0/24', 'fd00::/64'], providerID: 'kind://docker/n2' } })).status).toBe(200);
    expectInvalid(await merge('/api/v1/nodes/n2', { spec: { podCIDRs: ['10.0.1.0/24', 'fd00::/64'] } }), [
      { field: 'spec.podCIDRs', reason: 'FieldValueForbidden', message: 'Forbidden: node updates may not change podCIDR except from "" to valid' },
    ]);
    expectInvalid(await merge('/api/v1/nodes/n2', { spec: { providerID: 'other://x' } }), [
      { field: 'spec.providerID', reason: 'FieldValueForbidden', message: 'Forbidden: node updates may not change providerID except from "" to valid' },
    ]);
    const stored = (await send('/api/v1/nodes/n2')).json<{ spec: Obj }>();
    expect(stored.spec).toMatchObject({ podCIDR: '10.0.0.0/24', podCIDRs: ['10.0.0.0/24', 'fd00::/64'], providerID: 'kind://docker/n2' });
  });

  it.each([
    ['a bad CIDR', { spec: { podCIDRs: ['bogus'] } }, [{ field: 'spec.podCIDRs[0]', message: 'Invalid value: "bogus": must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)' }]],
    ['two CIDRs of a family', { spec: { podCIDRs: ['10.0.0.0/24', '10.1.0.0/24'] } }, [{ field: 'spec.podCIDRs', message: 'Invalid value: ["10.0.0.0/24","10.1.0.0/24"]: may specify no more than one CIDR for each IP family' }]],
    [
      'a taint with a bad effect and key',
      { spec: { taints: [{ key: 'bad key', effect: 'Sometimes' }] } },
      [
        { field: 'metadata.taints[0].key', message: expect.stringContaining('Invalid value: "bad key": name part must consist of alphanumeric characters') },
        { field: 'metadata.taints[0].effect', message: 'Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"' },
      ],
    ],
    ['a taint without effect', { spec: { taints: [{ key: 'a' }] } }, [{ field: 'metadata.taints[0].effect', message: 'Required value' }]],
    [
      'the same taint twice',
      { spec: { taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'a', value: 'v', effect: 'NoSchedule' }] } },
      [{ field: 'metadata.taints[1]', reason: 'FieldValueDuplicate', message: expect.stringMatching(/^Duplicate value: .*: taints must be unique by key and effect pair$/) }],
    ],
    ['a negative capacity', { status: { capacity: { cpu: '-1' } } }, [{ field: 'status.capacity.cpu', message: 'Invalid value: "-1": must be greater than or equal to 0' }]],
    // The whole-number check gives field.Invalid the Quantity itself, which ErrorBody prints by its String(), unquoted.
    ['a fractional pod count', { status: { allocatable: { pods: '1500m' } } }, [{ field: 'status.allocatable.pods', message: 'Invalid value: 1500m: must be an integer' }]],
  ])('refuses %s with kube\'s field paths, and stores nothing', async (_, body, causes) => {
    expectInvalid(await create({ metadata: { name: 'bad' }, ...body }), causes);
    expect((await send('/api/v1/nodes/bad')).status).toBe(404);
  });

  it('selects by spec.unschedulable', async () => {
    const list = (await send('/api/v1/nodes?fieldSelector=spec.unschedulable%3Dtrue')).json<{ items: { metadata: { name: string } }[] }>();
    expect(list.items.map((n) => n.metadata.name)).toEqual(['n1']);
  });

  it.runIf(kubectl133)('prints kubectl get nodes as kube does', async () => {
    expect((await create({ metadata: { name: 'n3', labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'edge' } } })).status).toBe(201);
    const res = await ks.kubectl(kubectl133!, ['get', 'nodes', '-o', 'wide']);
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.trim().split('\n').map((l) => l.trim().split(/\s{2,}/));
    expect(lines[0]).toEqual(['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME']);
    const row = (name: string) => lines.find((l) => l[0] === name)!;
    expect(row('n1')).toEqual(['n1', 'Ready,SchedulingDisabled', '<none>', expect.any(String), 'v1.33.1', '<none>', '<none>', '<unknown>', '<unknown>', '<unknown>']);
    expect(row('n3').slice(0, 3)).toEqual(['n3', 'Unknown', 'control-plane,edge']);
    const short = await ks.kubectl(kubectl133!, ['get', 'no', 'n2', '-o', 'name']);
    expect(short).toMatchObject({ code: 0, stdout: 'node/n2\n' });
  });
});
