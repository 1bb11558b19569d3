// Namespace: a lifecycle no schema can state. On create the phase is Active and the `kubernetes`
// finalizer is put into spec.finalizers; spec.finalizers changes only through the `finalize`
// subresource. A delete first marks the namespace (deletionTimestamp, phase Terminating); it is
// removed only once spec.finalizers is empty (see namespace-deleter.ts for who empties it).

import { forbidden } from '../../errors/status-error.js';
import type { ResourceDefinition } from '../definition.js';
import { deepClone, isPlainObject, metaOf, nowRFC3339, type KubeObject } from '../object.js';
import { defaultStrategies, type ResourceStrategies, type Strategy } from '../strategy.js';

export const FINALIZER_KUBERNETES = 'kubernetes';
/** Namespaces NamespaceLifecycle admission refuses to delete. */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

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
      obj.status = { phase: 'Active' };
      const finalizers = specFinalizers(obj);
      if (!finalizers.includes(FINALIZER_KUBERNETES)) spec(obj).finalizers = [...finalizers, FINALIZER_KUBERNETES];
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
  const status: Strategy = { ...(base.subresources.status ?? main), selectableFields: main.selectableFields };
  const finalize: Strategy = {
    ...main,
    // finalize writes spec.finalizers (the whole spec) and metadata; status stays as stored.
    prepareForUpdate(obj, old) {
      def.validator.applyDefaults(obj);
      if (old.status === undefined) delete obj.status;
      else obj.status = deepClone(old.status);
    },
  };
  return {
    main,
    subresources: { status, finalize },
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
