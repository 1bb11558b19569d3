// The computed columns of `kubectl get nodes` (kube-apiserver's node table printer): STATUS is
// the Ready condition (Ready, NotReady, or Unknown without one) plus SchedulingDisabled when the
// node is cordoned; ROLES come from node-role.kubernetes.io/<role> label keys and the older
// kubernetes.io/role label value; the wide columns print <none> or <unknown> when unset.

import { asObject, asObjectList, asString } from '../../machinery/object.js';

type Obj = Record<string, unknown>;

const ROLE_LABEL_PREFIX = 'node-role.kubernetes.io/';
const LEGACY_ROLE_LABEL = 'kubernetes.io/role';

function nodeStatus(node: Obj): string {
  const status = asObject(node.status);
  // The last condition of a type wins, as a map filled in list order keeps it.
  const ready = asObjectList(status.conditions).filter((c) => c.type === 'Ready').pop();
  const parts = [ready ? (ready.status === 'True' ? 'Ready' : 'NotReady') : 'Unknown'];
  if (asObject(node.spec).unschedulable === true) parts.push('SchedulingDisabled');
  return parts.join(',');
}

function nodeRoles(node: Obj): string {
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(asObject(asObject(node.metadata).labels))) {
    if (key.startsWith(ROLE_LABEL_PREFIX) && key.length > ROLE_LABEL_PREFIX.length) roles.add(key.slice(ROLE_LABEL_PREFIX.length));
    else if (key === LEGACY_ROLE_LABEL && typeof value === 'string' && value !== '') roles.add(value);
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

function firstAddress(node: Obj, type: string): string {
  const found = asObjectList(asObject(node.status).addresses).find((a) => a.type === type);
  return found ? asString(found.address) : '<none>';
}

const nodeInfoField = (field: string) => (node: Obj): string => asString(asObject(asObject(node.status).nodeInfo)[field]) || '<unknown>';

export const nodePrinters = {
  nodeStatus,
  nodeRoles,
  nodeInternalIP: (node: Obj) => firstAddress(node, 'InternalIP'),
  nodeExternalIP: (node: Obj) => firstAddress(node, 'ExternalIP'),
  nodeOSImage: nodeInfoField('osImage'),
  nodeKernelVersion: nodeInfoField('kernelVersion'),
  nodeContainerRuntime: nodeInfoField('containerRuntimeVersion'),
};
