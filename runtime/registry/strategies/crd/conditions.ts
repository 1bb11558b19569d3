// A CustomResourceDefinition's status conditions, as apiextensions' helpers keep them
// (SetCRDCondition): one per type; lastTransitionTime moves only when the status changes.

import { asObject, asObjectList, asString, nowRFC3339, type KubeObject } from '../../../machinery/object.js';

export interface CRDCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

/** The condition of this type, if the definition has one. */
export function findCondition(crd: KubeObject, type: string): Record<string, unknown> | undefined {
  return asObjectList(asObject(crd.status).conditions).find((c) => asString(c.type) === type);
}

export function isConditionTrue(crd: KubeObject, type: string): boolean {
  return findCondition(crd, type)?.status === 'True';
}

/** Sets the condition in place: added when missing, else updated, its transition time kept unless the status changed. */
export function setCondition(crd: KubeObject, condition: CRDCondition): void {
  const status = asObject(crd.status);
  crd.status = status;
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Record<string, unknown>[]) : [];
  status.conditions = conditions;
  const now = nowRFC3339();
  const existing = conditions.find((c) => c && asString(c.type) === condition.type);
  if (!existing) {
    conditions.push({ type: condition.type, status: condition.status, lastTransitionTime: now, reason: condition.reason, message: condition.message });
    return;
  }
  if (existing.status !== condition.status || !existing.lastTransitionTime) existing.lastTransitionTime = now;
  existing.status = condition.status;
  existing.reason = condition.reason;
  existing.message = condition.message;
}
