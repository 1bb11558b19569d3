// The per-kind rules the generic store calls, in kube-apiserver's fixed order (rest.BeforeCreate
// and rest.BeforeUpdate): prepare, validate, warn, canonicalize. The store owns the flow and the
// ObjectMeta rules; a kind only supplies a Strategy. Most kinds use the default strategy built
// from their ResourceDefinition; the few with rules no spec can state register one by name.

import type { StatusCause } from '../errors/status-error.js';
import type { DeleteOptions } from './delete-options.js';
import type { ResourceDefinition } from './definition.js';
import { deepClone, deepEqual, metaOf, specFields, type KubeObject } from '../machinery/object.js';
import { setMember } from '../machinery/own-member.js';

export interface Strategy {
  /**
   * May mutate `obj`. The kind's defaults as decoding applies them (SetDefaults_*), for admission
   * plugins to see; idempotent, prepareForCreate and prepareForUpdate apply them too.
   */
  applyDefaults?(obj: KubeObject): void;
  /** May mutate `obj`. Normalizes a new object before validation: defaults, status reset, generation. */
  prepareForCreate(obj: KubeObject): void;
  /** Must not mutate. Every rule a new object must meet; [] when valid. */
  validate(obj: KubeObject): StatusCause[];
  /** Must not mutate. Runs after validate passed. */
  warningsOnCreate(obj: KubeObject): string[];
  /** May mutate `obj`: puts a validated object into canonical form just before it is stored. */
  canonicalize(obj: KubeObject): void;
  /** May mutate `obj`, never `old`. Carries over what this endpoint may not change (status, spec). */
  prepareForUpdate(obj: KubeObject, old: KubeObject): void;
  /** Must not mutate either object. */
  validateUpdate(obj: KubeObject, old: KubeObject): StatusCause[];
  /** Must not mutate either object. */
  warningsOnUpdate(obj: KubeObject, old: KubeObject): string[];
  /** Whether PUT to a missing object creates it (false for every kind we serve). */
  allowCreateOnUpdate(): boolean;
  /** Whether PUT without metadata.resourceVersion is accepted as an unconditional write. */
  allowUnconditionalUpdate(): boolean;
  /** Field selector values of an object; the keys are the fields a selector may name. */
  selectableFields(obj: KubeObject): Record<string, string>;
}

/** What a delete of an existing object should do instead of (or before) removing it. */
export type DeleteDecision =
  | { action: 'delete' }
  /** `ownFinalizers`: the kind set the finalizers itself and the propagation policy adds none (a CRD's first delete). */
  | { action: 'update'; obj: KubeObject; ownFinalizers?: boolean }
  | { action: 'keep' };

export interface ResourceStrategies {
  main: Strategy;
  /** Strategies of writable subresources, by name (`status`, `finalize`). */
  subresources: Record<string, Strategy>;
  /**
   * Kinds with a lifecycle of their own (Namespace, a Pod's graceful termination) decide here how
   * a delete proceeds; may throw a StatusError. Absent: metadata.finalizers alone decide.
   */
  beforeDelete?(existing: KubeObject, options: DeleteOptions): DeleteDecision;
  /**
   * An object marked for deletion without a grace period (a CRD's first delete sets none) goes
   * once its last finalizer is removed, as upstream's ShouldDeleteDuringUpdate lets it.
   */
  deletesWithoutGracePeriod?: boolean;
  /**
   * The module clears feature-gated fields itself, by rules of its own, so the generic per-field
   * drop of the spec's `featureGate` markers is not applied on top (Pod: kube decides per feature).
   */
  dropsDisabledFields?: boolean;
  /**
   * kube-apiserver's storage codec runs the version's defaulters on every object it decodes, so
   * an object stored before a default existed is read with it. Kinds whose defaults readers can
   * see set them here (Namespace's name label); called on each decode, before the watch cache
   * shares and freezes the object, so it must be cheap and must not depend on anything but `obj`.
   */
  defaultOnRead?(obj: KubeObject): void;
  /**
   * Objects of the kind go this long (ms) after their last write; 0: never. kube-apiserver's
   * Event store declares the --event-ttl here (its TTLFunc) and etcd's leases carry it out; the
   * registry runs an expirer for the kind's storage instead (expirer.ts).
   */
  timeToLive?(ttls: StorageTTLs): number;
}

/** The times to live the server was started with (kube-apiserver's flags). */
export interface StorageTTLs {
  /** --event-ttl. */
  eventTTLMs: number;
}

export function statusFieldOf(def: ResourceDefinition): string {
  return def.statusField ?? 'status';
}

export function hasStatusSubresource(def: ResourceDefinition): boolean {
  return def.subresources.some((s) => s.name === 'status');
}

