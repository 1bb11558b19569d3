// The edges each kind of object adds to the Node authorizer's graph, as kube's graph does:
//   pod -> its node; service account, secrets, configmaps, claims and resource claims -> pod
//   (a mirror pod gets the node edge alone: a node must not grant itself access by making one);
//   volume -> its bound claim, and the volume's secrets -> volume;
//   VolumeAttachment -> its node; ResourceSlice -> its node.
// The names are those kube's pod and volume visitors (VisitPodSecretNames,
// VisitPodConfigmapNames, VisitPVSecretNames) find.

import { asObject, asObjectList, asString, isPlainObject, type KubeObject } from '../../machinery/object.js';
import type { Vertex } from './graph.js';

type Obj = Record<string, unknown>;

const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

const metaOf = (obj: KubeObject): Obj => asObject(obj.metadata);

/** Every container of a pod: init, regular and ephemeral, as kube's visitors walk them. */
function containersOf(spec: Obj): Obj[] {
  return [...asObjectList(spec.initContainers), ...asObjectList(spec.containers), ...asObjectList(spec.ephemeralContainers)];
}

/** The secret names a pod references: pull secrets, env, and every volume source that names one. */
export function podSecretNames(spec: Obj): string[] {
  const names: string[] = asObjectList(spec.imagePullSecrets).map((r) => asString(r.name));
  for (const c of containersOf(spec)) {
    for (const env of asObjectList(c.env)) names.push(asString(asObject(asObject(env.valueFrom).secretKeyRef).name));
    for (const from of asObjectList(c.envFrom)) names.push(asString(asObject(from.secretRef).name));
  }
  for (const v of asObjectList(spec.volumes)) {
    names.push(asString(asObject(v.azureFile).secretName), asString(asObject(v.secret).secretName));
    for (const source of ['cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos']) {
      names.push(asString(asObject(asObject(v[source]).secretRef).name));
    }
    names.push(asString(asObject(asObject(v.csi).nodePublishSecretRef).name));
    for (const p of asObjectList(asObject(v.projected).sources)) names.push(asString(asObject(p.secret).name));
  }
  return names.filter((n) => n !== '');
}

/** The configmap names a pod references: env, envFrom, configMap and projected volumes. */
export function podConfigMapNames(spec: Obj): string[] {
  const names: string[] = [];
  for (const c of containersOf(spec)) {
    for (const env of asObjectList(c.env)) names.push(asString(asObject(asObject(env.valueFrom).configMapKeyRef).name));
    for (const from of asObjectList(c.envFrom)) names.push(asString(asObject(from.configMapRef).name));
  }
  for (const v of asObjectList(spec.volumes)) {
    names.push(asString(asObject(v.configMap).name));
    for (const p of asObjectList(asObject(v.projected).sources)) names.push(asString(asObject(p.configMap).name));
  }
  return names.filter((n) => n !== '');
}

/** Claims of a pod's volumes: persistentVolumeClaim, and `<pod>-<volume>` of an ephemeral one. */
function podClaimNames(podName: string, spec: Obj): string[] {
  const names: string[] = [];
  for (const v of asObjectList(spec.volumes)) {
    if (isPlainObject(v.persistentVolumeClaim)) names.push(asString(v.persistentVolumeClaim.claimName));
    else if (isPlainObject(v.ephemeral)) names.push(`${podName}-${asString(v.name)}`);
  }
  return names.filter((n) => n !== '');
}

/**
 * The ResourceClaims a pod uses (resourceclaim.Name): a named claim, or the claim made from a
 * template as the pod's status records it; none yet when the status does not name it.
 */
function podResourceClaimNames(spec: Obj, status: Obj): string[] {
  const statuses = asObjectList(status.resourceClaimStatuses);
  const names: string[] = [];
  for (const claim of asObjectList(spec.resourceClaims)) {
    if (typeof claim.resourceClaimName === 'string') names.push(claim.resourceClaimName);
    else if (typeof claim.resourceClaimTemplateName === 'string') {
      const recorded = statuses.find((s) => s.name === claim.name);
      if (recorded && typeof recorded.resourceClaimName === 'string') names.push(recorded.resourceClaimName);
    }
  }
  return names.filter((n) => n !== '');
}

