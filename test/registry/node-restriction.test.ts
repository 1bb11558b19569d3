// NodeRestriction rule by rule against kube 1.33's plugin/pkg/admission/noderestriction
// (admission.go and its admission_test.go): for each kind a node writes, which writes pass and
// the exact refusal of the others. test/e2e/node-restriction.test.ts drives the same plugin over
// HTTPS with kubelet certificates and checks nothing refused is stored.

import { describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { newUserInfo, type UserInfo } from '../../runtime/auth/user.js';
import { isStatusError } from '../../runtime/errors/status-error.js';
import type { AdmissionAttributes, AdmissionOperation } from '../../runtime/registry/admission/admission.js';
import { nodeRestriction, nodeTokenRequestRefusal, type AudienceRestriction } from '../../runtime/registry/admission/node-restriction.js';
import type { Attributes } from '../../runtime/auth/authorizer.js';
import type { ResourceDefinition } from '../../runtime/registry/definition.js';
import type { KubeObject } from '../../runtime/machinery/object.js';

type Obj = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON objects of several shapes

const def = (kind: string): ResourceDefinition => resources.find((r) => r.kind === kind && (kind !== 'Node' || r.group === ''))!;
const podDef = def('Pod');
const nodeDef = def('Node');
const claimDef = def('PersistentVolumeClaim');
const csiNodeDef = def('CSINode');
const sliceDef = def('ResourceSlice');
const configMapDef = def('ConfigMap');
// coordination.k8s.io/v1 is not served here yet; the rule is kube's for when it is.
const leaseDef = { ...configMapDef, group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases' } as ResourceDefinition;

const NODE_UID = '0b6f1c3e-5a8e-4a57-9d55-7d5fbd36b1a1';
const kubelet = (name: string): UserInfo => newUserInfo(`system:node:${name}`, { groups: ['system:nodes', 'system:authenticated'] });
const n1 = kubelet('n1');

const getNode = async (name: string) => (name === 'n1' ? { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: NODE_UID } } : undefined);
const gatesOn = new Set(['RecoverVolumeExpansionFailure']);
const plugin = nodeRestriction({ getNode, featureEnabled: (gate) => gatesOn.has(gate) });
const withoutExpansionRecovery = nodeRestriction({ getNode, featureEnabled: () => false });

interface Write {
  operation: AdmissionOperation;
  definition: ResourceDefinition;
  object: Obj;
  oldObject?: Obj;
  subresource?: string;
  namespace?: string;
  user?: UserInfo;
}

/** kube's answer to the write: undefined when admitted, else the refusal's code and message. */
async function answer(w: Write, admission = plugin): Promise<{ code: number; message: string } | undefined> {
  const a: AdmissionAttributes = {
    operation: w.operation,
    definition: w.definition,
    subresource: w.subresource ?? '',
    namespace: w.namespace ?? (w.definition.namespaced ? 'ns' : ''),
    object: w.object as KubeObject,
    oldObject: w.oldObject as KubeObject | undefined,
    dryRun: false,
    user: w.user ?? n1,
  };
  if (!admission.handles(a)) return undefined;
  try {
    if (w.operation === 'DELETE') await admission.validateDelete!(a);
    else await admission.admit!(a);
  } catch (err) {
    if (!isStatusError(err)) throw err;
    return { code: err.code, message: err.message };
  }
  return undefined;
}

const forbidden = (message: string) => ({ code: 403, message });

const mirrorPod = (meta: Obj = {}, spec: Obj = {}): Obj => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'static',
    namespace: 'ns',
    annotations: { 'kubernetes.io/config.mirror': 'hash' },
    ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: NODE_UID, controller: true }],
    ...meta,
  },
  spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'i' }], ...spec },
});
const owner = (extra: Obj) => ({ ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n1', uid: NODE_UID, controller: true, ...extra }] });
const boundPod = (nodeName: string, extra: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns', labels: { app: 'a' } }, spec: { nodeName, containers: [{ name: 'c', image: 'i' }] }, ...extra });
const node = (name: string, extra: Obj = {}, spec: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'Node', metadata: { name, ...extra }, spec });
const claim = (status: Obj, meta: Obj = {}): Obj => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'c', namespace: 'ns', resourceVersion: '5', ...meta }, spec: { accessModes: ['ReadWriteOnce'] }, status });
const lease = (name: string, namespace = 'kube-node-lease'): Obj => ({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace } });
const slice = (nodeName: string): Obj => ({ apiVersion: 'resource.k8s.io/v1beta2', kind: 'ResourceSlice', metadata: { name: 'slice' }, spec: { driver: 'd', nodeName, pool: { name: 'p', resourceSliceCount: 1 } } });

