// NodeRestriction admission (kube 1.33's plugin/pkg/admission/noderestriction): what the Node
// authorizer lets every node write, narrowed to the node's own objects. A node may create,
// update and delete only its own Node, never changing its taints, its configSource, or labels
// under kubernetes.io and k8s.io other than the kubelet's own (nor any
// node-restriction.kubernetes.io label); create only mirror pods bound to itself, owned by its
// Node and naming no other API object, and delete only pods bound to itself; update the status
// of its own pods only, without changing their labels or resource claim statuses; update only
// the status of claims, and there only the capacity, conditions and expansion state; touch only
// its own Lease in kube-node-lease and its own CSINode; create and delete only ResourceSlices
// of its node; request service account tokens only bound to its own pods, for an audience those
// pods use or it is authorized to request. Other users' writes are not its business.

import { nodeIdentity } from '../../auth/node/authorizer.js';
import { aggregateMessage } from '../../auth/aggregate.js';
import type { Attributes, AuthorizationResult } from '../../auth/authorizer.js';
import type { UserInfo } from '../../auth/user.js';
import { podConfigMapNames, podSecretNames } from '../../auth/node/references.js';
import { asObject, asObjectList, asString, deepClone, deepEqual, isPlainObject, metaOf, type KubeObject } from '../../machinery/object.js';
import { notFound } from '../../errors/status-error.js';
import { admissionForbidden, type AdmissionAttributes, type AdmissionPlugin } from './admission.js';

type Obj = Record<string, unknown>;

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
const NODE_RESTRICTION_LABEL_DOMAIN = 'node-restriction.kubernetes.io';
const NODE_LEASE_NAMESPACE = 'kube-node-lease';

/** Labels the kubelet sets on its Node itself (kubeletapis.IsKubeletLabel). */
const KUBELET_LABELS = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_DOMAINS = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

const labelDomain = (key: string): string => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inDomain = (domain: string, of: string): boolean => domain === of || domain.endsWith(`.${of}`);

function isKubeletLabel(key: string): boolean {
  if (KUBELET_LABELS.has(key)) return true;
  const domain = labelDomain(key);
  return KUBELET_LABEL_DOMAINS.some((d) => inDomain(domain, d));
}

const isKubernetesLabel = (key: string): boolean => inDomain(labelDomain(key), 'kubernetes.io') || inDomain(labelDomain(key), 'k8s.io');

/** The label keys added, removed or changed between two label maps. */
function modifiedLabels(a: Obj, b: Obj): string[] {
  const keys = new Set<string>();
  for (const [k, v] of Object.entries(a)) if (!(k in b) || b[k] !== v) keys.add(k);
  for (const [k, v] of Object.entries(b)) if (!(k in a) || a[k] !== v) keys.add(k);
  return [...keys];
}

/** Of the modified labels, those a node may not set, sorted as Go's sets.String lists them. */
function forbiddenLabels(modified: string[]): string[] {
  return modified.filter((key) => inDomain(labelDomain(key), NODE_RESTRICTION_LABEL_DOMAIN) || (isKubernetesLabel(key) && !isKubeletLabel(key))).sort();
}

/** Semantic equality: an absent list and an empty one are the same. */
const sameList = (a: unknown, b: unknown): boolean => deepEqual(asObjectList(a), asObjectList(b)) && (Array.isArray(a) ? a.length : 0) === (Array.isArray(b) ? b.length : 0);

const labelsOf = (obj: KubeObject | undefined): Obj => asObject(obj?.metadata?.labels);

export interface NodeRestrictionOptions {
  /** The stored Node of that name, or undefined (a mirror pod's owner reference is checked against its uid). */
  getNode(name: string): Promise<KubeObject | undefined>;
  /** The server's feature gates (RecoverVolumeExpansionFailure widens what a claim status update may change). */
  featureEnabled(gate: string): boolean;
}

