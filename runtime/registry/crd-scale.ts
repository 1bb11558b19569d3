// The scale subresource of a custom resource (`subresources.scale` of a CRD version): the
// autoscaling/v1 Scale kube-apiserver shows for a custom resource (scaleFromCustomResource), the
// write of a Scale's replicas back into it, and the checks its strategy makes of the paths the CRD
// names (customResourceValidator.ValidateScaleSpec / ValidateScaleStatus), with kube's messages.
// Paths are simple dotted paths (`.spec.replicas`), as CRD validation requires.

import type { StatusCause } from '../errors/status-error.js';
import { goPrint } from '../machinery/jsonpath.js';
import { metaOf, type KubeObject } from '../machinery/object.js';
import * as fe from '../validation/field-errors.js';

/** `subresources.scale` of a CRD version. */
export interface CustomResourceSubresourceScale {
  specReplicasPath: string;
  statusReplicasPath: string;
  labelSelectorPath?: string;
}

export interface Scale {
  kind: 'Scale';
  apiVersion: 'autoscaling/v1';
  metadata: Record<string, unknown>;
  spec: { replicas?: number };
  status: { replicas: number; selector?: string };
}

const MAX_INT32 = 2147483647;

/** An accessor error of unstructured's Nested* helpers. */
export class AccessorError extends Error {}

const splitPath = (path: string): string[] => (path.startsWith('.') ? path.slice(1) : path).split('.');
const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function goType(v: unknown): string {
  if (Array.isArray(v)) return '[]interface {}';
  if (isMap(v)) return 'map[string]interface {}';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return '<nil>';
}

/** unstructured.NestedFieldNoCopy: the value at `fields`, whether it is there, or the accessor error. */
function nestedField(obj: KubeObject, fields: string[]): { value: unknown; found: boolean } {
  let value: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (value === null || value === undefined) return { value: undefined, found: false };
    if (!isMap(value)) {
      throw new AccessorError(`.${fields.slice(0, i + 1).join('.')} accessor error: ${goPrint(value)} is of the type ${goType(value)}, expected map[string]interface{}`);
    }
    if (!Object.hasOwn(value, fields[i])) return { value: undefined, found: false };
    value = value[fields[i]];
  }
  return { value, found: true };
}

/** unstructured.NestedInt64: 0 and not found when absent. */
export function nestedInt64(obj: KubeObject, path: string): { value: number; found: boolean } {
  const fields = splitPath(path);
  const { value, found } = nestedField(obj, fields);
  if (!found) return { value: 0, found: false };
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw new AccessorError(`.${fields.join('.')} accessor error: ${goPrint(value)} is of the type ${goType(value)}, expected int64`);
  }
  return { value, found: true };
}

/** unstructured.NestedString. */
function nestedString(obj: KubeObject, path: string): string {
  const fields = splitPath(path);
  const { value, found } = nestedField(obj, fields);
  if (!found) return '';
  if (typeof value !== 'string') throw new AccessorError(`.${fields.join('.')} accessor error: ${goPrint(value)} is of the type ${goType(value)}, expected string`);
  return value;
}

/** Go's int32(x) of an int64. */
const toInt32 = (n: number): number => Number(BigInt.asIntN(32, BigInt(n)));

/** The Scale of a custom resource and whether its spec replicas field exists; throws AccessorError. */
export function scaleFromCustomResource(cr: KubeObject, scale: CustomResourceSubresourceScale): { scale: Scale; specReplicasFound: boolean } {
  const spec = nestedInt64(cr, scale.specReplicasPath);
  const status = nestedInt64(cr, scale.statusReplicasPath);
  const selector = scale.labelSelectorPath ? nestedString(cr, scale.labelSelectorPath) : '';
  const meta = metaOf(cr);
  const metadata: Record<string, unknown> = { name: meta.name };
  if (meta.namespace) metadata.namespace = meta.namespace;
  if (meta.uid) metadata.uid = meta.uid;
  if (meta.resourceVersion) metadata.resourceVersion = meta.resourceVersion;
  metadata.creationTimestamp = meta.creationTimestamp ?? null;
  const replicas = toInt32(spec.value);
  return {
    scale: {
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata,
      // ScaleSpec.replicas is omitempty.
      spec: replicas === 0 ? {} : { replicas },
      status: { replicas: toInt32(status.value), ...(selector ? { selector } : {}) },
    },
    specReplicasFound: spec.found,
  };
}

/** unstructured.SetNestedField of the replicas: missing or non-object parents become objects. */
export function setSpecReplicas(cr: KubeObject, scale: CustomResourceSubresourceScale, replicas: number): void {
  const fields = splitPath(scale.specReplicasPath);
  let at: Record<string, unknown> = cr;
  for (const field of fields.slice(0, -1)) {
    if (!isMap(at[field])) at[field] = {};
    at = at[field] as Record<string, unknown>;
  }
  at[fields[fields.length - 1]] = replicas;
}

function replicasCauses(obj: KubeObject, path: string): StatusCause[] {
  // kube names the cause by the CRD's path as written, leading dot included.
  let value: number;
  try {
    value = nestedInt64(obj, path).value;
  } catch (e) {
    if (e instanceof AccessorError) return [fe.invalid(path, 0, e.message)];
    throw e;
  }
  if (value < 0) return [fe.invalid(path, value, 'should be a non-negative integer')];
  if (value > MAX_INT32) return [fe.invalid(path, value, `should be less than or equal to ${MAX_INT32}`)];
  return [];
}

/** ValidateScaleSpec, for create and update of the custom resource. */
export function scaleSpecCauses(obj: KubeObject, scale: CustomResourceSubresourceScale | undefined): StatusCause[] {
  return scale ? replicasCauses(obj, scale.specReplicasPath) : [];
}

/** ValidateScaleStatus, for create, update and status updates. */
export function scaleStatusCauses(obj: KubeObject, scale: CustomResourceSubresourceScale | undefined): StatusCause[] {
  if (!scale) return [];
  const causes = replicasCauses(obj, scale.statusReplicasPath);
  if (scale.labelSelectorPath) {
    try {
      nestedString(obj, scale.labelSelectorPath);
    } catch (e) {
      if (!(e instanceof AccessorError)) throw e;
      causes.push(fe.invalid(scale.labelSelectorPath, '', e.message));
    }
  }
  return causes;
}
