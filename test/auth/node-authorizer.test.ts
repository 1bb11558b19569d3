// The Node authorizer's decisions on a graph built from objects, in the manner of kube's
// node_authorizer_test.go: each row is a user, a request, the decision and kube's reason.

import { describe, expect, it } from 'vitest';
import { attributesFor, type Attributes } from '../../runtime/auth/authorizer.js';
import { Graph } from '../../runtime/auth/node/graph.js';
import { NodeAuthorizer, nodeIdentity } from '../../runtime/auth/node/authorizer.js';
import { nodeNameEdges, persistentVolumeEdges, podEdges } from '../../runtime/auth/node/references.js';
import { newUserInfo, type UserInfo } from '../../runtime/auth/user.js';
import { loadBootstrapPolicy } from '../../runtime/api/bootstrap-policy.js';
import type { PolicyRule } from '../../runtime/auth/rbac/rules.js';
import type { KubeObject } from '../../runtime/machinery/object.js';
import { newRequestInfo } from '../../runtime/machinery/request-info.js';

const node = (name: string, groups = ['system:nodes', 'system:authenticated']): UserInfo => newUserInfo(`system:node:${name}`, { groups });
const node0 = node('node0');
const node1 = node('node1');

const nodeRules = loadBootstrapPolicy().clusterRoles.find((r) => r.metadata?.name === 'system:node')!.rules as PolicyRule[];

function pod(namespace: string, name: string, nodeName: string, spec: Record<string, unknown> = {}, extra: Partial<KubeObject> = {}): KubeObject {
  return { metadata: { namespace, name, ...(extra.metadata ?? {}) }, spec: { nodeName, containers: [{ name: 'c', image: 'i' }], ...spec }, status: extra.status ?? {} };
}

function buildGraph(): Graph {
  const g = new Graph();
  const add = (type: 'pod' | 'pv' | 'volumeattachment' | 'resourceslice', obj: KubeObject, edges = type === 'pod' ? podEdges(obj) : type === 'pv' ? persistentVolumeEdges(obj) : nodeNameEdges(type, obj)) =>
    g.setEdges({ type, namespace: String(obj.metadata?.namespace ?? ''), name: String(obj.metadata?.name) }, edges);
  add(
    'pod',
    pod('ns0', 'pod0', 'node0', {
      serviceAccountName: 'sa0',
      imagePullSecrets: [{ name: 'pull0' }],
      containers: [{ name: 'c', image: 'i', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'env-secret0', key: 'k' } } }], envFrom: [{ configMapRef: { name: 'envfrom-cm0' } }] }],
      volumes: [
        { name: 'v1', secret: { secretName: 'vol-secret0' } },
        { name: 'v2', configMap: { name: 'vol-cm0' } },
        { name: 'v3', persistentVolumeClaim: { claimName: 'pvc0' } },
        { name: 'v4', projected: { sources: [{ secret: { name: 'proj-secret0' } }, { configMap: { name: 'proj-cm0' } }] } },
        { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
        { name: 'v5', csi: { driver: 'd', nodePublishSecretRef: { name: 'csi-secret0' } } },
      ],
      resourceClaims: [{ name: 'gpu', resourceClaimName: 'claim0' }, { name: 'tpl', resourceClaimTemplateName: 't' }],
    }, { status: { resourceClaimStatuses: [{ name: 'tpl', resourceClaimName: 'pod0-tpl-abc' }] } }),
  );
  add('pod', pod('ns1', 'pod1', 'node1', { volumes: [{ name: 'v', secret: { secretName: 'secret1' } }] }));
  // Not yet scheduled: references nothing for any node.
  add('pod', pod('ns0', 'pending', '', { volumes: [{ name: 'v', secret: { secretName: 'pending-secret' } }] }));
  // A mirror pod brings only its node edge, whatever it names.
  add('pod', pod('ns0', 'mirror', 'node0', { volumes: [{ name: 'v', secret: { secretName: 'mirror-secret' } }] }, { metadata: { annotations: { 'kubernetes.io/config.mirror': 'x' } } }));
  add('pv', { metadata: { name: 'pv0' }, spec: { claimRef: { namespace: 'ns0', name: 'pvc0' }, csi: { driver: 'd', volumeHandle: 'h', nodeStageSecretRef: { namespace: 'kube-system', name: 'pv-secret0' } } } });
  // The controller's secrets of a CSI volume are never the kubelet's.
  add('pv', {
    metadata: { name: 'pv-csi' },
    spec: {
      claimRef: { namespace: 'ns0', name: 'pvc0' },
      csi: {
        driver: 'd',
        volumeHandle: 'h',
        controllerPublishSecretRef: { namespace: 'kube-system', name: 'controller-publish' },
        controllerExpandSecretRef: { namespace: 'kube-system', name: 'controller-expand' },
        nodePublishSecretRef: { namespace: 'kube-system', name: 'node-publish' },
        nodeExpandSecretRef: { namespace: 'kube-system', name: 'node-expand' },
      },
    },
  });
  // A secret reference without a namespace is read from the bound claim's.
  add('pv', { metadata: { name: 'pv-rbd' }, spec: { claimRef: { namespace: 'ns0', name: 'pvc0' }, rbd: { monitors: ['m'], image: 'i', secretRef: { name: 'rbd-secret' } } } });
  add('pv', { metadata: { name: 'unbound' }, spec: { csi: { driver: 'd', volumeHandle: 'h', nodeStageSecretRef: { namespace: 'kube-system', name: 'pv-unbound-secret' } } } });
  add('volumeattachment', { metadata: { name: 'va0' }, spec: { nodeName: 'node0' } });
  add('resourceslice', { metadata: { name: 'slice0' }, spec: { nodeName: 'node0' } });
  return g;
}