describe('NodeRestriction: who it looks at', () => {
  it.each<[string, UserInfo, unknown]>([
    ['a user who is no node', newUserInfo('alice', { groups: ['system:authenticated'] }), undefined],
    ['a node name without system:nodes', newUserInfo('system:node:n1', { groups: ['system:authenticated'] }), undefined],
    ['a node of no name', kubelet(''), forbidden('nodes "n2" is forbidden: could not determine node from user "system:node:"')],
  ])('%s', async (_, user, expected) => {
    expect(await answer({ operation: 'CREATE', definition: nodeDef, object: node('n2'), user })).toEqual(expected);
  });
});

describe('NodeRestriction: pods', () => {
  it.each<[string, Write, unknown]>([
    ['a mirror pod of its own', { operation: 'CREATE', definition: podDef, object: mirrorPod() }, undefined],
    ['a mirror pod with resource claims (kube has no rule for them)', { operation: 'CREATE', definition: podDef, object: mirrorPod({}, { resourceClaims: [{ name: 'gpu', resourceClaimName: 'c' }] }) }, undefined],
    [
      'a pod that is no mirror pod',
      { operation: 'CREATE', definition: podDef, object: mirrorPod({ annotations: {} }) },
      forbidden('pods "static" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods'),
    ],
    ['a mirror pod bound elsewhere', { operation: 'CREATE', definition: podDef, object: mirrorPod({}, { nodeName: 'n2' }) }, forbidden('pods "static" is forbidden: node "n1" can only create pods with spec.nodeName set to itself')],
    [
      'two owners',
      { operation: 'CREATE', definition: podDef, object: mirrorPod({ ownerReferences: [owner({}).ownerReferences[0], { apiVersion: 'v1', kind: 'Node', name: 'n1', uid: 'x' }] }) },
      forbidden('pods "static" is forbidden: node "n1" can only create pods with a single owner reference set to itself'),
    ],
    ['no owner', { operation: 'CREATE', definition: podDef, object: mirrorPod({ ownerReferences: [] }) }, forbidden('pods "static" is forbidden: node "n1" can only create pods with an owner reference set to itself')],
    ['an owner of another kind', { operation: 'CREATE', definition: podDef, object: mirrorPod(owner({ kind: 'Pod' })) }, forbidden('pods "static" is forbidden: node "n1" can only create pods with an owner reference set to itself')],
    ['another node as owner', { operation: 'CREATE', definition: podDef, object: mirrorPod(owner({ name: 'n2' })) }, forbidden('pods "static" is forbidden: node "n1" can only create pods with an owner reference set to itself')],
    ['an owner that is no controller', { operation: 'CREATE', definition: podDef, object: mirrorPod(owner({ controller: false })) }, forbidden('pods "static" is forbidden: node "n1" can only create pods with a controller owner reference set to itself')],
    ['an owner blocking deletion', { operation: 'CREATE', definition: podDef, object: mirrorPod(owner({ blockOwnerDeletion: true })) }, forbidden('pods "static" is forbidden: node "n1" must not set blockOwnerDeletion on an owner reference')],
    ['a stale node uid', { operation: 'CREATE', definition: podDef, object: mirrorPod(owner({ uid: 'old' })) }, forbidden(`pods "static" is forbidden: node n1 UID mismatch: expected old got ${NODE_UID}`)],
    [
      'a node that is not stored: the lookup\'s NotFound',
      { operation: 'CREATE', definition: podDef, user: kubelet('n9'), object: mirrorPod({ ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: 'n9', uid: 'u', controller: true }] }, { nodeName: 'n9' }) },
      { code: 404, message: 'nodes "n9" not found' },
    ],
    ['a service account', { operation: 'CREATE', definition: podDef, object: mirrorPod({}, { serviceAccountName: 'default' }) }, forbidden('pods "static" is forbidden: node "n1" can not create pods that reference a service account')],
    ['an image pull secret', { operation: 'CREATE', definition: podDef, object: mirrorPod({}, { imagePullSecrets: [{ name: 's' }] }) }, forbidden('pods "static" is forbidden: node "n1" can not create pods that reference secrets')],
    [
      'a configmap in an init container\'s env',
      { operation: 'CREATE', definition: podDef, object: mirrorPod({}, { initContainers: [{ name: 'i', image: 'i', env: [{ name: 'E', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } }] }] }) },
      forbidden('pods "static" is forbidden: node "n1" can not create pods that reference configmaps'),
    ],
    [
      'a cluster trust bundle',
      { operation: 'CREATE', definition: podDef, object: mirrorPod({}, { volumes: [{ name: 'v', projected: { sources: [{ clusterTrustBundle: { name: 'b', path: 'ca.crt' } }] } }] }) },
      forbidden('pods "static" is forbidden: node "n1" can not create pods that reference clustertrustbundles'),
    ],
    [
      'a claim',
      { operation: 'CREATE', definition: podDef, object: mirrorPod({}, { volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'c' } }] }) },
      forbidden('pods "static" is forbidden: node "n1" can not create pods that reference persistentvolumeclaims'),
    ],
    [
      'an update of a pod',
      { operation: 'UPDATE', definition: podDef, object: boundPod('n1'), oldObject: boundPod('n1') },
      forbidden('pods "p" is forbidden: unexpected operation "UPDATE", node "n1" can only create and delete mirror pods'),
    ],
    ['the delete of its own pod', { operation: 'DELETE', definition: podDef, object: boundPod('n1') }, undefined],
    ["the delete of another node's pod", { operation: 'DELETE', definition: podDef, object: boundPod('n2') }, forbidden('pods "p" is forbidden: node "n1" can only delete pods with spec.nodeName set to itself')],
    ['the status of its own pod', { operation: 'UPDATE', definition: podDef, subresource: 'status', object: boundPod('n1', { status: { phase: 'Running' } }), oldObject: boundPod('n1') }, undefined],
    [
      "the status of another node's pod",
      { operation: 'UPDATE', definition: podDef, subresource: 'status', object: boundPod('n1'), oldObject: boundPod('n2') },
      forbidden('pods "p" is forbidden: node "n1" can only update pod status for pods with spec.nodeName set to itself'),
    ],
    [
      'labels through pod status',
      { operation: 'UPDATE', definition: podDef, subresource: 'status', object: { ...boundPod('n1'), metadata: { name: 'p', namespace: 'ns', labels: { app: 'b' } } }, oldObject: boundPod('n1') },
      forbidden('pods "p" is forbidden: node "n1" cannot update labels through pod status'),
    ],
    [
      'resource claim statuses through pod status',
      { operation: 'UPDATE', definition: podDef, subresource: 'status', object: boundPod('n1', { status: { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'other' }] } }), oldObject: boundPod('n1', { status: { resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'mine' }] } }) },
      forbidden('pods "p" is forbidden: node "n1" cannot update resource claim statues'),
    ],
    [
      'another pod subresource',
      { operation: 'UPDATE', definition: podDef, subresource: 'ephemeralcontainers', object: boundPod('n1'), oldObject: boundPod('n1') },
      forbidden('pods "p" is forbidden: unexpected pod subresource "ephemeralcontainers", only \'status\' and \'eviction\' are allowed'),
    ],
  ])('%s', async (_, write, expected) => {
    expect(await answer(write)).toEqual(expected);
  });
});

