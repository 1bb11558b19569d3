// The normalized model every emitter reads: all references resolved, every default filled in
// once (singular names, storage prefixes, stabilities, list kinds, apiVersion/kind fields).

// The lifecycle shapes are the ones generated/lifecycle.ts is typed with, so model and emitted table cannot drift.
import type { GroupVersionLifecycle, KindLifecycle } from '../runtime/machinery/lifecycle.js';
import type { MapSize, RawConditionalDefault, RawConstraints, RawPrinterColumn, RawRule } from './raw-spec.js';
import type { ScalarName } from './scalars.js';

export type TypeRef =
  | { kind: 'scalar'; name: ScalarName }
  | { kind: 'ref'; id: string }
  | { kind: 'list'; of: TypeRef }
  | { kind: 'map'; of: TypeRef };

export interface FieldModel extends RawConstraints {
  name: string;
  type: TypeRef;
  description: string;
  required: boolean;
  /** Listed as required in OpenAPI only; absence is left to the kind's own rules, which report it their way. */
  openAPIRequired: boolean;
  default?: unknown;
  tag?: number;
  protoName: string;
  /** Wire wrapper message (id) for a JSON list, e.g. meta/v1 Verbs. */
  protoMessage?: string;
  minItems?: number;
  maxItems?: number;
  items?: RawConstraints;
  values?: RawConstraints;
  keys?: RawConstraints;
  disjointKeys?: { with: string; message: string };
  mapSize?: MapSize;
  stopsAtMaxItems?: boolean;
  zeroWhenAbsent?: boolean;
  alwaysEmitted?: boolean;
  reportAtField: boolean;
  immutable: boolean;
  itemRules?: RawRule[];
  defaultWhen?: RawConditionalDefault[];
  writeOnly: boolean;
  listType?: 'atomic' | 'set' | 'map';
  listMapKeys?: string[];
  uniqueKeys?: string[];
  uniqueAmongValid?: boolean;
  elementOrder?: string[];
  mapType?: 'atomic' | 'granular';
  patchStrategy?: string;
  patchMergeKey?: string;
  oneOf?: string;
  featureGate?: string;
  goPointer: boolean;
  jsonInline: boolean;
  /** Added by the generator (apiVersion, kind), not written in the spec. */
  implicit: boolean;
}

export interface TypeModel {
  /** The OpenAPI definition name, also the model's key: `io.k8s.api.core.v1.ConfigMap`. */
  id: string;
  name: string;
  specFile: string;
  /** Fully qualified protobuf message without the leading dot: `k8s.io.api.core.v1.ConfigMap`. */
  protoName: string;
  protoPackage: string;
  description: string;
  fields: FieldModel[];
  rules: RawRule[];
  typeMeta: boolean;
  protoOnly: boolean;
  /** Set for a served kind's type and its list type. */
  gvk?: { group: string; version: string; kind: string };
}

export interface SubresourceModel {
  name: string;
  kind: string;
  /** Group and version of the kind when it is not the parent's (pods/eviction: policy/v1). */
  group?: string;
  version?: string;
  /** Virtual subresource served by a named runtime handler. */
  handler?: string;
  verbs: string[];
}

export interface KindModel {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  verbs: string[];
  shortNames: string[];
  categories: string[];
  stability: 'alpha' | 'beta' | 'stable';
  featureGate?: string;
  printerColumns: NormalizedColumn[];
  subresources: SubresourceModel[];
  nameFormat: 'dns1123Subdomain' | 'dns1123Label' | 'pathSegment' | 'csiDriverName';
  returnDeletedObject: boolean;
  tracksGeneration: boolean | 'onUpdate';
  /** Field paths in kube-apiserver's validation order, where it differs from declaration order. */
  validationOrder?: string[];
  statusResetsMetadata: boolean;
  allowUnconditionalUpdate: boolean;
  /** What a delete without a propagation policy does to the object's dependents (the kind strategy's DefaultGarbageCollectionPolicy). */
  garbageCollectionPolicy: 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';
  statusField?: string;
  strategy?: string;
  /** Not stored: create only, or get and list, answered by the virtual handler named by `strategy`. */
  virtual: boolean;
  storagePrefix: string;
  /** Set when objects are stored as another group version's kind (see ResourceDefinition.storedAs). */
  storedAs?: { apiVersion: string; fieldRenames: Record<string, string> };
  updateOrder: 'updateFirst' | 'validateFirst';
  type: TypeModel;
  listType: TypeModel;
  storageVersionHash: string;
}

export interface NormalizedColumn {
  name: string;
  type: RawPrinterColumn['type'];
  format?: string;
  priority: number;
  description: string;
  jsonPath?: string;
  cel?: string;
  age?: string;
  printer?: string;
}

export interface GroupVersionModel {
  group: string;
  version: string;
  specFile: string;
  kinds: KindModel[];
}

/**
 * One kind's lifecycle, its group version's with the kind's own overrides applied and the
 * prerelease defaults filled (alpha and beta: deprecated three minors after introduced, removed
 * three after deprecated, as prerelease-lifecycle-gen does). Releases are `1.x`.
 */
export type KindLifecycleModel = KindLifecycle;

/** A group version: introduced with its first kind, removed with its last. */
export type GroupVersionLifecycleModel = GroupVersionLifecycle;

export interface Model {
  /** Spec files read, sorted. */
  files: string[];
  types: Map<string, TypeModel>;
  /** Group versions that serve kinds, core first, then by group and version. */
  groupVersions: GroupVersionModel[];
  /** Every group version with a lifecycle (served or removed), in the order of groupVersions' sort. */
  groupVersionLifecycles: GroupVersionLifecycleModel[];
  /** Every kind with a lifecycle: served ones and removed ones. */
  kindLifecycles: KindLifecycleModel[];
}

export const groupVersionString = (gv: { group: string; version: string }): string => (gv.group ? `${gv.group}/${gv.version}` : gv.version);