export function nodeRestriction(options: NodeRestrictionOptions): AdmissionPlugin {
  return {
    name: 'NodeRestriction',
    handles: (a) => a.user !== undefined && nodeIdentity(a.user) !== undefined,
    async admit(a) {
      const nodeName = nodeIdentity(a.user!)!;
      const forbid = (why: string) => admissionForbidden(a, why);
      if (nodeName === '') throw forbid(`could not determine node from user ${JSON.stringify(a.user!.name)}`);
      const def = a.definition;
      switch (`${def.group}/${def.plural}`) {
        case '/pods':
          if (a.subresource === '') return admitPod(nodeName, a, forbid, options);
          if (a.subresource === 'status') return admitPodStatus(nodeName, a, forbid);
          throw forbid(`unexpected pod subresource ${JSON.stringify(a.subresource)}, only 'status' and 'eviction' are allowed`);
        case '/nodes':
          return admitNode(nodeName, a, forbid);
        case '/persistentvolumeclaims':
          if (a.subresource !== 'status') throw forbid('may only update PVC status');
          return admitClaimStatus(nodeName, a, forbid, options.featureEnabled('RecoverVolumeExpansionFailure'));
        case 'coordination.k8s.io/leases':
          return admitLease(nodeName, a, forbid);
        case 'storage.k8s.io/csinodes':
          if (metaOf(a.object).name !== nodeName) throw forbid('can only access CSINode with the same name as the requesting node');
          return;
        case 'resource.k8s.io/resourceslices':
          if (a.operation === 'CREATE' && asString(asObject(a.object.spec).nodeName) !== nodeName) {
            throw forbid('can only create ResourceSlice with the same NodeName as the requesting node');
          }
          return;
        default:
          return;
      }
    },
    async validateDelete(a) {
      const nodeName = nodeIdentity(a.user!)!;
      const forbid = (why: string) => admissionForbidden(a, why);
      if (nodeName === '') throw forbid(`could not determine node from user ${JSON.stringify(a.user!.name)}`);
      const boundTo = asString(asObject(a.object.spec).nodeName);
      switch (`${a.definition.group}/${a.definition.plural}`) {
        case '/pods':
          if (boundTo !== nodeName) throw forbid(`node ${JSON.stringify(nodeName)} can only delete pods with spec.nodeName set to itself`);
          return;
        case '/nodes':
          return admitNode(nodeName, a, forbid);
        case '/persistentvolumeclaims':
          throw forbid('may only update PVC status');
        case 'coordination.k8s.io/leases':
          return admitLease(nodeName, a, forbid);
        case 'resource.k8s.io/resourceslices':
          if (boundTo !== nodeName) throw forbid('can only delete ResourceSlice with the same NodeName as the requesting node');
          return;
        case 'storage.k8s.io/csinodes':
          if (metaOf(a.object).name !== nodeName) throw forbid('can only access CSINode with the same name as the requesting node');
          return;
        default:
          return;
      }
    },
  };
}

type Forbid = (why: string) => Error;

async function admitPod(nodeName: string, a: AdmissionAttributes, forbid: Forbid, options: NodeRestrictionOptions): Promise<void> {
  if (a.operation !== 'CREATE') throw forbid(`unexpected operation ${JSON.stringify(a.operation)}, node ${JSON.stringify(nodeName)} can only create and delete mirror pods`);
  const pod = a.object;
  const meta = asObject(pod.metadata);
  const spec = asObject(pod.spec);
  const node = JSON.stringify(nodeName);
  if (!(MIRROR_POD_ANNOTATION in asObject(meta.annotations))) {
    throw forbid(`pod does not have "${MIRROR_POD_ANNOTATION}" annotation, node ${node} can only create mirror pods`);
  }
  if (asString(spec.nodeName) !== nodeName) throw forbid(`node ${node} can only create pods with spec.nodeName set to itself`);
  const owners = asObjectList(meta.ownerReferences);
  if (owners.length > 1) throw forbid(`node ${node} can only create pods with a single owner reference set to itself`);
  if (owners.length === 0) throw forbid(`node ${node} can only create pods with an owner reference set to itself`);
  const owner = owners[0]!;
  if (owner.apiVersion !== 'v1' || owner.kind !== 'Node' || owner.name !== nodeName) throw forbid(`node ${node} can only create pods with an owner reference set to itself`);
  if (owner.controller !== true) throw forbid(`node ${node} can only create pods with a controller owner reference set to itself`);
  if (owner.blockOwnerDeletion === true) throw forbid(`node ${node} must not set blockOwnerDeletion on an owner reference`);
  const stored = await options.getNode(nodeName);
  // kube answers a missing Node with the lister's NotFound itself, not a refusal.
  if (!stored) throw notFound({ group: '', resource: 'nodes' }, nodeName);
  const uid = asString(metaOf(stored).uid);
  if (asString(owner.uid) !== uid) throw forbid(`node ${nodeName} UID mismatch: expected ${asString(owner.uid)} got ${uid}`);
  // A mirror pod may not bring the node access to anything through the graph.
  if (asString(spec.serviceAccountName) !== '') throw forbid(`node ${node} can not create pods that reference a service account`);
  if (podSecretNames(spec).length > 0) throw forbid(`node ${node} can not create pods that reference secrets`);
  if (podConfigMapNames(spec).length > 0) throw forbid(`node ${node} can not create pods that reference configmaps`);
  const volumes = asObjectList(spec.volumes);
  if (volumes.some((v) => asObjectList(asObject(v.projected).sources).some((s) => isPlainObject(s.clusterTrustBundle)))) {
    throw forbid(`node ${node} can not create pods that reference clustertrustbundles`);
  }
  if (volumes.some((v) => isPlainObject(v.persistentVolumeClaim))) throw forbid(`node ${node} can not create pods that reference persistentvolumeclaims`);
}