/** A pod's edges; none until it is bound to a node. */
export function podEdges(pod: KubeObject): [Vertex, Vertex][] {
  const meta = metaOf(pod);
  const spec = asObject(pod.spec);
  const nodeName = asString(spec.nodeName);
  if (nodeName === '') return [];
  const namespace = asString(meta.namespace);
  const name = asString(meta.name);
  const podVertex: Vertex = { type: 'pod', namespace, name };
  const edges: [Vertex, Vertex][] = [[podVertex, { type: 'node', namespace: '', name: nodeName }]];
  if (MIRROR_POD_ANNOTATION in asObject(meta.annotations)) return edges;
  const to = (type: Vertex['type'], ref: string): [Vertex, Vertex] => [{ type, namespace, name: ref }, podVertex];
  const serviceAccount = asString(spec.serviceAccountName);
  if (serviceAccount !== '') edges.push(to('serviceAccount', serviceAccount));
  for (const secret of podSecretNames(spec)) edges.push(to('secret', secret));
  for (const configMap of podConfigMapNames(spec)) edges.push(to('configmap', configMap));
  for (const claim of podClaimNames(name, spec)) edges.push(to('pvc', claim));
  for (const claim of podResourceClaimNames(spec, asObject(pod.status))) edges.push(to('resourceclaim', claim));
  return edges;
}

/**
 * The secrets of a volume's source the kubelet itself reads (VisitPVSecretNames with
 * kubeletVisible): the one source a volume has is looked at, and a CSI volume's controller
 * publish and expand secrets are for the controller alone, never a node. Sources that predate
 * a secret namespace fall back to the bound claim's namespace; Cinder, StorageOS and CSI name
 * theirs outright.
 */
function persistentVolumeSecrets(spec: Obj): { namespace: string; name: string }[] {
  const claimNamespace = asString(asObject(spec.claimRef).namespace);
  const refs: { namespace: string; name: string }[] = [];
  const ref = (r: unknown, fallbackNamespace: string) => {
    const o = asObject(r);
    refs.push({ namespace: asString(o.namespace) || fallbackNamespace, name: asString(o.name) });
  };
  if (isPlainObject(spec.azureFile)) {
    refs.push({ namespace: asString(spec.azureFile.secretNamespace) || claimNamespace, name: asString(spec.azureFile.secretName) });
  } else if (isPlainObject(spec.cephfs)) ref(spec.cephfs.secretRef, claimNamespace);
  else if (isPlainObject(spec.cinder)) ref(spec.cinder.secretRef, '');
  else if (isPlainObject(spec.flexVolume)) ref(spec.flexVolume.secretRef, claimNamespace);
  else if (isPlainObject(spec.rbd)) ref(spec.rbd.secretRef, claimNamespace);
  else if (isPlainObject(spec.scaleIO)) ref(spec.scaleIO.secretRef, claimNamespace);
  else if (isPlainObject(spec.iscsi)) ref(spec.iscsi.secretRef, claimNamespace);
  else if (isPlainObject(spec.storageos)) ref(spec.storageos.secretRef, '');
  else if (isPlainObject(spec.csi)) {
    for (const key of ['nodePublishSecretRef', 'nodeStageSecretRef', 'nodeExpandSecretRef']) ref(spec.csi[key], '');
  }
  return refs.filter((r) => r.name !== '');
}

/** A volume's edges: to its bound claim, and from its secrets; none while unbound. */
export function persistentVolumeEdges(pv: KubeObject): [Vertex, Vertex][] {
  const spec = asObject(pv.spec);
  if (!isPlainObject(spec.claimRef)) return [];
  const pvVertex: Vertex = { type: 'pv', namespace: '', name: asString(metaOf(pv).name) };
  const claim: Vertex = { type: 'pvc', namespace: asString(spec.claimRef.namespace), name: asString(spec.claimRef.name) };
  const edges: [Vertex, Vertex][] = [[pvVertex, claim]];
  for (const secret of persistentVolumeSecrets(spec)) edges.push([{ type: 'secret', ...secret }, pvVertex]);
  return edges;
}

/** An object's edge to the node its `spec.nodeName` names (VolumeAttachment, ResourceSlice). */
export function nodeNameEdges(type: 'volumeattachment' | 'resourceslice', obj: KubeObject): [Vertex, Vertex][] {
  const nodeName = asString(asObject(obj.spec).nodeName);
  if (nodeName === '') return [];
  return [[{ type, namespace: '', name: asString(metaOf(obj).name) }, { type: 'node', namespace: '', name: nodeName }]];
}