describe('NodeRestriction: nodes', () => {
  const forbiddenLabels = { 'node-restriction.kubernetes.io/foo': 'x', 'foo.node-restriction.kubernetes.io/foo': 'x', 'other.kubernetes.io/foo': 'x', 'other.k8s.io/foo': 'x' };
  const kubeletLabels = {
    'kubernetes.io/hostname': 'n1',
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'node.kubernetes.io/instance-type': 'big',
    'topology.kubernetes.io/zone': 'z',
    'topology.kubernetes.io/region': 'r',
    'beta.kubernetes.io/instance-type': 'big',
    'failure-domain.beta.kubernetes.io/zone': 'z',
    'kubelet.kubernetes.io/anything': 'x',
    'sub.node.kubernetes.io/anything': 'x',
    'example.com/any': 'x',
    unprefixed: 'x',
  };
  const taint = (value: string) => ({ taints: [{ key: 'k', value, effect: 'NoSchedule' }] });

  it.each<[string, Write, unknown]>([
    ['its own Node with the kubelet\'s labels', { operation: 'CREATE', definition: nodeDef, object: node('n1', { labels: kubeletLabels }) }, undefined],
    ['another Node', { operation: 'CREATE', definition: nodeDef, object: node('n2') }, forbidden('nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"')],
    [
      'its own Node with a configSource',
      { operation: 'CREATE', definition: nodeDef, object: node('n1', {}, { configSource: { configMap: { name: 'c', namespace: 'ns', kubeletConfigKey: 'k' } } }) },
      forbidden('nodes "n1" is forbidden: node "n1" is not allowed to create pods with a non-nil configSource'),
    ],
    [
      'its own Node with labels it may not give itself, listed sorted',
      { operation: 'CREATE', definition: nodeDef, object: node('n1', { labels: { ...forbiddenLabels, 'kubernetes.io/hostname': 'n1' } }) },
      forbidden('nodes "n1" is forbidden: node "n1" is not allowed to set the following labels: foo.node-restriction.kubernetes.io/foo, node-restriction.kubernetes.io/foo, other.k8s.io/foo, other.kubernetes.io/foo'),
    ],
    ['a taint added', { operation: 'UPDATE', definition: nodeDef, object: node('n1', {}, taint('a')), oldObject: node('n1') }, forbidden('nodes "n1" is forbidden: node "n1" is not allowed to modify taints')],
    ['a taint removed', { operation: 'UPDATE', definition: nodeDef, object: node('n1'), oldObject: node('n1', {}, taint('a')) }, forbidden('nodes "n1" is forbidden: node "n1" is not allowed to modify taints')],
    ['a taint changed', { operation: 'UPDATE', definition: nodeDef, object: node('n1', {}, taint('b')), oldObject: node('n1', {}, taint('a')) }, forbidden('nodes "n1" is forbidden: node "n1" is not allowed to modify taints')],
    ['taints kept', { operation: 'UPDATE', definition: nodeDef, object: node('n1', { labels: kubeletLabels }, taint('a')), oldObject: node('n1', {}, taint('a')) }, undefined],
    [
      'restricted labels added',
      { operation: 'UPDATE', definition: nodeDef, object: node('n1', { labels: forbiddenLabels }), oldObject: node('n1') },
      forbidden('nodes "n1" is forbidden: is not allowed to modify labels: foo.node-restriction.kubernetes.io/foo, node-restriction.kubernetes.io/foo, other.k8s.io/foo, other.kubernetes.io/foo'),
    ],
    [
      'restricted labels removed',
      { operation: 'UPDATE', definition: nodeDef, object: node('n1'), oldObject: node('n1', { labels: forbiddenLabels }) },
      forbidden('nodes "n1" is forbidden: is not allowed to modify labels: foo.node-restriction.kubernetes.io/foo, node-restriction.kubernetes.io/foo, other.k8s.io/foo, other.kubernetes.io/foo'),
    ],
    ['restricted labels kept as they were', { operation: 'UPDATE', definition: nodeDef, object: node('n1', { labels: { ...forbiddenLabels, a: 'b' } }), oldObject: node('n1', { labels: forbiddenLabels }) }, undefined],
    [
      'a new configSource',
      { operation: 'UPDATE', definition: nodeDef, object: node('n1', {}, { configSource: { configMap: { name: 'new' } } }), oldObject: node('n1', {}, { configSource: { configMap: { name: 'old' } } }) },
      forbidden('nodes "n1" is forbidden: node "n1" is not allowed to update configSource to a new non-nil configSource'),
    ],
    ['a configSource dropped (an old kubelet\'s status update)', { operation: 'UPDATE', definition: nodeDef, object: node('n1'), oldObject: node('n1', {}, { configSource: { configMap: { name: 'old' } } }) }, undefined],
    ["another Node's status", { operation: 'UPDATE', definition: nodeDef, subresource: 'status', object: node('n2'), oldObject: node('n2') }, forbidden('nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"')],
    ['its own Node deleted', { operation: 'DELETE', definition: nodeDef, object: node('n1') }, undefined],
    ['another Node deleted', { operation: 'DELETE', definition: nodeDef, object: node('n2') }, forbidden('nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"')],
  ])('%s', async (_, write, expected) => {
    expect(await answer(write)).toEqual(expected);
  });
});