function admitPodStatus(nodeName: string, a: AdmissionAttributes, forbid: Forbid): void {
  if (a.operation !== 'UPDATE') throw forbid(`unexpected operation ${JSON.stringify(a.operation)}`);
  const node = JSON.stringify(nodeName);
  if (asString(asObject(a.oldObject?.spec).nodeName) !== nodeName) throw forbid(`node ${node} can only update pod status for pods with spec.nodeName set to itself`);
  if (!deepEqual(labelsOf(a.oldObject), labelsOf(a.object))) throw forbid(`node ${node} cannot update labels through pod status`);
  if (!sameList(asObject(a.oldObject?.status).resourceClaimStatuses, asObject(a.object.status).resourceClaimStatuses)) {
    throw forbid(`node ${node} cannot update resource claim statues`);
  }
}

function admitNode(nodeName: string, a: AdmissionAttributes, forbid: Forbid): void {
  const requested = asString(metaOf(a.object).name);
  const node = JSON.stringify(nodeName);
  if (requested !== nodeName) throw forbid(`node ${node} is not allowed to modify node ${JSON.stringify(requested)}`);
  if (a.operation === 'DELETE') return;
  const spec = asObject(a.object.spec);
  if (a.operation === 'CREATE') {
    if (spec.configSource !== undefined && spec.configSource !== null) throw forbid(`node ${node} is not allowed to create pods with a non-nil configSource`);
    const forbidden = forbiddenLabels(modifiedLabels(labelsOf(a.object), {}));
    if (forbidden.length > 0) throw forbid(`node ${node} is not allowed to set the following labels: ${forbidden.join(', ')}`);
    return;
  }
  const oldSpec = asObject(a.oldObject?.spec);
  if (spec.configSource !== undefined && spec.configSource !== null && !deepEqual(spec.configSource, oldSpec.configSource)) {
    throw forbid(`node ${node} is not allowed to update configSource to a new non-nil configSource`);
  }
  if (!sameList(spec.taints, oldSpec.taints)) throw forbid(`node ${node} is not allowed to modify taints`);
  const forbidden = forbiddenLabels(modifiedLabels(labelsOf(a.object), labelsOf(a.oldObject)));
  if (forbidden.length > 0) throw forbid(`is not allowed to modify labels: ${forbidden.join(', ')}`);
}

/**
 * A claim's status update by a node may change status.capacity and status.conditions and, with
 * RecoverVolumeExpansionFailure, the expansion state in allocatedResources and
 * allocatedResourceStatuses; nothing else. kube's message names "status.quantity" and appends a
 * go-cmp diff of the two claims, which is Go's own rendering and is left out here.
 */
function admitClaimStatus(nodeName: string, a: AdmissionAttributes, forbid: Forbid, expansionRecovery: boolean): void {
  if (a.operation !== 'UPDATE') throw forbid(`unexpected operation ${JSON.stringify(a.operation)}`);
  const ignored = expansionRecovery ? ['capacity', 'conditions', 'allocatedResources', 'allocatedResourceStatuses'] : ['capacity', 'conditions'];
  const comparable = (obj: KubeObject | undefined): Obj => {
    const copy = deepClone(obj ?? {}) as Obj;
    const meta = asObject(copy.metadata);
    delete meta.resourceVersion;
    delete meta.managedFields;
    const status = asObject(copy.status);
    for (const field of ignored) delete status[field];
    return copy;
  };
  const before = comparable(a.oldObject);
  const after = comparable(a.object);
  if (!deepEqual(before, after)) {
    throw forbid(`node ${JSON.stringify(nodeName)} is not allowed to update fields other than status.quantity and status.conditions`);
  }
}

