// The Node authorizer end to end, under the default --authorization-mode (Node,RBAC): a kubelet's
// client certificate (CN=system:node:worker-1, O=system:nodes) reads the secret its pod mounts
// with kubectl 1.33 and is refused another node's pod's secret with kube's message; the graph
// follows pods as they come and go; identities that only look like nodes get nothing.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKubeconfig } from '../../runtime/auth/kubeconfig.js';
import { issueCertificate } from '../../runtime/auth/pki.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { findKubectl, startKubectlServer, writeKubeconfig, type KubectlServer } from '../support/kubectl.js';
import { runKubectl } from '../support/kubectl.js';

const kubectl133 = findKubectl('1.33');
if (!kubectl133 && process.env.REQUIRE_KUBECTL === '1') throw new Error('REQUIRE_KUBECTL=1 but kubectl 1.33 was not found');
if (!kubectl133) console.warn('skipping the kubectl part of the Node authorizer test: kubectl 1.33 not found beside kubectl on PATH');

const pod = (name: string, nodeName: string, secret: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'v', secret: { secretName: secret } }] },
});

describe('Node authorizer over HTTPS', () => {
  let ks: KubectlServer;
  let admin: Credentials & { server: string };
  const nodeCreds = new Map<string, Credentials>();

  async function identity(subject: string): Promise<Credentials> {
    const cached = nodeCreds.get(subject);
    if (cached) return cached;
    const dataDir = ks.server.dataDir;
    const ca = { certPem: readFileSync(join(dataDir, 'ca.crt'), 'utf8'), keyPem: readFileSync(join(dataDir, 'ca.key'), 'utf8') };
    const cert = await issueCertificate(ca, { subject, usage: 'clientAuth' });
    const creds = { ca: admin.ca, cert: cert.certPem, key: cert.keyPem };
    nodeCreds.set(subject, creds);
    return creds;
  }

  const asAdmin = (path: string, method = 'GET', body?: unknown) =>
    call(admin.server, path, admin, { method, ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });

  /** The graph follows the watch cache: a just-created pod shows up a moment later. */
  async function eventually(check: () => Promise<boolean>): Promise<void> {
    for (let i = 0; i < 100; i++) {
      if (await check()) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('condition not reached in 5 s');
  }

  beforeAll(async () => {
    ks = await startKubectlServer('node-authz-', { storage: 'memory' });
    admin = kubeconfigCredentials(ks.server.kubeconfig);
    for (const name of ['s1', 's2', 'unused']) {
      expect((await asAdmin('/api/v1/namespaces/default/secrets', 'POST', { metadata: { name }, stringData: { k: 'v' } })).status).toBe(201);
    }
    expect((await asAdmin('/api/v1/namespaces/default/pods', 'POST', pod('p1', 'worker-1', 's1'))).status).toBe(201);
    expect((await asAdmin('/api/v1/namespaces/default/pods', 'POST', pod('p2', 'worker-2', 's2'))).status).toBe(201);
    const worker1 = await identity('CN=system:node:worker-1, O=system:nodes');
    await eventually(async () => (await call(admin.server, '/api/v1/namespaces/default/secrets/s1', worker1)).status === 200);
  }, 60_000);

  afterAll(async () => {
    await ks?.close();
  });

  it.runIf(kubectl133)('kubectl 1.33 as worker-1 gets its pod\'s secret and is refused another pod\'s', async () => {
    const worker1 = await identity('CN=system:node:worker-1, O=system:nodes');
    const kubeconfig = writeKubeconfig(ks.dir, buildKubeconfig({ server: admin.server, caPem: admin.ca, clientCertPem: worker1.cert!, clientKeyPem: worker1.key!, userName: 'worker-1' }), 'worker-1.kubeconfig');
    const ctx = { kubeconfig, home: ks.dir };
    const own = await runKubectl(kubectl133!, ['get', 'secret', 's1', '-n', 'default', '-o', 'jsonpath={.metadata.name}'], ctx);
    expect(own).toMatchObject({ code: 0, stdout: 's1' });
    const other = await runKubectl(kubectl133!, ['get', 'secret', 's2', '-n', 'default'], ctx);
    expect(other.code).not.toBe(0);
    expect(other.stderr.trim()).toBe(
      `Error from server (Forbidden): secrets "s2" is forbidden: User "system:node:worker-1" cannot get resource "secrets" in API group "" in the namespace "default": no relationship found between node 'worker-1' and this object`,
    );
    const list = await runKubectl(kubectl133!, ['get', 'secrets', '-n', 'default'], ctx);
    expect(list.stderr).toContain('secrets is forbidden: User "system:node:worker-1" cannot list resource "secrets" in API group "" in the namespace "default": No Object name found');
    // Its own pods by field selector, as a kubelet watches them; not everyone's.
    const pods = await runKubectl(kubectl133!, ['get', 'pods', '-A', '--field-selector', 'spec.nodeName=worker-1', '-o', 'name'], ctx);
    expect(pods).toMatchObject({ code: 0, stdout: 'pod/p1\n' });
    const allPods = await runKubectl(kubectl133!, ['get', 'pods', '-A'], ctx);
    expect(allPods.stderr).toContain('can only list/watch pods with spec.nodeName field selector');
  });

  it('answers with kube\'s 403 Status and stores nothing on a refused write', async () => {
    const worker1 = await identity('CN=system:node:worker-1, O=system:nodes');
    const res = await call(admin.server, '/api/v1/namespaces/default/secrets/s1', worker1, {
      method: 'PUT',
      body: JSON.stringify({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: 'default' }, stringData: { k: 'stolen' } }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(403);
    expect(res.json()).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      code: 403,
      message: 'secrets "s1" is forbidden: User "system:node:worker-1" cannot update resource "secrets" in API group "" in the namespace "default": can only read resources of this type',
      details: { name: 's1', kind: 'secrets' },
    });
    const stored = await asAdmin('/api/v1/namespaces/default/secrets/s1');
    expect(stored.json<{ data: Record<string, string> }>().data.k).toBe(Buffer.from('v').toString('base64'));
  });

  it('follows pods: a secret becomes readable when a pod on the node mounts it, and not once the pod is gone', async () => {
    const worker1 = await identity('CN=system:node:worker-1, O=system:nodes');
    const get = () => call(admin.server, '/api/v1/namespaces/default/secrets/unused', worker1);
    expect((await get()).status).toBe(403);
    expect((await asAdmin('/api/v1/namespaces/default/pods', 'POST', pod('p3', 'worker-1', 'unused'))).status).toBe(201);
    await eventually(async () => (await get()).status === 200);
    expect((await asAdmin('/api/v1/namespaces/default/pods/p3?gracePeriodSeconds=0', 'DELETE')).status).toBe(200);
    await eventually(async () => (await get()).status === 403);
    expect((await get()).json<{ message: string }>().message).toContain("no relationship found between node 'worker-1' and this object");
  });

  it.each([
    ['a node name without the system:nodes group', 'CN=system:node:worker-1, O=system:authenticated-ish', ''],
    ['a node of no name', 'CN=system:node:, O=system:nodes', ': unknown node for user "system:node:"'],
    ['a node name with path characters', 'CN=system:node:../worker-1, O=system:nodes', ": no relationship found between node '../worker-1' and this object"],
    ['a node name with quotes', 'CN=system:node:worker-1" OR, O=system:nodes', `: no relationship found between node 'worker-1" OR' and this object`],
    ['a user named like the group', 'CN=system:nodes, O=system:nodes', ''],
  ])('refuses %s the secret of worker-1\'s pod', async (_, subject, reason) => {
    const creds = await identity(subject);
    const res = await call(admin.server, '/api/v1/namespaces/default/secrets/s1', creds);
    expect(res.status).toBe(403);
    const user = subject.slice(3, subject.indexOf(', O='));
    expect(res.json<{ message: string }>().message).toBe(
      `secrets "s1" is forbidden: User ${JSON.stringify(user)} cannot get resource "secrets" in API group "" in the namespace "default"${reason}`,
    );
    // The server still answers, and the secret is as it was.
    expect((await asAdmin('/api/v1/namespaces/default/secrets/s1')).status).toBe(200);
  });

  it.each([
    ['a raw selector on its node', { rawSelector: 'spec.nodeName=worker-1' }, true],
    ['a requirement on its node', { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['worker-1'] }] }, true],
    ['a requirement on another node', { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['worker-2'] }] }, false],
    ['a value smuggling a term', { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['x,spec.nodeName=worker-1'] }] }, false],
    ['a key smuggling a term', { requirements: [{ key: 'spec.nodeName=worker-1,a', operator: 'In', values: ['b'] }] }, false],
  ])('answers a SubjectAccessReview for a node listing pods by %s', async (_, fieldSelector, allowed) => {
    const res = await asAdmin('/apis/authorization.k8s.io/v1/subjectaccessreviews', 'POST', {
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      spec: { user: 'system:node:worker-1', groups: ['system:nodes'], resourceAttributes: { verb: 'list', resource: 'pods', version: 'v1', fieldSelector } },
    });
    expect(res.status).toBe(201);
    const status = res.json<{ status: { allowed: boolean; reason?: string } }>().status;
    expect(status.allowed).toBe(allowed);
    if (!allowed) expect(status.reason).toBe('can only list/watch pods with spec.nodeName field selector');
  });

  it('lets a node read its own Node object only, even before it exists', async () => {
    const worker1 = await identity('CN=system:node:worker-1, O=system:nodes');
    expect((await call(admin.server, '/api/v1/nodes/worker-1', worker1)).status).toBe(404);
    const other = await call(admin.server, '/api/v1/nodes/worker-2', worker1);
    expect(other.status).toBe(403);
    expect(other.json<{ message: string }>().message).toBe(
      `nodes "worker-2" is forbidden: User "system:node:worker-1" cannot get resource "nodes" in API group "" at the cluster scope: node 'worker-1' cannot read 'worker-2', only its own Node object`,
    );
  });
});
