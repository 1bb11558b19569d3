// The warnings kube-apiserver attaches to accepted PersistentVolume and PersistentVolumeClaim
// writes (pkg/api/persistentvolume and pkg/api/persistentvolumeclaim GetWarningsFor...), and the
// volume-plugin rule that only some sources take the beta mount-options annotation
// (pkg/volume/validation ValidatePersistentVolume).

import type { StatusCause } from '../../errors/status-error.js';
import * as fe from '../../validation/field-errors.js';
import { goQuote } from '../../machinery/go-format.js';
import { formatQuantity, quantityOf, quantityValue } from '../../machinery/quantity.js';
import { annotationsOf, asList, asObject, asString, isPlainObject, type KubeObject } from '../../machinery/object.js';

const BETA_STORAGE_CLASS = 'volume.beta.kubernetes.io/storage-class';
const MOUNT_OPTIONS = 'volume.beta.kubernetes.io/mount-options';
const STORAGE_CLASS_ANNOTATION_MSG = 'deprecated since v1.8; use "storageClassName" attribute instead';

const DEPRECATED_NODE_LABELS: Record<string, string> = {
  'beta.kubernetes.io/arch': 'deprecated since v1.14; use "kubernetes.io/arch" instead',
  'beta.kubernetes.io/os': 'deprecated since v1.14; use "kubernetes.io/os" instead',
  'failure-domain.beta.kubernetes.io/region': 'deprecated since v1.17; use "topology.kubernetes.io/region" instead',
  'failure-domain.beta.kubernetes.io/zone': 'deprecated since v1.17; use "topology.kubernetes.io/zone" instead',
  'beta.kubernetes.io/instance-type': 'deprecated since v1.17; use "node.kubernetes.io/instance-type" instead',
};

/** Deprecated in-tree sources, the JSON-ish name kube-apiserver prints, and the message. */
const DEPRECATED_SOURCES: [string, string, string][] = [
  ['cephfs', 'cephfs', 'deprecated in v1.28, non-functional in v1.31+'],
  ['photonPersistentDisk', 'photonPersistentDisk', 'deprecated in v1.11, non-functional in v1.16+'],
  ['scaleIO', 'scaleIO', 'deprecated in v1.16, non-functional in v1.22+'],
  ['storageos', 'storageOS', 'deprecated in v1.22, non-functional in v1.25+'],
  ['glusterfs', 'glusterfs', 'deprecated in v1.25, non-functional in v1.26+'],
  ['rbd', 'rbd', 'deprecated in v1.28, non-functional in v1.31+'],
];

/** Sources whose plugins take mount options. */
const MOUNT_OPTION_SOURCES = [
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'glusterfs',
  'nfs',
  'rbd',
  'quobyte',
  'iscsi',
  'cinder',
  'cephfs',
  'azureFile',
  'vsphereVolume',
  'azureDisk',
  'photonPersistentDisk',
];

function storageClassAnnotationWarning(obj: KubeObject): string[] {
  return BETA_STORAGE_CLASS in annotationsOf(obj) ? [`metadata.annotations[${BETA_STORAGE_CLASS}]: ${STORAGE_CLASS_ANNOTATION_MSG}`] : [];
}

export function persistentVolumeWarnings(obj: KubeObject): string[] {
  const spec = asObject(obj.spec);
  const warnings = storageClassAnnotationWarning(obj);
  if (spec.persistentVolumeReclaimPolicy === 'Recycle') {
    warnings.push('spec.persistentVolumeReclaimPolicy: The Recycle reclaim policy is deprecated. Instead, the recommended approach is to use dynamic provisioning.');
  }
  const required = isPlainObject(spec.nodeAffinity) && isPlainObject(spec.nodeAffinity.required) ? spec.nodeAffinity.required : undefined;
  asList(required?.nodeSelectorTerms).forEach((term, i) => {
    asList(isPlainObject(term) ? term.matchExpressions : undefined).forEach((expr, j) => {
      const key = asString(asObject(expr).key);
      const msg = DEPRECATED_NODE_LABELS[key];
      if (msg) warnings.push(`spec.nodeAffinity.required.nodeSelectorTerms[${i}].matchExpressions[${j}].key: ${key} is ${msg}`);
    });
  });
  for (const [source, shown, msg] of DEPRECATED_SOURCES) if (isPlainObject(spec[source])) warnings.push(`spec.${shown}: ${msg}`);
  return warnings;
}

function fractionalByteWarning(list: unknown, path: string): string[] {
  const q = isPlainObject(list) ? quantityOf(list.storage) : undefined;
  if (!q || quantityValue({ ...q, num: q.num * 1000n }) % 1000n === 0n) return [];
  return [`${path}[storage]: fractional byte value ${goQuote(formatQuantity(q))} is invalid, must be an integer`];
}

export function persistentVolumeClaimWarnings(obj: KubeObject): string[] {
  const resources = asObject(obj.spec).resources;
  const res = asObject(resources);
  return [...storageClassAnnotationWarning(obj), ...fractionalByteWarning(res.requests, 'spec.resources.requests'), ...fractionalByteWarning(res.limits, 'spec.resources.limits')];
}

/** The mount-options annotation on a volume whose plugin cannot take it. */
export function mountOptionCauses(obj: KubeObject): StatusCause[] {
  const spec = asObject(obj.spec);
  if (MOUNT_OPTION_SOURCES.some((s) => isPlainObject(spec[s]))) return [];
  if (!(MOUNT_OPTIONS in annotationsOf(obj))) return [];
  return [fe.forbidden(`metadata.annotations.${MOUNT_OPTIONS}`, 'may not specify mount options for this volume type')];
}
