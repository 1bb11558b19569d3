// Reading a CustomResourceDefinition (apiextensions.k8s.io/v1) as plain JSON: the facts serving
// needs, after the helpers of kube's apiextensions-apiserver (IsCRDConditionTrue,
// GetCRDStorageVersion, HasServedCRDVersion). The CRD's own kind and validation are crd-api's.

import type { KubeObject } from '../../machinery/object.js';

export const CRD_GROUP = 'apiextensions.k8s.io';
export const CRD_PLURAL = 'customresourcedefinitions';

/** The finalizer kube adds to every CRD so its instances are deleted before it goes. */
export const CRD_CLEANUP_FINALIZER = 'customresourcecleanup.apiextensions.k8s.io';

export interface CRDNames {
  plural: string;
  singular?: string;
  kind: string;
  listKind?: string;
  shortNames?: string[];
  categories?: string[];
}

export interface CRDVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: Record<string, unknown> };
  subresources?: { status?: Record<string, unknown>; scale?: Record<string, unknown> };
  additionalPrinterColumns?: Array<{ name: string; type: string; format?: string; description?: string; priority?: number; jsonPath: string }>;
  selectableFields?: Array<{ jsonPath: string }>;
}

export interface CRDCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface CRDSpec {
  group: string;
  names: CRDNames;
  scope: 'Namespaced' | 'Cluster';
  versions: CRDVersion[];
  conversion?: { strategy?: string; webhook?: Record<string, unknown> };
  preserveUnknownFields?: boolean;
}

export interface CRDStatus {
  conditions?: CRDCondition[];
  acceptedNames?: Partial<CRDNames>;
  storedVersions?: string[];
}

export function specOf(crd: KubeObject): CRDSpec {
  return (crd.spec ?? {}) as CRDSpec;
}

export function statusOf(crd: KubeObject): CRDStatus {
  return (crd.status ?? {}) as CRDStatus;
}

export function isConditionTrue(crd: KubeObject, type: string): boolean {
  return (statusOf(crd).conditions ?? []).some((c) => c.type === type && c.status === 'True');
}

/** The version whose form objects are stored in (validation makes exactly one). */
export function storageVersionOf(crd: KubeObject): string | undefined {
  return (specOf(crd).versions ?? []).find((v) => v.storage)?.name;
}

/**
 * The names the CRD is served under: the accepted names once the naming controller has accepted
 * them (kube serves from status.acceptedNames), the spec's before that.
 */
export function servedNames(crd: KubeObject): CRDNames {
  const spec = specOf(crd).names ?? ({} as CRDNames);
  const accepted = statusOf(crd).acceptedNames;
  const names = accepted?.plural && accepted.kind ? accepted : spec;
  const kind = names.kind ?? spec.kind;
  return {
    plural: names.plural ?? spec.plural,
    singular: names.singular || kind.toLowerCase(),
    kind,
    listKind: names.listKind || `${kind}List`,
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
  };
}
