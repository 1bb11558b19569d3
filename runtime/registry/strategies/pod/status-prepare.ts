// What kube-apiserver's pod status strategy (PrepareForUpdate, 1.33) keeps from the stored pod on a
// write through pods/<name>/status, beyond the spec: the ownerReferences (old kubelets corrupted
// them, which broke garbage collection), the QoS class when the write leaves it empty (it is fixed
// at creation, and old kubelets dropped it when they rejected a pod), and the observedGeneration
// of the status and of each condition when the write leaves it unset. Labels, annotations and the
// rest of the metadata may still change here, as in kube.

import { asObject, asObjectList, deepClone, isPlainObject, metaOf, type KubeObject } from '../../../machinery/object.js';

type Obj = Record<string, unknown>;

const unsetGeneration = (v: unknown): boolean => v === undefined || v === null || v === 0;

/** A condition's old observedGeneration is the one of the first unused old condition of its type. */
function keepObservedGenerations(status: Obj, oldStatus: Obj): void {
  if (unsetGeneration(status.observedGeneration) && !unsetGeneration(oldStatus.observedGeneration)) status.observedGeneration = oldStatus.observedGeneration;
  const byType = new Map<unknown, unknown[]>();
  for (const c of asObjectList(oldStatus.conditions)) byType.set(c.type, [...(byType.get(c.type) ?? []), c.observedGeneration]);
  for (const c of Array.isArray(status.conditions) ? status.conditions.filter(isPlainObject) : []) {
    const olds = byType.get(c.type) ?? [];
    const before = olds.shift();
    if (unsetGeneration(c.observedGeneration) && !unsetGeneration(before)) c.observedGeneration = before;
  }
}

export function keepStatusWriteInvariants(obj: KubeObject, old: KubeObject): void {
  const meta = metaOf(obj);
  const oldOwners = metaOf(old).ownerReferences;
  if (oldOwners === undefined) delete meta.ownerReferences;
  else meta.ownerReferences = deepClone(oldOwners);
  const oldStatus = asObject(old.status);
  if (obj.status === undefined || obj.status === null) obj.status = {};
  if (!isPlainObject(obj.status)) return;
  const status = obj.status;
  if ((status.qosClass === undefined || status.qosClass === '') && oldStatus.qosClass !== undefined) status.qosClass = oldStatus.qosClass;
  keepObservedGenerations(status, oldStatus);
}