function defaultSelectableFields(def: ResourceDefinition): (obj: KubeObject) => Record<string, string> {
  return (obj) => {
    const meta = metaOf(obj);
    return { 'metadata.name': meta.name ?? '', 'metadata.namespace': def.namespaced ? (meta.namespace ?? '') : '' };
  };
}

/** The strategy of the main resource endpoint, built from the definition alone. */
export function defaultStrategy(def: ResourceDefinition): Strategy {
  const statusField = statusFieldOf(def);
  const ownsStatus = hasStatusSubresource(def);
  return {
    applyDefaults: (obj) => def.validator.applyDefaults(obj),
    prepareForCreate(obj) {
      // Status is written by controllers through the status subresource, never by the creator.
      if (ownsStatus) delete obj[statusField];
      def.validator.applyDefaults(obj);
      if (def.tracksGeneration === true) metaOf(obj).generation = 1;
    },
    validate: (obj) => def.validator.validate(obj),
    warningsOnCreate: () => [],
    canonicalize: () => {},
    prepareForUpdate(obj, old) {
      def.validator.applyDefaults(obj);
      if (ownsStatus) {
        if (old[statusField] === undefined) delete obj[statusField];
        else obj[statusField] = deepClone(old[statusField]);
      }
      if (def.tracksGeneration && !deepEqual(specFields(obj, statusField), specFields(old, statusField))) {
        metaOf(obj).generation = (metaOf(old).generation ?? 0) + 1;
      }
    },
    validateUpdate: (obj, old) => def.validator.validateUpdate(obj, old),
    warningsOnUpdate: () => [],
    allowCreateOnUpdate: () => false,
    allowUnconditionalUpdate: () => def.allowUnconditionalUpdate !== false,
    selectableFields: defaultSelectableFields(def),
  };
}

/** The ObjectMeta fields metav1.ResetObjectMetaForStatus takes from the stored object. */
const METADATA_RESET_FOR_STATUS = ['labels', 'annotations', 'finalizers', 'ownerReferences', 'deletionTimestamp', 'generation', 'selfLink'] as const;

function resetMetadataForStatus(obj: KubeObject, old: KubeObject): void {
  const meta = metaOf(obj) as Record<string, unknown>;
  const oldMeta = metaOf(old) as Record<string, unknown>;
  for (const key of METADATA_RESET_FOR_STATUS) {
    if (oldMeta[key] === undefined) delete meta[key];
    else meta[key] = deepClone(oldMeta[key]);
  }
}

/**
 * The status subresource: the writer may change status, everything else but metadata is taken
 * from the stored object (kube-apiserver's status strategies reset spec). Metadata changes are
 * kept (Namespace, PersistentVolume, PersistentVolumeClaim) unless the kind's status strategy
 * resets them too (statusResetsMetadata: VolumeAttachment, StorageVersionMigration).
 */
export function statusStrategy(def: ResourceDefinition, main: Strategy): Strategy {
  const statusField = statusFieldOf(def);
  return {
    ...main,
    prepareForCreate: main.prepareForCreate,
    prepareForUpdate(obj, old) {
      def.validator.applyDefaults(obj);
      for (const key of Object.keys(obj)) {
        if (key !== 'metadata' && key !== statusField && key !== 'apiVersion' && key !== 'kind') delete obj[key];
      }
      for (const [key, value] of Object.entries(old)) {
        if (key !== 'metadata' && key !== statusField && key !== 'apiVersion' && key !== 'kind') setMember(obj, key, deepClone(value));
      }
      if (def.statusResetsMetadata) resetMetadataForStatus(obj, old);
    },
  };
}

/** Main plus status strategies for a definition without a named strategy module. */
export function defaultStrategies(def: ResourceDefinition): ResourceStrategies {
  const main = defaultStrategy(def);
  const subresources: Record<string, Strategy> = {};
  if (hasStatusSubresource(def)) subresources.status = statusStrategy(def, main);
  return { main, subresources };
}

/**
 * `base` with checks of the kind's own that no spec rule states, run after the spec's: `onWrite`
 * on create and update alike, `onUpdate` on update only (kube's ValidateX, then ValidateXUpdate).
 */
export function withRules(
  base: Strategy,
  rules: { onWrite?: (obj: KubeObject) => StatusCause[]; onUpdate?: (obj: KubeObject, old: KubeObject) => StatusCause[] },
): Strategy {
  const onWrite = rules.onWrite ?? (() => []);
  const onUpdate = rules.onUpdate ?? (() => []);
  return {
    ...base,
    validate: (obj) => [...base.validate(obj), ...onWrite(obj)],
    validateUpdate: (obj, old) => [...base.validateUpdate(obj, old), ...onWrite(obj), ...onUpdate(obj, old)],
  };
}
