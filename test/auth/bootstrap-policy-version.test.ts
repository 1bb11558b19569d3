// The default RBAC policy is kube-apiserver v1.33.0's (with its default feature gates), not a
// later one's: facts that tell 1.33 from its successors, checked in the data file and, for one,
// in what a started server reconciles.
//  - kubernetes#134297 (Kubernetes 1.35) removed the configmaps rules of the leader-locking Roles;
//    in 1.33 they are still there, beside the leases and leasecandidates rules.
//  - DynamicResourceAllocation is off by default until its 1.34 GA: no resource.k8s.io rule for
//    the scheduler or the node, and no resource-claim or device-taint controller role.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBootstrapPolicy } from '../../runtime/api/bootstrap-policy.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import type { KubeObject } from '../../runtime/machinery/object.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';

const policy = loadBootstrapPolicy();
const named = (objects: KubeObject[], name: string, namespace?: string) =>
  objects.find((o) => (o.metadata as { name: string }).name === name && (o.metadata as { namespace?: string }).namespace === namespace);
type Rule = { apiGroups?: string[]; resources?: string[]; resourceNames?: string[]; verbs: string[] };
const rulesOf = (o: KubeObject | undefined) => (o?.rules ?? []) as Rule[];

describe('bootstrap policy: kube v1.33.0 facts', () => {
  it.each(['kube-controller-manager', 'kube-scheduler'])('system::leader-locking-%s keeps its configmaps rules (gone only in 1.35)', (component) => {
    const role = named(policy.roles, `system::leader-locking-${component}`, 'kube-system');
    expect(rulesOf(role)).toEqual([
      { apiGroups: [''], resources: ['configmaps'], verbs: ['watch'] },
      { apiGroups: [''], resources: ['configmaps'], resourceNames: [component], verbs: ['get', 'update'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create', 'get', 'list', 'update', 'watch'] },
      { apiGroups: ['coordination.k8s.io'], resources: ['leasecandidates'], verbs: ['create', 'get', 'list', 'update', 'watch'] },
    ]);
  });

  it.each(['system:kube-scheduler', 'system:node', 'system:aggregate-to-view', 'system:aggregate-to-edit'])('%s has no resource.k8s.io rule (DRA is off by default in 1.33)', (name) => {
    const role = named(policy.clusterRoles, name);
    expect(role).toBeDefined();
    expect(rulesOf(role).filter((r) => r.apiGroups?.includes('resource.k8s.io'))).toEqual([]);
  });

  it('has no controller roles of DRA controllers, and the 1.33 ones it does have', () => {
    const names = policy.clusterRoles.map((o) => (o.metadata as { name: string }).name);
    expect(names).not.toContain('system:controller:resource-claim-controller');
    expect(names).not.toContain('system:controller:device-taint-eviction-controller');
    expect(names).toEqual(expect.arrayContaining(['system:controller:service-cidrs-controller', 'system:controller:selinux-warning-controller']));
  });
});

describe('what a server reconciles', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ storage: 'memory' });
  });
  afterAll(() => server?.close());

  it('serves the 1.33 leader-locking Role', async () => {
    const res = await call(server.url, '/apis/rbac.authorization.k8s.io/v1/namespaces/kube-system/roles/system::leader-locking-kube-scheduler', kubeconfigCredentials(server.kubeconfig));
    expect(res.status).toBe(200);
    expect(res.json<{ rules: Rule[] }>().rules.slice(0, 2)).toEqual([
      { apiGroups: [''], resources: ['configmaps'], verbs: ['watch'] },
      { apiGroups: [''], resources: ['configmaps'], resourceNames: ['kube-scheduler'], verbs: ['get', 'update'] },
    ]);
  });
});
