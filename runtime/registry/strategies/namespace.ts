// Namespace: a lifecycle no schema can state. On create the phase is Active and the `kubernetes`
// finalizer is put into spec.finalizers; spec.finalizers changes only through the `finalize`
// subresource. A delete first marks the namespace (deletionTimestamp, phase Terminating); it is
// removed only once spec.finalizers is empty (see namespace-deleter.ts for who empties it).
// Every write, through any endpoint, ends with the label kubernetes.io/metadata.name set to the
// namespace's name, so label selectors can pick namespaces by name; reads add it too (and phase
// Active), as kube's v1 defaulters run on objects decoded from storage.

import { coveredByDeclarative } from '../declarative.js';
import { forbidden, type StatusCause } from '../../errors/status-error.js';
import * as fe from '../../validation/field-errors.js';
import { isKubeFinalizerName } from '../../machinery/formats.js';
import type { ResourceDefinition } from '../definition.js';
import { deepClone, isPlainObject, metaOf, nowRFC3339, type KubeObject } from '../../machinery/object.js';
import { defaultStrategies, type ResourceStrategies, type Strategy } from '../strategy.js';

export const FINALIZER_KUBERNETES = 'kubernetes';
/** Namespaces NamespaceLifecycle admission refuses to delete. */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

/** v1.LabelMetadataName: kube keeps it equal to the name, whatever a writer sent. */
export const LABEL_METADATA_NAME = 'kubernetes.io/metadata.name';

/**
 * kube sets the label both in v1 defaulting and in the strategy's Canonicalize; the latter is the
 * one that always runs with the final name (generateName is resolved after defaulting).
 */
function labelWithName(obj: KubeObject): void {
  const meta = metaOf(obj);
  if (!meta.name) return;
  meta.labels = { ...(isPlainObject(meta.labels) ? (meta.labels as Record<string, string>) : {}), [LABEL_METADATA_NAME]: meta.name };
}

/**
 * SetDefaults_Namespace and SetDefaults_NamespaceStatus, as the storage decoder runs them: a
 * namespace written before the label rule (or straight into storage) is read with its name label,
 * and with phase Active when it has none.
 */
function defaultOnRead(obj: KubeObject): void {
  const meta = metaOf(obj);
  const labels = isPlainObject(meta.labels) ? (meta.labels as Record<string, string>) : undefined;
  if (meta.name && labels?.[LABEL_METADATA_NAME] !== meta.name) labelWithName(obj);
  if (!namespacePhase(obj)) obj.status = { ...(isPlainObject(obj.status) ? obj.status : {}), phase: 'Active' };
}

/**
 * ValidateNamespaceStatusUpdate: the phase must agree with deletionTimestamp. kube names the
 * field `status.Phase`, with the Go field's capital P.
 */
function phaseCauses(obj: KubeObject): StatusCause[] {
  const phase = namespacePhase(obj);
  if (!metaOf(obj).deletionTimestamp) {
    return phase === 'Active' ? [] : [coveredByDeclarative(fe.invalid('status.Phase', phase, "may only be 'Active' if `deletionTimestamp` is empty"))];
  }
  return phase === 'Terminating' ? [] : [coveredByDeclarative(fe.invalid('status.Phase', phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"))];
}

/**
 * ValidateNamespaceFinalizeUpdate names each bad finalizer by its index (spec.finalizers[i]),
 * while ValidateNamespace, used by the main resource, reports them all at spec.finalizers.
 */
function indexedFinalizerCauses(obj: KubeObject, causes: StatusCause[]): StatusCause[] {
  const others = causes.filter((c) => c.field !== 'spec.finalizers');
  const indexed = specFinalizers(obj).flatMap((name, i) =>
    typeof name === 'string' ? isKubeFinalizerName(name).map((msg) => fe.invalid(`spec.finalizers[${i}]`, name, msg)) : [],
  );
  return [...others, ...indexed];
}

function spec(obj: KubeObject): Record<string, unknown> {
  if (!isPlainObject(obj.spec)) obj.spec = {};
  return obj.spec as Record<string, unknown>;
}

export function specFinalizers(obj: KubeObject): string[] {
  const f = isPlainObject(obj.spec) ? obj.spec.finalizers : undefined;
  return Array.isArray(f) ? (f as string[]) : [];
}

export function namespacePhase(obj: KubeObject): string {
  return isPlainObject(obj.status) && typeof obj.status.phase === 'string' ? obj.status.phase : '';
}

export function namespaceStrategies(def: ResourceDefinition): ResourceStrategies {
  const base = defaultStrategies(def);
  const main: Strategy = {
    ...base.main,
    prepareForCreate(obj) {
      base.main.prepareForCreate(obj);
      labelWithName(obj);
      obj.status = { phase: 'Active' };
      const finalizers = specFinalizers(obj);
      if (!finalizers.includes(FINALIZER_KUBERNETES)) spec(obj).finalizers = [...finalizers, FINALIZER_KUBERNETES];
    },
    canonicalize(obj) {
      base.main.canonicalize(obj);
      labelWithName(obj);
    },
    prepareForUpdate(obj, old) {
      base.main.prepareForUpdate(obj, old);
      const oldFinalizers = isPlainObject(old.spec) ? old.spec.finalizers : undefined;
      if (oldFinalizers === undefined) {
        if (isPlainObject(obj.spec)) delete obj.spec.finalizers;
      } else {
        spec(obj).finalizers = deepClone(oldFinalizers);
      }
    },
    selectableFields: (obj) => ({ ...base.main.selectableFields(obj), 'status.phase': namespacePhase(obj) }),
  };
  const baseStatus = base.subresources.status ?? main;
  const status: Strategy = {
    ...baseStatus,
    canonicalize: main.canonicalize,
    validateUpdate: (obj, old) => [...baseStatus.validateUpdate(obj, old), ...phaseCauses(obj)],
    selectableFields: main.selectableFields,
  };
  const finalize: Strategy = {
    ...main,
    // finalize writes spec.finalizers (the whole spec) and metadata; status stays as stored.
    prepareForUpdate(obj, old) {
      def.validator.applyDefaults(obj);
      if (old.status === undefined) delete obj.status;
      else obj.status = deepClone(old.status);
    },
    validateUpdate: (obj, old) => indexedFinalizerCauses(obj, main.validateUpdate(obj, old)),
  };
  return {
    main,
    subresources: { status, finalize },
    defaultOnRead,
    beforeDelete(existing) {
      const name = metaOf(existing).name ?? '';
      if (IMMORTAL_NAMESPACES.has(name)) {
        throw forbidden({ group: def.group, resource: def.plural }, name, 'this namespace may not be deleted');
      }
      const meta = metaOf(existing);
      if (!meta.deletionTimestamp) {
        const marked = deepClone(existing);
        metaOf(marked).deletionTimestamp = nowRFC3339();
        marked.status = { ...(isPlainObject(existing.status) ? existing.status : {}), phase: 'Terminating' };
        return { action: 'update', obj: marked };
      }
      return specFinalizers(existing).length > 0 ? { action: 'keep' } : { action: 'delete' };
    },
  };
}
