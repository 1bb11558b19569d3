// The shape of a spec file after YAML parsing, as spec-format.schema.json allows it.

export interface RawConstraints {
  enum?: unknown[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

export interface RawRule {
  rule: string;
  message?: string;
  fieldPath?: string;
  reason?: 'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate' | 'FieldValueNotSupported' | 'FieldValueTooLong';
  supported?: string[];
  /** With reason FieldValueTooLong: the limit the message names. */
  limit?: number;
  format?: string;
  valueExpr?: string;
  /** Declarative twin of a hand-written check (see spec-format.schema.json). */
  declarative?: boolean;
}

/** Size rules of a map[string]string, reported at the field (see spec-format.schema.json). */
export interface MapSize {
  maxEntries?: number;
  nonEmptyKeys?: boolean;
  maxBytes?: number;
}

export interface RawConditionalDefault {
  when: string;
  value: unknown;
}

export interface RawField extends RawConstraints {
  type: string;
  tag?: number;
  protoName?: string;
  protoMessage?: string;
  description?: string;
  required?: boolean;
  openAPIRequired?: boolean;
  default?: unknown;
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
  reportAtField?: boolean;
  immutable?: boolean;
  itemRules?: RawRule[];
  defaultWhen?: RawConditionalDefault[];
  writeOnly?: boolean;
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
  goPointer?: boolean;
  jsonInline?: boolean;
}

export interface RawType {
  description?: string;
  typeMeta?: boolean;
  protoOnly?: boolean;
  fields?: Record<string, RawField>;
  rules?: RawRule[];
}

export interface RawPrinterColumn {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  priority?: number;
  description: string;
  jsonPath?: string;
  cel?: string;
  age?: string;
  printer?: string;
}

export interface RawKind extends RawType {
  plural: string;
  /** Defaults to `<Kind>List`. */
  listKind?: string;
  singular?: string;
  scope: 'Cluster' | 'Namespaced';
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  stability?: 'alpha' | 'beta' | 'stable';
  featureGate?: string;
  lifecycle?: RawLifecycle;
  printerColumns?: RawPrinterColumn[];
  subresources?: { name: string; kind?: string; group?: string; version?: string; handler?: string; verbs: string[] }[];
  nameFormat?: 'dns1123Subdomain' | 'dns1123Label' | 'pathSegment' | 'csiDriverName';
  returnDeletedObject?: boolean;
  storageVersion?: string;
  tracksGeneration?: boolean | 'onUpdate';
  allowUnconditionalUpdate?: boolean;
  garbageCollectionPolicy?: 'DeleteDependents' | 'OrphanDependents' | 'Unsupported';
  validationOrder?: string[];
  statusResetsMetadata?: boolean;
  statusField?: string;
  strategy?: string;
  virtual?: boolean;
  storagePrefix?: string;
  storedAs?: { group?: string; version: string; fieldRenames?: Record<string, string> };
  protobufMessage?: string;
  updateOrder?: 'updateFirst' | 'validateFirst';
}

/** Releases as `1.x`, as kube's prerelease-lifecycle tags give them. */
export interface RawLifecycle {
  introduced?: string;
  deprecated?: string;
  removed?: string;
  /** `<group>/<version>` or `<group>/<version> <Kind>`. */
  replacement?: string;
}

export interface RawRemovedKind {
  plural: string;
  scope: 'Cluster' | 'Namespaced';
  lifecycle?: RawLifecycle;
}

export interface RawSpec {
  group?: string;
  version?: string;
  protoPackage: string;
  openAPIPrefix: string;
  description?: string;
  lifecycle?: RawLifecycle;
  removedKinds?: Record<string, RawRemovedKind>;
  kinds?: Record<string, RawKind>;
  types?: Record<string, RawType>;
}