const authorizer = new NodeAuthorizer(buildGraph(), { rules: nodeRules, withSelectors: true });
const request = (user: UserInfo, method: string, url: string): Attributes => {
  const a = attributesFor(user, newRequestInfo(method, url));
  const selector = new URL(url, 'https://x').searchParams.get('fieldSelector');
  if (selector !== null) a.fieldSelector = selector;
  return a;
};

const NO_RELATION = (n: string) => `no relationship found between node '${n}' and this object`;

describe('node identity', () => {
  it.each([
    ['system:node:node0', ['system:nodes'], 'node0'],
    ['system:node:', ['system:nodes'], ''],
    ['system:node:a/b', ['system:nodes'], 'a/b'],
    ['system:node:node0', ['system:authenticated'], undefined],
    ['node0', ['system:nodes'], undefined],
    ['system:nodes', ['system:nodes'], undefined],
  ])('%s in %j is %j', (name, groups, expected) => {
    expect(nodeIdentity(newUserInfo(name, { groups }))).toBe(expected);
  });
});

describe('node authorizer decisions', () => {
  it.each<[string, UserInfo, string, string, 'allow' | 'noOpinion', string]>([
    // Objects the node's pods reference.
    ['pull secret', node0, 'GET', '/api/v1/namespaces/ns0/secrets/pull0', 'allow', ''],
    ['env secret', node0, 'GET', '/api/v1/namespaces/ns0/secrets/env-secret0', 'allow', ''],
    ['volume secret', node0, 'GET', '/api/v1/namespaces/ns0/secrets/vol-secret0', 'allow', ''],
    ['projected secret', node0, 'GET', '/api/v1/namespaces/ns0/secrets/proj-secret0', 'allow', ''],
    ['csi secret', node0, 'GET', '/api/v1/namespaces/ns0/secrets/csi-secret0', 'allow', ''],
    ['watch a secret by name', node0, 'GET', '/api/v1/namespaces/ns0/secrets?watch=1&fieldSelector=metadata.name%3Dvol-secret0', 'allow', ''],
    ['envFrom configmap', node0, 'GET', '/api/v1/namespaces/ns0/configmaps/envfrom-cm0', 'allow', ''],
    ['volume configmap', node0, 'GET', '/api/v1/namespaces/ns0/configmaps/vol-cm0', 'allow', ''],
    ['projected configmap', node0, 'GET', '/api/v1/namespaces/ns0/configmaps/proj-cm0', 'allow', ''],
    ['claim', node0, 'GET', '/api/v1/namespaces/ns0/persistentvolumeclaims/pvc0', 'allow', ''],
    ['ephemeral claim', node0, 'GET', '/api/v1/namespaces/ns0/persistentvolumeclaims/pod0-scratch', 'allow', ''],
    ['claim status update', node0, 'PATCH', '/api/v1/namespaces/ns0/persistentvolumeclaims/pvc0/status', 'allow', ''],
    ['bound volume', node0, 'GET', '/api/v1/persistentvolumes/pv0', 'allow', ''],
    ["bound volume's secret", node0, 'GET', '/api/v1/namespaces/kube-system/secrets/pv-secret0', 'allow', ''],
    ['resource claim', node0, 'GET', '/apis/resource.k8s.io/v1beta2/namespaces/ns0/resourceclaims/claim0', 'allow', ''],
    ['resource claim from a template', node0, 'GET', '/apis/resource.k8s.io/v1beta2/namespaces/ns0/resourceclaims/pod0-tpl-abc', 'allow', ''],
    ['volume attachment', node0, 'GET', '/apis/storage.k8s.io/v1/volumeattachments/va0', 'allow', ''],
    ['token of a pod service account', node0, 'POST', '/api/v1/namespaces/ns0/serviceaccounts/sa0/token', 'allow', ''],
    ['own pod', node0, 'GET', '/api/v1/namespaces/ns0/pods/pod0', 'allow', ''],
    // Objects of other nodes' pods, or of none.
    ["another node's secret", node0, 'GET', '/api/v1/namespaces/ns1/secrets/secret1', 'noOpinion', NO_RELATION('node0')],
    ['the same secret for its node', node1, 'GET', '/api/v1/namespaces/ns1/secrets/secret1', 'allow', ''],
    ['an unknown secret', node0, 'GET', '/api/v1/namespaces/ns0/secrets/nope', 'noOpinion', NO_RELATION('node0')],
    ['a secret of an unscheduled pod', node0, 'GET', '/api/v1/namespaces/ns0/secrets/pending-secret', 'noOpinion', NO_RELATION('node0')],
    ['a secret a mirror pod names', node0, 'GET', '/api/v1/namespaces/ns0/secrets/mirror-secret', 'noOpinion', NO_RELATION('node0')],
    ["a CSI volume's node publish secret", node0, 'GET', '/api/v1/namespaces/kube-system/secrets/node-publish', 'allow', ''],
    ["a CSI volume's node expand secret", node0, 'GET', '/api/v1/namespaces/kube-system/secrets/node-expand', 'allow', ''],
    ["a CSI volume's controller publish secret", node0, 'GET', '/api/v1/namespaces/kube-system/secrets/controller-publish', 'noOpinion', NO_RELATION('node0')],
    ["a CSI volume's controller expand secret", node0, 'GET', '/api/v1/namespaces/kube-system/secrets/controller-expand', 'noOpinion', NO_RELATION('node0')],
    ["an RBD volume's secret, in the claim's namespace", node0, 'GET', '/api/v1/namespaces/ns0/secrets/rbd-secret', 'allow', ''],
    ["an RBD volume's secret, not in default", node0, 'GET', '/api/v1/namespaces/default/secrets/rbd-secret', 'noOpinion', NO_RELATION('node0')],
    ["an unbound volume's secret", node0, 'GET', '/api/v1/namespaces/kube-system/secrets/pv-unbound-secret', 'noOpinion', NO_RELATION('node0')],
    ['the right name in the wrong namespace', node0, 'GET', '/api/v1/namespaces/ns1/secrets/pull0', 'noOpinion', NO_RELATION('node0')],
    ['a node with no pods', node('node9'), 'GET', '/api/v1/namespaces/ns0/secrets/pull0', 'noOpinion', NO_RELATION('node9')],
    ["another node's volume attachment", node1, 'GET', '/apis/storage.k8s.io/v1/volumeattachments/va0', 'noOpinion', NO_RELATION('node1')],
    ['token of another service account', node0, 'POST', '/api/v1/namespaces/ns0/serviceaccounts/default/token', 'noOpinion', NO_RELATION('node0')],
    // Verbs and shapes the node never gets on these kinds.
    ['list secrets', node0, 'GET', '/api/v1/namespaces/ns0/secrets', 'noOpinion', 'No Object name found'],
    ['list secrets across namespaces', node0, 'GET', '/api/v1/secrets', 'noOpinion', 'can only read namespaced object of this type'],
    ['update a referenced secret', node0, 'PUT', '/api/v1/namespaces/ns0/secrets/pull0', 'noOpinion', 'can only read resources of this type'],
    ['delete a referenced configmap', node0, 'DELETE', '/api/v1/namespaces/ns0/configmaps/vol-cm0', 'noOpinion', 'can only read resources of this type'],
    ['list claims', node0, 'GET', '/api/v1/namespaces/ns0/persistentvolumeclaims', 'noOpinion', 'can only get individual resources of this type'],
    ['claim status get', node0, 'GET', '/api/v1/namespaces/ns0/persistentvolumeclaims/pvc0/status', 'noOpinion', 'can only get/update/patch this type'],
    ['update a claim', node0, 'PUT', '/api/v1/namespaces/ns0/persistentvolumeclaims/pvc0', 'noOpinion', 'can only get individual resources of this type'],
    ['get a service account', node0, 'GET', '/api/v1/namespaces/ns0/serviceaccounts/sa0', 'noOpinion', 'can only create tokens for individual service accounts'],
    // Node, pods, leases, CSINode, slices.
    ['own Node', node0, 'GET', '/api/v1/nodes/node0', 'allow', ''],
    ['own Node before it exists, by watch', node('new'), 'GET', '/api/v1/nodes?watch=1&fieldSelector=metadata.name%3Dnew', 'allow', ''],
    ['another Node', node0, 'GET', '/api/v1/nodes/node1', 'noOpinion', "node 'node0' cannot read 'node1', only its own Node object"],
    ['all Nodes', node0, 'GET', '/api/v1/nodes', 'noOpinion', "node 'node0' cannot read all nodes, only its own Node object"],
    ['create a Node', node0, 'POST', '/api/v1/nodes', 'allow', ''],
    ['Node status', node0, 'PATCH', '/api/v1/nodes/node1/status', 'allow', ''],
    ['delete a Node', node0, 'DELETE', '/api/v1/nodes/node0', 'noOpinion', ''],
    ['own pods by field selector', node0, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode0', 'allow', ''],
    ['own pods by == selector', node0, 'GET', '/api/v1/pods?watch=true&fieldSelector=spec.nodeName%3D%3Dnode0', 'allow', ''],
    ["another node's pods", node0, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode1', 'noOpinion', 'can only list/watch pods with spec.nodeName field selector'],
    ['pods but not by node', node0, 'GET', '/api/v1/pods?fieldSelector=spec.nodeName!%3Dnode0', 'noOpinion', 'can only list/watch pods with spec.nodeName field selector'],
    ['all pods', node0, 'GET', '/api/v1/pods', 'noOpinion', 'can only list/watch pods with spec.nodeName field selector'],
    ["another node's pod", node0, 'GET', '/api/v1/namespaces/ns1/pods/pod1', 'noOpinion', NO_RELATION('node0')],
    ['mirror pod create', node0, 'POST', '/api/v1/namespaces/ns0/pods', 'allow', ''],
    ['pod status', node0, 'PUT', '/api/v1/namespaces/ns1/pods/pod1/status', 'allow', ''],
    ['eviction', node0, 'POST', '/api/v1/namespaces/ns0/pods/pod0/eviction', 'allow', ''],
    ['pod update', node0, 'PUT', '/api/v1/namespaces/ns0/pods/pod0', 'noOpinion', ''],
    ['own lease', node0, 'PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node0', 'allow', ''],
    ["another node's lease", node0, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/node1', 'noOpinion', 'can only access node lease with the same name as the requesting node'],
    ['lease elsewhere', node0, 'GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases/node0', 'noOpinion', 'can only access leases in the "kube-node-lease" system namespace'],
    ['list leases', node0, 'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases', 'noOpinion', 'can only get, create, update, patch, or delete a node lease'],
    ['own CSINode', node0, 'PUT', '/apis/storage.k8s.io/v1/csinodes/node0', 'allow', ''],
    ["another node's CSINode", node0, 'DELETE', '/apis/storage.k8s.io/v1/csinodes/node1', 'noOpinion', 'can only access CSINode with the same name as the requesting node'],
    ['own slice', node0, 'GET', '/apis/resource.k8s.io/v1beta2/resourceslices/slice0', 'allow', ''],
    ["another node's slice", node1, 'DELETE', '/apis/resource.k8s.io/v1beta2/resourceslices/slice0', 'noOpinion', NO_RELATION('node1')],
    ['own slices listed', node0, 'GET', '/apis/resource.k8s.io/v1beta2/resourceslices?fieldSelector=spec.nodeName%3Dnode0', 'allow', ''],
    ['all slices listed', node0, 'GET', '/apis/resource.k8s.io/v1beta2/resourceslices', 'noOpinion', 'can only list/watch/deletecollection resourceslices with nodeName field selector'],
    // The fixed node rules, and what is not a node's at all.
    ['services', node0, 'GET', '/api/v1/services', 'allow', ''],
    ['events', node0, 'POST', '/api/v1/namespaces/ns0/events', 'allow', ''],
    ['token reviews', node0, 'POST', '/apis/authentication.k8s.io/v1/tokenreviews', 'allow', ''],
    ['namespaces', node0, 'GET', '/api/v1/namespaces', 'noOpinion', ''],
    ['roles', node0, 'GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles', 'noOpinion', ''],
    ['a path', node0, 'GET', '/metrics', 'noOpinion', ''],
    // Users that are not nodes get no opinion and no reason; a node of no name is told so.
    ['a node name without the group', node('node0', ['system:authenticated']), 'GET', '/api/v1/namespaces/ns0/secrets/pull0', 'noOpinion', ''],
    ['a plain user', newUserInfo('bob', { groups: ['system:nodes'] }), 'GET', '/api/v1/namespaces/ns0/secrets/pull0', 'noOpinion', ''],
    ['a node of no name', node(''), 'GET', '/api/v1/namespaces/ns0/secrets/pull0', 'noOpinion', 'unknown node for user "system:node:"'],
  ])('%s', (_, user, method, url, decision, reason) => {
    const result = authorizer.authorize(request(user, method, url));
    expect(result).toEqual({ decision, reason });
  });

  it('without AuthorizeNodeWithSelectors, Nodes and pods fall back to the node rules', () => {
    const broad = new NodeAuthorizer(buildGraph(), { rules: nodeRules, withSelectors: false });
    expect(broad.authorize(request(node0, 'GET', '/api/v1/nodes')).decision).toBe('allow');
    expect(broad.authorize(request(node0, 'GET', '/api/v1/pods')).decision).toBe('allow');
    expect(broad.authorize(request(node0, 'DELETE', '/api/v1/nodes/node1')).decision).toBe('noOpinion');
  });

  it('says it cannot list a node\'s rules, and lists nothing for others', () => {
    expect(authorizer.rulesFor(node0)).toMatchObject({ incomplete: true, evaluationError: 'node authorizer does not support user rule resolution' });
    expect(authorizer.rulesFor(newUserInfo('bob'))).toEqual({ resourceRules: [], nonResourceRules: [], incomplete: false });
  });
});

describe('node graph bookkeeping', () => {
  it('replaces a pod\'s edges on update and removes them, and its orphaned vertices, on delete', () => {
    const g = new Graph();
    const owner = { type: 'pod' as const, namespace: 'ns', name: 'p' };
    g.setEdges(owner, podEdges(pod('ns', 'p', 'n1', { volumes: [{ name: 'v', secret: { secretName: 's1' } }] })));
    expect(g.hasPath('secret', 'ns', 's1', 'n1')).toBe(true);
    // Rescheduled elsewhere (a new pod of the same name) with another secret.
    g.setEdges(owner, podEdges(pod('ns', 'p', 'n2', { volumes: [{ name: 'v', secret: { secretName: 's2' } }] })));
    expect(g.hasPath('secret', 'ns', 's1', 'n1')).toBe(false);
    expect(g.has('secret', 'ns', 's1')).toBe(false);
    expect(g.hasPath('secret', 'ns', 's2', 'n2')).toBe(true);
    g.setEdges(owner, []);
    expect(g.size()).toEqual({ vertices: 0, edges: 0 });
  });

  it('keeps a secret two pods share until the last of them goes', () => {
    const g = new Graph();
    const spec = { volumes: [{ name: 'v', secret: { secretName: 'shared' } }] };
    g.setEdges({ type: 'pod', namespace: 'ns', name: 'a' }, podEdges(pod('ns', 'a', 'n1', spec)));
    g.setEdges({ type: 'pod', namespace: 'ns', name: 'b' }, podEdges(pod('ns', 'b', 'n1', spec)));
    g.setEdges({ type: 'pod', namespace: 'ns', name: 'a' }, []);
    expect(g.hasPath('secret', 'ns', 'shared', 'n1')).toBe(true);
    g.setEdges({ type: 'pod', namespace: 'ns', name: 'b' }, []);
    expect(g.hasPath('secret', 'ns', 'shared', 'n1')).toBe(false);
  });

  it('cannot be fooled by names that look like keys', () => {
    const g = new Graph();
    g.setEdges({ type: 'pod', namespace: 'ns', name: 'p' }, podEdges(pod('ns', 'p', 'n1', { volumes: [{ name: 'v', secret: { secretName: 'a","b' } }] })));
    expect(g.hasPath('secret', 'ns', 'a","b', 'n1')).toBe(true);
    expect(g.hasPath('secret', 'ns","a', 'b', 'n1')).toBe(false);
    expect(g.hasPath('secret', 'ns', 'a', 'n1')).toBe(false);
  });

  it('clears one kind\'s owners on a relist', () => {
    const g = new Graph();
    g.setEdges({ type: 'pod', namespace: 'ns', name: 'p' }, podEdges(pod('ns', 'p', 'n1', { volumes: [{ name: 'v', secret: { secretName: 's' } }] })));
    g.setEdges({ type: 'volumeattachment', namespace: '', name: 'va' }, nodeNameEdges('volumeattachment', { metadata: { name: 'va' }, spec: { nodeName: 'n1' } }));
    g.clearOwners('pod');
    expect(g.hasPath('secret', 'ns', 's', 'n1')).toBe(false);
    expect(g.hasPath('volumeattachment', '', 'va', 'n1')).toBe(true);
  });
});
