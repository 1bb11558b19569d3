// NodeRestriction admission end to end: kubelet certificates (CN=system:node:<name>,
// O=system:nodes) writing Nodes, mirror pods, pod status, evictions and token requests. Every
// refusal is kube's 403 message, and nothing refused is stored.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueCertificate } from '../../runtime/auth/pki.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials, type HttpResult } from '../support/https-client.js';

type Obj = Record<string, unknown>;

describe('NodeRestriction over HTTPS', () => {
  let server: RunningServer;
  let admin: Credentials & { server: string };
  const nodes: Record<string, Credentials> = {};

  const send = (creds: Credentials, path: string, method = 'GET', body?: unknown, contentType = 'application/json'): Promise<HttpResult> =>
    call(admin.server, path, creds, { method, ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': contentType } } : {}) });
  const asAdmin = (path: string, method = 'GET', body?: unknown) => send(admin, path, method, body);
  const merge = (creds: Credentials, path: string, body: unknown) => send(creds, path, 'PATCH', body, 'application/merge-patch+json');

  async function eventually(check: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 100; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('condition not reached in 5 s');
  }

  function expectForbidden(res: HttpResult, message: string): void {
    expect(res.status).toBe(403);
    expect(res.json()).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403, message });
  }

  const pod = (name: string, nodeName: string, extra: Obj = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { nodeName, serviceAccountName: 'default', containers: [{ name: 'c', image: 'busybox' }], ...extra },
  });

  beforeAll(async () => {
    server = await startServer({ storage: 'memory' });
    admin = kubeconfigCredentials(server.kubeconfig);
    const ca = { certPem: readFileSync(join(server.dataDir, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(server.dataDir, 'ca.key'), 'utf8') };
    for (const name of ['worker-1', 'worker-2', 'worker-3']) {
      const cert = await issueCertificate(ca, { subject: `CN=system:node:${name}, O=system:nodes`, usage: 'clientAuth' });
      nodes[name] = { ca: admin.ca, cert: cert.certPem, key: cert.keyPem };
    }
    await eventually(async () => (await asAdmin('/api/v1/namespaces/default/serviceaccounts/default')).status === 200);
    expect((await asAdmin('/api/v1/namespaces/default/pods', 'POST', pod('p1', 'worker-1'))).status).toBe(201);
    expect((await asAdmin('/api/v1/namespaces/default/pods', 'POST', pod('p2', 'worker-2'))).status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  describe('Nodes', () => {
    it('lets a node register itself, status included, with the kubelet\'s labels', async () => {
      const res = await send(nodes['worker-1'], '/api/v1/nodes', 'POST', {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'worker-1', labels: { 'kubernetes.io/hostname': 'worker-1', 'node.kubernetes.io/instance-type': 'small', 'example.com/team': 'a' } },
        status: { capacity: { cpu: '2', pods: '110' }, nodeInfo: { kubeletVersion: 'v1.33.0' }, conditions: [{ type: 'Ready', status: 'True' }] },
      });
      expect(res.status).toBe(201);
      const node = res.json<{ status: Obj }>();
      expect(node.status).toMatchObject({ capacity: { cpu: '2', pods: '110' }, allocatable: { cpu: '2', pods: '110' }, nodeInfo: { kubeletVersion: 'v1.33.0', machineID: '' }, daemonEndpoints: { kubeletEndpoint: { Port: 0 } } });
    });

    it('refuses another node\'s Node, and stores nothing', async () => {
      expectForbidden(
        await send(nodes['worker-1'], '/api/v1/nodes', 'POST', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-2' } }),
        'nodes "worker-2" is forbidden: node "worker-1" is not allowed to modify node "worker-2"',
      );
      expect((await asAdmin('/api/v1/nodes/worker-2')).status).toBe(404);
    });

    it('refuses registration with labels a node may not give itself', async () => {
      expectForbidden(
        await send(nodes['worker-3'], '/api/v1/nodes', 'POST', {
          apiVersion: 'v1',
          kind: 'Node',
          metadata: { name: 'worker-3', labels: { 'node-role.kubernetes.io/control-plane': '', 'node-restriction.kubernetes.io/secure': 'true', 'kubernetes.io/os': 'linux' } },
        }),
        'nodes "worker-3" is forbidden: node "worker-3" is not allowed to set the following labels: node-restriction.kubernetes.io/secure, node-role.kubernetes.io/control-plane',
      );
      expect((await asAdmin('/api/v1/nodes/worker-3')).status).toBe(404);
    });

    it('refuses a node changing its own taints or restricted labels, and allows its status and kubelet labels', async () => {
      const admin1 = await send(admin, '/api/v1/nodes/worker-1', 'PATCH', { spec: { taints: [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }] } }, 'application/merge-patch+json');
      expect(admin1.status).toBe(200);
      expectForbidden(await merge(nodes['worker-1'], '/api/v1/nodes/worker-1', { spec: { taints: null } }), 'nodes "worker-1" is forbidden: node "worker-1" is not allowed to modify taints');
      expectForbidden(
        await merge(nodes['worker-1'], '/api/v1/nodes/worker-1', { metadata: { labels: { 'node-role.kubernetes.io/control-plane': '' } } }),
        'nodes "worker-1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/control-plane',
      );
      const stored = (await asAdmin('/api/v1/nodes/worker-1')).json<{ metadata: { labels: Obj }; spec: { taints: unknown[] } }>();
      expect(stored.spec.taints).toHaveLength(1);
      expect(stored.metadata.labels).not.toHaveProperty('node-role.kubernetes.io/control-plane');
      expect((await merge(nodes['worker-1'], '/api/v1/nodes/worker-1', { metadata: { labels: { 'node.kubernetes.io/exclude-from-external-load-balancers': 'true', 'example.com/x': 'y' } } })).status).toBe(200);
      expect((await merge(nodes['worker-1'], '/api/v1/nodes/worker-1/status', { status: { conditions: [{ type: 'Ready', status: 'False' }] } })).status).toBe(200);
      expect((await asAdmin('/api/v1/nodes', 'POST', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'worker-2' } })).status).toBe(201);
      expectForbidden(
        await merge(nodes['worker-1'], '/api/v1/nodes/worker-2/status', { status: { conditions: [] } }),
        'nodes "worker-2" is forbidden: node "worker-1" is not allowed to modify node "worker-2"',
      );
    });
  });

  describe('pods', () => {
    const mirror = async (name: string, nodeName: string, extra: Obj = {}, annotated = true) => {
      const node = (await asAdmin('/api/v1/nodes/worker-1')).json<{ metadata: { uid: string } }>();
      return {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name,
          namespace: 'default',
          ...(annotated ? { annotations: { 'kubernetes.io/config.mirror': 'hash' } } : {}),
          ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: nodeName, uid: node.metadata.uid, controller: true }],
        },
        spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }], ...extra },
      };
    };

    it('lets a node create a mirror pod owned by its Node', async () => {
      expect((await send(nodes['worker-1'], '/api/v1/namespaces/default/pods', 'POST', await mirror('static-web-worker-1', 'worker-1'))).status).toBe(201);
    });

    it.each([
      ['without the mirror annotation', () => mirror('m1', 'worker-1', {}, false), 'pod does not have "kubernetes.io/config.mirror" annotation, node "worker-1" can only create mirror pods'],
      ['bound to another node', () => mirror('m2', 'worker-2'), 'node "worker-1" can only create pods with spec.nodeName set to itself'],
      ['naming a secret', () => mirror('m3', 'worker-1', { volumes: [{ name: 'v', secret: { secretName: 's' } }] }), 'node "worker-1" can not create pods that reference secrets'],
      ['naming a configmap', () => mirror('m4', 'worker-1', { containers: [{ name: 'c', image: 'i', envFrom: [{ configMapRef: { name: 'cm' } }] }] }), 'node "worker-1" can not create pods that reference configmaps'],
      ['naming a claim', () => mirror('m5', 'worker-1', { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] }), 'node "worker-1" can not create pods that reference persistentvolumeclaims'],
      ['running as a service account', () => mirror('m6', 'worker-1', { serviceAccountName: 'default' }), 'node "worker-1" can not create pods that reference a service account'],
    ])('refuses a mirror pod %s', async (_, body, why) => {
      const obj = await body();
      const name = (obj.metadata as { name: string }).name;
      expectForbidden(await send(nodes['worker-1'], '/api/v1/namespaces/default/pods', 'POST', obj), `pods "${name}" is forbidden: ${why}`);
      expect((await asAdmin(`/api/v1/namespaces/default/pods/${name}`)).status).toBe(404);
    });

    it('refuses a mirror pod whose owner reference is not the node\'s uid', async () => {
      const obj = await mirror('m7', 'worker-1');
      (obj.metadata.ownerReferences[0] as Obj).uid = 'forged';
      const res = await send(nodes['worker-1'], '/api/v1/namespaces/default/pods', 'POST', obj);
      expect(res.status).toBe(403);
      expect(res.json<{ message: string }>().message).toMatch(/^pods "m7" is forbidden: node worker-1 UID mismatch: expected forged got [0-9a-f-]{36}$/);
    });

    it('lets a node write the status of its own pods only, without their labels', async () => {
      expect((await merge(nodes['worker-1'], '/api/v1/namespaces/default/pods/p1/status', { status: { phase: 'Running' } })).status).toBe(200);
      expectForbidden(
        await merge(nodes['worker-1'], '/api/v1/namespaces/default/pods/p2/status', { status: { phase: 'Failed' } }),
        'pods "p2" is forbidden: node "worker-1" can only update pod status for pods with spec.nodeName set to itself',
      );
      expectForbidden(
        await merge(nodes['worker-1'], '/api/v1/namespaces/default/pods/p1/status', { metadata: { labels: { hijacked: 'yes' } } }),
        'pods "p1" is forbidden: node "worker-1" cannot update labels through pod status',
      );
      const p2 = (await asAdmin('/api/v1/namespaces/default/pods/p2')).json<{ status: Obj }>();
      expect(p2.status.phase).not.toBe('Failed');
    });

    it('lets a node delete pods bound to itself only, and nothing refused is deleted', async () => {
      expectForbidden(
        await send(nodes['worker-1'], '/api/v1/namespaces/default/pods/p2', 'DELETE'),
        'pods "p2" is forbidden: node "worker-1" can only delete pods with spec.nodeName set to itself',
      );
      expect((await asAdmin('/api/v1/namespaces/default/pods/p2')).json<{ metadata: Obj }>().metadata.deletionTimestamp).toBeUndefined();
      expect((await send(nodes['worker-1'], '/api/v1/namespaces/default/pods/nope', 'DELETE')).status).toBe(404);
      expect((await send(nodes['worker-1'], '/api/v1/namespaces/default/pods/static-web-worker-1', 'DELETE')).status).toBe(200);
    });

    it('lets a node evict its own pods only', async () => {
      expect((await asAdmin('/api/v1/namespaces/default/pods', 'POST', pod('p3', 'worker-1'))).status).toBe(201);
      const eviction = (name: string) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name, namespace: 'default' } });
      expectForbidden(
        await send(nodes['worker-1'], '/api/v1/namespaces/default/pods/p2/eviction', 'POST', eviction('p2')),
        'pods "p2" is forbidden: node worker-1 can only evict pods with spec.nodeName set to itself',
      );
      expect((await asAdmin('/api/v1/namespaces/default/pods/p2')).json<{ metadata: Obj }>().metadata.deletionTimestamp).toBeUndefined();
      expect((await send(nodes['worker-1'], '/api/v1/namespaces/default/pods/p3/eviction', 'POST', eviction('p3'))).status).toBe(201);
    });
  });

  describe('service account tokens', () => {
    const tokenRequest = (boundObjectRef?: Obj, audiences: string[] = []) => ({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { audiences, ...(boundObjectRef ? { boundObjectRef } : {}) } });
    const uidOf = async (name: string) => (await asAdmin(`/api/v1/namespaces/default/pods/${name}`)).json<{ metadata: { uid: string } }>().metadata.uid;
    const path = '/api/v1/namespaces/default/serviceaccounts/default/token';

    it('gives a node a token bound to its own pod, for the API server\'s own audience', async () => {
      await eventually(async () => (await send(nodes['worker-1'], path, 'POST', tokenRequest({ apiVersion: 'v1', kind: 'Pod', name: 'p1', uid: await uidOf('p1') }))).status === 201);
    });

    it('gives other audiences only as the pod uses them or RBAC grants them (ServiceAccountNodeAudienceRestriction)', async () => {
      const p1 = { apiVersion: 'v1', kind: 'Pod', name: 'p1', uid: await uidOf('p1') };
      expectForbidden(
        await send(nodes['worker-1'], path, 'POST', tokenRequest(p1, ['registry.example'])),
        'serviceaccounts "default" is forbidden: audience "registry.example" not found in pod spec volume, system:node:worker-1 is not authorized to request tokens for this audience',
      );
      expectForbidden(await send(nodes['worker-1'], path, 'POST', tokenRequest(p1, ['a', 'b'])), 'serviceaccounts "default" is forbidden: node may only request 0 or 1 audiences');

      // A pod whose CSI driver asks for tokens of an audience.
      const driver = { apiVersion: 'storage.k8s.io/v1', kind: 'CSIDriver', metadata: { name: 'secrets.csi.example' }, spec: { tokenRequests: [{ audience: 'vault.example' }] } };
      expect((await asAdmin('/apis/storage.k8s.io/v1/csidrivers', 'POST', driver)).status).toBe(201);
      const csiPod = pod('csi', 'worker-1', { volumes: [{ name: 'secrets', csi: { driver: 'secrets.csi.example' } }, { name: 'token', projected: { sources: [{ serviceAccountToken: { audience: 'sts.example', path: 't' } }] } }] });
      expect((await asAdmin('/api/v1/namespaces/default/pods', 'POST', csiPod)).status).toBe(201);
      const csi = { apiVersion: 'v1', kind: 'Pod', name: 'csi', uid: await uidOf('csi') };
      for (const audience of ['vault.example', 'sts.example']) {
        await eventually(async () => (await send(nodes['worker-1'], path, 'POST', tokenRequest(csi, [audience]))).status === 201);
      }
      expectForbidden(
        await send(nodes['worker-1'], path, 'POST', tokenRequest(p1, ['vault.example'])),
        'serviceaccounts "default" is forbidden: audience "vault.example" not found in pod spec volume, system:node:worker-1 is not authorized to request tokens for this audience',
      );

      // RBAC grants the node the registry's audience for this account.
      const rbac = '/apis/rbac.authorization.k8s.io/v1';
      expect(
        (await asAdmin(`${rbac}/clusterroles`, 'POST', { metadata: { name: 'registry-audience' }, rules: [{ verbs: ['request-serviceaccounts-token-audience'], apiGroups: [''], resources: ['registry.example'], resourceNames: ['default'] }] })).status,
      ).toBe(201);
      expect(
        (await asAdmin(`${rbac}/clusterrolebindings`, 'POST', {
          metadata: { name: 'registry-audience' },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'registry-audience' },
          subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:nodes' }],
        })).status,
      ).toBe(201);
      await eventually(async () => (await send(nodes['worker-1'], path, 'POST', tokenRequest(p1, ['registry.example']))).status === 201);
      const token = (await send(nodes['worker-1'], path, 'POST', tokenRequest(p1, ['registry.example']))).json<{ spec: { audiences: string[] } }>();
      expect(token.spec.audiences).toEqual(['registry.example']);
    });

    it.each([
      ['not bound to a pod', async () => tokenRequest(), 'node requested token not bound to a pod'],
      ['bound to a pod without a uid', async () => tokenRequest({ apiVersion: 'v1', kind: 'Pod', name: 'p1' }), 'node requested token with a pod binding without a uid'],
      ['bound to another node\'s pod', async () => tokenRequest({ apiVersion: 'v1', kind: 'Pod', name: 'p2', uid: await uidOf('p2') }), 'node requested token bound to a pod scheduled on a different node'],
      [
        'bound to a pod by a stale uid',
        async () => tokenRequest({ apiVersion: 'v1', kind: 'Pod', name: 'p1', uid: 'stale' }),
        'the UID in the bound object reference (stale) does not match the UID in record. The object might have been deleted and then recreated',
      ],
    ])('refuses a token %s', async (_, body, why) => {
      expectForbidden(await send(nodes['worker-1'], path, 'POST', await body()), `serviceaccounts "default" is forbidden: ${why}`);
    });
  });
});