/** A node's own Lease (its heartbeat), in kube-node-lease only. */
function admitLease(nodeName: string, a: AdmissionAttributes, forbid: Forbid): void {
  if (a.namespace !== NODE_LEASE_NAMESPACE) throw forbid(`can only access leases in the "${NODE_LEASE_NAMESPACE}" system namespace`);
  if (metaOf(a.object).name !== nodeName) throw forbid('can only access node lease with the same name as the requesting node');
}

/**
 * NodeRestriction on an eviction (which is no stored write): why the user, if a node, may not
 * evict this pod; undefined when it may, or is no node.
 */
export function nodeEvictionRefusal(user: UserInfo | undefined, pod: KubeObject): string | undefined {
  const nodeName = user ? nodeIdentity(user) : undefined;
  if (nodeName === undefined) return undefined;
  if (nodeName === '') return `could not determine node from user ${JSON.stringify(user!.name)}`;
  if (asString(asObject(pod.spec).nodeName) !== nodeName) return `node ${nodeName} can only evict pods with spec.nodeName set to itself`;
  return undefined;
}

/** The pod reference of a TokenRequest (spec.boundObjectRef). */
export interface BoundObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

/** A node's TokenRequest as NodeRestriction sees it: before the audiences are defaulted. */
export interface NodeTokenRequest {
  /** The service account's namespace and name. */
  namespace: string;
  serviceAccount: string;
  boundObjectRef?: BoundObjectRef;
  audiences: string[];
}

/** What ServiceAccountNodeAudienceRestriction reads: the objects behind a pod's volumes, and the authorizer. */
export interface AudienceRestriction {
  getClaim(namespace: string, name: string): Promise<KubeObject | undefined>;
  getVolume(name: string): Promise<KubeObject | undefined>;
  getCSIDriver(name: string): Promise<KubeObject | undefined>;
  authorize(attributes: Attributes): AuthorizationResult | Promise<AuthorizationResult>;
}

export interface NodeTokenRequestLookups {
  /** The pod the token is bound to; throws kube's 404 when it is missing. */
  getPod(name: string): Promise<KubeObject>;
  /** With the ServiceAccountNodeAudienceRestriction gate on (its 1.33 default). */
  audienceRestriction?: AudienceRestriction;
}

/**
 * NodeRestriction on a TokenRequest: a node's token must be bound to a pod (by name and uid)
 * scheduled on the node, and with ServiceAccountNodeAudienceRestriction ask for at most one
 * audience, which the pod uses or the node is authorized to request.
 */
export async function nodeTokenRequestRefusal(user: UserInfo | undefined, request: NodeTokenRequest, lookups: NodeTokenRequestLookups): Promise<string | undefined> {
  const nodeName = user ? nodeIdentity(user) : undefined;
  if (nodeName === undefined) return undefined;
  if (nodeName === '') return `could not determine node from user ${JSON.stringify(user!.name)}`;
  const ref = request.boundObjectRef;
  if (!ref || ref.apiVersion !== 'v1' || ref.kind !== 'Pod' || ref.name === '') return 'node requested token not bound to a pod';
  if (ref.uid === '') return 'node requested token with a pod binding without a uid';
  const pod = await lookups.getPod(ref.name);
  if (ref.uid !== asString(metaOf(pod).uid)) {
    return `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`;
  }
  if (asString(asObject(pod.spec).nodeName) !== nodeName) return 'node requested token bound to a pod scheduled on a different node';
  if (lookups.audienceRestriction) return audienceRefusal(user!, request, pod, lookups.audienceRestriction);
  return undefined;
}

/**
 * validateNodeServiceAccountAudience: no audience is the API server's own; one audience must be
 * one the pod's volumes use (a projected service account token, or a CSI driver whose
 * CSIDriver asks for tokens of it, inline or behind a claim), or one the node is authorized to
 * request (verb request-serviceaccounts-token-audience on the audience, named by the account).
 * In-tree volumes count as the CSI driver they migrate to, as kube translates them.
 */