describe('NodeRestriction: claims, leases, CSINodes, ResourceSlices', () => {
  const bound = { phase: 'Bound', capacity: { storage: '1Gi' } };
  it.each<[string, Write, unknown]>([
    [
      'claim status: capacity, conditions and the expansion state',
      {
        operation: 'UPDATE',
        definition: claimDef,
        subresource: 'status',
        object: claim({ ...bound, capacity: { storage: '2Gi' }, conditions: [{ type: 'Resizing', status: 'True' }], allocatedResources: { storage: '2Gi' }, allocatedResourceStatuses: { storage: 'NodeResizeInProgress' } }, { resourceVersion: '' }),
        oldObject: claim(bound),
      },
      undefined,
    ],
    [
      'claim status: the expansion state without RecoverVolumeExpansionFailure',
      { operation: 'UPDATE', definition: claimDef, subresource: 'status', object: claim({ ...bound, allocatedResources: { storage: '2Gi' } }), oldObject: claim(bound) },
      forbidden('persistentvolumeclaims "c" is forbidden: node "n1" is not allowed to update fields other than status.quantity and status.conditions'),
    ],
    [
      'claim status: the phase',
      { operation: 'UPDATE', definition: claimDef, subresource: 'status', object: claim({ ...bound, phase: 'Lost' }), oldObject: claim(bound) },
      forbidden('persistentvolumeclaims "c" is forbidden: node "n1" is not allowed to update fields other than status.quantity and status.conditions'),
    ],
    [
      'claim status: a label',
      { operation: 'UPDATE', definition: claimDef, subresource: 'status', object: claim(bound, { labels: { a: 'b' } }), oldObject: claim(bound) },
      forbidden('persistentvolumeclaims "c" is forbidden: node "n1" is not allowed to update fields other than status.quantity and status.conditions'),
    ],
    ['a claim itself', { operation: 'UPDATE', definition: claimDef, object: claim(bound), oldObject: claim(bound) }, forbidden('persistentvolumeclaims "c" is forbidden: may only update PVC status')],
    ['a claim deleted', { operation: 'DELETE', definition: claimDef, object: claim(bound) }, forbidden('persistentvolumeclaims "c" is forbidden: may only update PVC status')],
    ['its own lease', { operation: 'CREATE', definition: leaseDef, namespace: 'kube-node-lease', object: lease('n1') }, undefined],
    ['its own lease renewed', { operation: 'UPDATE', definition: leaseDef, namespace: 'kube-node-lease', object: lease('n1'), oldObject: lease('n1') }, undefined],
    ['a lease elsewhere', { operation: 'CREATE', definition: leaseDef, namespace: 'default', object: lease('n1', 'default') }, forbidden('leases.coordination.k8s.io "n1" is forbidden: can only access leases in the "kube-node-lease" system namespace')],
    ["another node's lease", { operation: 'CREATE', definition: leaseDef, namespace: 'kube-node-lease', object: lease('n2') }, forbidden('leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node')],
    ["another node's lease deleted", { operation: 'DELETE', definition: leaseDef, namespace: 'kube-node-lease', object: lease('n2') }, forbidden('leases.coordination.k8s.io "n2" is forbidden: can only access node lease with the same name as the requesting node')],
    ['its own CSINode', { operation: 'CREATE', definition: csiNodeDef, object: { metadata: { name: 'n1' }, spec: { drivers: [] } } }, undefined],
    ["another node's CSINode", { operation: 'CREATE', definition: csiNodeDef, object: { metadata: { name: 'n2' }, spec: { drivers: [] } } }, forbidden('csinodes.storage.k8s.io "n2" is forbidden: can only access CSINode with the same name as the requesting node')],
    ["another node's CSINode deleted", { operation: 'DELETE', definition: csiNodeDef, object: { metadata: { name: 'n2' }, spec: { drivers: [] } } }, forbidden('csinodes.storage.k8s.io "n2" is forbidden: can only access CSINode with the same name as the requesting node')],
    ['a slice of its node', { operation: 'CREATE', definition: sliceDef, object: slice('n1') }, undefined],
    ["a slice of another node", { operation: 'CREATE', definition: sliceDef, object: slice('n2') }, forbidden('resourceslices.resource.k8s.io "slice" is forbidden: can only create ResourceSlice with the same NodeName as the requesting node')],
    ["a slice of another node deleted", { operation: 'DELETE', definition: sliceDef, object: slice('n2') }, forbidden('resourceslices.resource.k8s.io "slice" is forbidden: can only delete ResourceSlice with the same NodeName as the requesting node')],
    ['a slice updated (the Node authorizer decides on the stored one)', { operation: 'UPDATE', definition: sliceDef, object: slice('n2'), oldObject: slice('n1') }, undefined],
  ])('%s', async (name, write, expected) => {
    expect(await answer(write, name.includes('without RecoverVolumeExpansionFailure') ? withoutExpansionRecovery : plugin)).toEqual(expected);
  });
});

