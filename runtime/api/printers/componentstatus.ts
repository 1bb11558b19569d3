// The STATUS, MESSAGE and ERROR columns of `kubectl get componentstatuses` (kube-apiserver's
// printComponentStatus): read from the first Healthy condition, Healthy when it is True and
// Unhealthy otherwise; Unknown with empty message and error when there is none.

import { asObjectList } from '../../machinery/object.js';

function healthy(obj: Record<string, unknown>): Record<string, unknown> | undefined {
  return asObjectList(obj.conditions).find((c) => c.type === 'Healthy');
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

function componentStatus(obj: Record<string, unknown>): string {
  const condition = healthy(obj);
  if (!condition) return 'Unknown';
  return condition.status === 'True' ? 'Healthy' : 'Unhealthy';
}

const componentMessage = (obj: Record<string, unknown>): string => text(healthy(obj)?.message);
const componentError = (obj: Record<string, unknown>): string => text(healthy(obj)?.error);

export const componentStatusPrinters = { componentStatus, componentMessage, componentError };