async function audienceRefusal(user: UserInfo, request: NodeTokenRequest, pod: KubeObject, lookups: AudienceRestriction): Promise<string | undefined> {
  if (request.audiences.length > 1) return 'node may only request 0 or 1 audiences';
  if (request.audiences.length === 0) return undefined;
  const audience = request.audiences[0]!;
  const lookupErrors: string[] = [];
  if (await podReferencesAudience(pod, audience, lookups, lookupErrors)) return undefined;
  if (lookupErrors.length > 0) return `error validating audience ${JSON.stringify(audience)}: ${aggregateMessage(lookupErrors)}`;
  const decision = await lookups.authorize({
    user,
    verb: 'request-serviceaccounts-token-audience',
    isResourceRequest: true,
    path: '',
    namespace: request.namespace,
    apiGroup: '',
    apiVersion: '',
    resource: audience,
    subresource: '',
    name: request.serviceAccount,
  });
  if (decision.decision === 'allow') return undefined;
  return `audience ${JSON.stringify(audience)} not found in pod spec volume, ${user.name} is not authorized to request tokens for this audience`;
}

async function podReferencesAudience(pod: KubeObject, audience: string, lookups: AudienceRestriction, errors: string[]): Promise<boolean> {
  const namespace = asString(metaOf(pod).namespace);
  for (const volume of asObjectList(asObject(pod.spec).volumes)) {
    const projected = asObjectList(asObject(volume.projected).sources);
    if (projected.some((source) => isPlainObject(source.serviceAccountToken) && asString(source.serviceAccountToken.audience) === audience)) return true;
    let driver = '';
    if (isPlainObject(volume.csi)) driver = asString(volume.csi.driver);
    else if (isPlainObject(volume.persistentVolumeClaim) || isPlainObject(volume.ephemeral)) {
      const claimName = isPlainObject(volume.persistentVolumeClaim) ? asString(volume.persistentVolumeClaim.claimName) : `${asString(metaOf(pod).name)}-${asString(volume.name)}`;
      const found = await claimDriver(namespace, claimName, lookups);
      if ('error' in found) {
        errors.push(found.error);
        continue;
      }
      driver = found.driver;
    } else {
      driver = migratedDriver(volume);
    }
    if (driver === '') continue;
    const csiDriver = await lookups.getCSIDriver(driver);
    // The lister's NotFound, which names the singular resource.
    if (!csiDriver) {
      errors.push(`csidriver.storage.k8s.io ${JSON.stringify(driver)} not found`);
      continue;
    }
    if (asObjectList(asObject(csiDriver.spec).tokenRequests).some((t) => asString(t.audience) === audience)) return true;
  }
  return false;
}

/** The CSI driver of the volume bound to a claim: '' while unbound or for a volume that is no CSI volume. */
async function claimDriver(namespace: string, claimName: string, lookups: AudienceRestriction): Promise<{ driver: string } | { error: string }> {
  const claim = await lookups.getClaim(namespace, claimName);
  if (!claim) return { error: `persistentvolumeclaim ${JSON.stringify(claimName)} not found` };
  const volumeName = asString(asObject(claim.spec).volumeName);
  if (volumeName === '') return { driver: '' };
  const volume = await lookups.getVolume(volumeName);
  if (!volume) return { error: `persistentvolume ${JSON.stringify(volumeName)} not found` };
  const spec = asObject(volume.spec);
  return { driver: isPlainObject(spec.csi) ? asString(spec.csi.driver) : migratedDriver(spec) };
}

/**
 * The CSI driver an in-tree volume source is migrated to (csi-translation-lib's plugins), for a
 * pod's inline volume or a PersistentVolume's source alike; '' for a source with none.
 */
const IN_TREE_CSI_DRIVERS: [string, string][] = [
  ['gcePersistentDisk', 'pd.csi.storage.gke.io'],
  ['awsElasticBlockStore', 'ebs.csi.aws.com'],
  ['azureDisk', 'disk.csi.azure.com'],
  ['azureFile', 'file.csi.azure.com'],
  ['cinder', 'cinder.csi.openstack.org'],
  ['vsphereVolume', 'csi.vsphere.vmware.com'],
  ['portworxVolume', 'pxd.portworx.com'],
];

function migratedDriver(source: Obj): string {
  return IN_TREE_CSI_DRIVERS.find(([field]) => isPlainObject(source[field]))?.[1] ?? '';
}