describe('NodeRestriction: service account tokens (ServiceAccountNodeAudienceRestriction on, as in 1.33)', () => {
  const pod = (name: string, nodeName: string, volumes: Obj[]): KubeObject => ({ metadata: { name, namespace: 'ns', uid: `uid-${name}` }, spec: { nodeName, serviceAccountName: 'default', volumes } });
  const pods: Record<string, KubeObject> = {
    p: pod('p', 'n1', [
      { name: 'token', projected: { sources: [{ serviceAccountToken: { audience: 'vault', path: 't' } }] } },
      { name: 'inline', csi: { driver: 'inline.csi' } },
      { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
      { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
      { name: 'pending', persistentVolumeClaim: { claimName: 'unbound' } },
    ]),
    elsewhere: pod('elsewhere', 'n2', []),
    'no-driver': pod('no-driver', 'n1', [{ name: 'v', csi: { driver: 'nope.csi' } }]),
    'no-claim': pod('no-claim', 'n1', [{ name: 'v', persistentVolumeClaim: { claimName: 'gone' } }]),
    'no-volume': pod('no-volume', 'n1', [{ name: 'v', persistentVolumeClaim: { claimName: 'dangling' } }]),
    'in-tree': pod('in-tree', 'n1', [
      { name: 'share', azureFile: { secretName: 's', shareName: 'x' } },
      { name: 'disk', persistentVolumeClaim: { claimName: 'gce' } },
    ]),
  };
  const claims: Record<string, KubeObject> = {
    data: { metadata: { name: 'data', namespace: 'ns' }, spec: { volumeName: 'pv-data' } },
    'p-scratch': { metadata: { name: 'p-scratch', namespace: 'ns' }, spec: { volumeName: 'pv-scratch' } },
    unbound: { metadata: { name: 'unbound', namespace: 'ns' }, spec: {} },
    dangling: { metadata: { name: 'dangling', namespace: 'ns' }, spec: { volumeName: 'pv-gone' } },
    gce: { metadata: { name: 'gce', namespace: 'ns' }, spec: { volumeName: 'pv-gce' } },
  };
  const volumes: Record<string, KubeObject> = {
    'pv-data': { metadata: { name: 'pv-data' }, spec: { csi: { driver: 'pvc.csi', volumeHandle: 'h' } } },
    'pv-scratch': { metadata: { name: 'pv-scratch' }, spec: { csi: { driver: 'eph.csi', volumeHandle: 'h' } } },
    'pv-gce': { metadata: { name: 'pv-gce' }, spec: { gcePersistentDisk: { pdName: 'd' } } },
  };
  const drivers: Record<string, KubeObject> = {
    'inline.csi': { metadata: { name: 'inline.csi' }, spec: { tokenRequests: [{ audience: 'inline-aud' }] } },
    'pvc.csi': { metadata: { name: 'pvc.csi' }, spec: { tokenRequests: [{ audience: 'pvc-aud' }, { audience: '' }] } },
    'eph.csi': { metadata: { name: 'eph.csi' }, spec: { tokenRequests: [{ audience: 'eph-aud' }] } },
    'file.csi.azure.com': { metadata: { name: 'file.csi.azure.com' }, spec: { tokenRequests: [{ audience: 'azure-aud' }] } },
    'pd.csi.storage.gke.io': { metadata: { name: 'pd.csi.storage.gke.io' }, spec: { tokenRequests: [{ audience: 'gke-aud' }] } },
  };
  const asked: Attributes[] = [];
  const restriction: AudienceRestriction = {
    getClaim: async (namespace, name) => (namespace === 'ns' ? claims[name] : undefined),
    getVolume: async (name) => volumes[name],
    getCSIDriver: async (name) => drivers[name],
    authorize: (a) => {
      asked.push(a);
      const granted = a.verb === 'request-serviceaccounts-token-audience' && a.apiGroup === '' && a.resource === 'granted-aud' && a.name === 'default' && a.namespace === 'ns';
      return { decision: granted ? 'allow' : 'noOpinion', reason: '' };
    },
  };
  const getPod = async (name: string): Promise<KubeObject> => {
    if (!pods[name]) throw new Error(`pods "${name}" not found`);
    return pods[name];
  };
  const request = (podName: string, audiences: string[], serviceAccount = 'default') => ({
    namespace: 'ns',
    serviceAccount,
    boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: podName, uid: `uid-${podName}` },
    audiences,
  });

  it.each<[string, ReturnType<typeof request>, string | undefined]>([
    ['no audience: the API server\'s own', request('p', []), undefined],
    ['two audiences', request('p', ['vault', 'inline-aud']), 'node may only request 0 or 1 audiences'],
    ['a projected token volume\'s audience', request('p', ['vault']), undefined],
    ['an inline CSI driver\'s token audience', request('p', ['inline-aud']), undefined],
    ['the token audience of the CSI driver behind a claim', request('p', ['pvc-aud']), undefined],
    ['the token audience of the CSI driver behind an ephemeral volume\'s claim', request('p', ['eph-aud']), undefined],
    ['an audience the pod does not use', request('p', ['evil']), 'audience "evil" not found in pod spec volume, system:node:n1 is not authorized to request tokens for this audience'],
    ['an audience the node is authorized to request for this account', request('p', ['granted-aud']), undefined],
    ['that audience for another account', request('p', ['granted-aud'], 'other'), 'audience "granted-aud" not found in pod spec volume, system:node:n1 is not authorized to request tokens for this audience'],
    ['the CSI driver an inline in-tree volume migrates to', request('in-tree', ['azure-aud']), undefined],
    ['the CSI driver an in-tree PersistentVolume migrates to', request('in-tree', ['gke-aud']), undefined],
    ['a CSIDriver that does not exist', request('no-driver', ['x']), 'error validating audience "x": csidriver.storage.k8s.io "nope.csi" not found'],
    ['a claim that does not exist', request('no-claim', ['x']), 'error validating audience "x": persistentvolumeclaim "gone" not found'],
    ['a volume that does not exist', request('no-volume', ['x']), 'error validating audience "x": persistentvolume "pv-gone" not found'],
    ['a pod on another node, before any audience check', request('elsewhere', ['evil', 'more']), 'node requested token bound to a pod scheduled on a different node'],
  ])('%s', async (_, req, expected) => {
    expect(await nodeTokenRequestRefusal(n1, req, { getPod, audienceRestriction: restriction })).toBe(expected);
  });

  it('asks the authorizer kube\'s question: request-serviceaccounts-token-audience on the audience, named by the account', async () => {
    asked.length = 0;
    await nodeTokenRequestRefusal(n1, request('p', ['granted-aud']), { getPod, audienceRestriction: restriction });
    expect(asked).toEqual([
      expect.objectContaining({ user: n1, verb: 'request-serviceaccounts-token-audience', isResourceRequest: true, namespace: 'ns', apiGroup: '', resource: 'granted-aud', subresource: '', name: 'default' }),
    ]);
  });

  it('leaves audiences alone with the gate off, and users that are no node alone', async () => {
    expect(await nodeTokenRequestRefusal(n1, request('p', ['evil', 'more']), { getPod })).toBeUndefined();
    expect(await nodeTokenRequestRefusal(newUserInfo('alice'), request('p', ['evil', 'more']), { getPod, audienceRestriction: restriction })).toBeUndefined();
  });
});
