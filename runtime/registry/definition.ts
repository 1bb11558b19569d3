// The contract between the generator and the runtime: `generated/registry.ts` exports one
// ResourceDefinition per served kind, and the runtime routes, stores, validates, encodes and
// prints objects from these tables alone. Behaviour no spec can state lives in small strategy
// modules, looked up by `strategy` name (runtime/registry/strategies/).

// The validator's shape belongs to the validation floor below; generated validators import it from here.
import type { ObjectValidator } from '../validation/object-validator.js';
import type { StorageConversion } from './converting-storage.js';
import type { CustomResourceSubresourceScale } from './crd-scale.js';

export type { ObjectValidator };

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

export type Stability = 'alpha' | 'beta' | 'stable';

/** kube's rest.GarbageCollectionPolicy. */
export type GarbageCollectionPolicy = 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';

/** A name rule for metadata.name, as kube-apiserver's per-resource ValidateObjectMeta uses. */
export type NameFormat = 'dns1123Subdomain' | 'dns1123Label' | 'pathSegment' | 'csiDriverName';

/** One column of the server-side Table (`as=Table;g=meta.k8s.io;v=v1`). Exactly one of jsonPath, cel, age, printer, crdJSONPath. */
export interface PrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  priority: number;
  description: string;
  /** A simple path such as `.metadata.name` or `.status.phase`. */
  jsonPath?: string;
  /** A CEL expression over `self` (the object), e.g. `size(self.data)`. */
  cel?: string;
  /** A path to a timestamp, shown as a short human duration (5m, 3d); `a|b`: the first one set. */
  age?: string;
  /** A named cell function (runtime/api/printers) for a column no expression can compute. */
  printer?: string;
  /**
   * A CustomResourceDefinition's additionalPrinterColumns jsonPath, any kubectl JSONPath, evaluated
   * as kube's CRD table convertor does: its first result, rendered by `type` (runtime/api/custom-resource-cells.ts).
   */
  crdJSONPath?: string;
}

export interface SubresourceDefinition {
  /** `status`, `finalize`, `eviction`, ... */
  name: string;
  /** The kind the subresource takes and returns (the parent's kind for status). */
  kind: string;
  /** Group and version of that kind when they are not the parent's (pods/eviction: policy/v1). */
  group?: string;
  version?: string;
  /** A virtual subresource, served by this named handler (runtime/api/subresources); nothing is stored. */
  handler?: string;
  verbs: Verb[];
  /** The paths of a custom resource's `scale` subresource (a CRD's `subresources.scale`), for the `scale` handler. */
  scale?: CustomResourceSubresourceScale;
  /**
   * With `scale`: the specReplicasPath of every version of the CRD by group/version, null where a
   * version has no scale subresource (the managed fields of a Scale are mapped through them).
   */
  replicasPaths?: Readonly<Record<string, string | null>>;
}

export interface ResourceDefinition {
  /** '' for the core group. */
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** The URL segment: `configmaps`. */
  plural: string;
  singular: string;
  namespaced: boolean;
  verbs: Verb[];
  shortNames: string[];
  categories: string[];
  stability: Stability;
  /** Served only when this feature gate is on. */
  featureGate?: string;
  subresources: SubresourceDefinition[];
  printerColumns: PrinterColumn[];
  nameFormat: NameFormat;
  /** storageVersionHash as discovery shows it. */
  storageVersionHash: string;
  /** Fully qualified protobuf message of the kind and its list, e.g. `k8s.io.api.core.v1.ConfigMap`. */
  protobufType: string;
  protobufListType: string;
  /** The OpenAPI component name, e.g. `io.k8s.api.core.v1.ConfigMap`. */
  openAPIName: string;
  /**
   * True when a change of the object's spec bumps metadata.generation, set to 1 on create;
   * 'onUpdate' bumps it the same way but leaves create alone (CSIDriver).
   */
  tracksGeneration: boolean | 'onUpdate';
  /** Status writes take labels, annotations, finalizers, ownerReferences, deletionTimestamp and generation from the stored object. */
  statusResetsMetadata?: boolean;
  /** false: updates must name the resourceVersion they replace (kube's AllowUnconditionalUpdate); absent: true. */
  allowUnconditionalUpdate?: boolean;
  /** DELETE answers with the deleted object, not a Status (kube-apiserver's ReturnDeletedObject; CSIDriver). */
  returnDeletedObject?: boolean;
  /**
   * The kind's DefaultGarbageCollectionPolicy, what a delete that names no propagation policy does
   * to dependents; absent: DeleteDependents. Unsupported: deletes never add the garbage
   * collector's finalizers (Events).
   */
  garbageCollectionPolicy?: GarbageCollectionPolicy;
  /** Top-level fields that are not spec (status and metadata aside), e.g. for the status subresource. */
  statusField?: string;
  /** Name of a strategy module for rules no spec can state (`secret`, `namespace`). */
  strategy?: string;
  /**
   * Not stored: the kind stands for an operation (SelfSubjectReview). Only create is served, and
   * the virtual handler named by `strategy` (runtime/registry/virtual/) computes the response.
   */
  virtual?: boolean;
  /** Key prefix in storage below the store prefix, e.g. `configmaps` (kube-apiserver's layout). */
  storagePrefix: string;
  /**
   * Present when objects are stored as another group version's kind, as kube-apiserver stores
   * events.k8s.io/v1 Events as core/v1 Events: every read converts the stored form to this one and
   * every write converts back, renaming the top-level fields listed (this kind's name to the
   * stored name). Both kinds then share one storage prefix and watch cache.
   */
  storedAs?: { apiVersion: string; fieldRenames: Record<string, string> };
  validator: ObjectValidator;
  /** Creates are refused (405 MethodNotAllowed) with this message: kube's answer while a CRD is terminating. */
  createRefusal?: string;
  /** false: no strategic merge patch (custom resources have no Go types to carry patch strategies); absent: true. */
  strategicMergePatch?: false;
  /**
   * Objects without Go types (custom resources): a list's items carry their own apiVersion and kind,
   * as kube's UnstructuredList writes every item whole; typed lists leave them out.
   */
  unstructured?: true;
  /** The version's openAPIV3Schema as its CustomResourceDefinition holds it, for the published OpenAPI. */
  openAPISchema?: Record<string, unknown>;
  /** Every request to the resource is answered with this warning (a CustomResourceDefinition version marked deprecated). */
  deprecationWarning?: string;
  /** Objects are converted by a call out between the storage version and this one (a CRD's conversion webhook). */
  conversion?: StorageConversion;
  /** A CustomResourceDefinition version's selectableFields: field selectors may name these paths (without their leading dot). */
  selectableFields?: { jsonPath: string }[];
}
