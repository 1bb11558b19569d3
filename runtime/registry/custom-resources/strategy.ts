// kube's customResourceStrategy and its status strategy (apiextensions-apiserver
// pkg/registry/customresource/strategy.go, status_strategy.go). With the status subresource, the
// main endpoint drops status on create and keeps the stored status on update, and the status
// endpoint changes nothing but status (metadata included: all of it is the stored object's).
// Any change outside metadata bumps metadata.generation, so status writes through the main
// endpoint of a kind without the subresource bump it too.

import { deepClone, deepEqual, metaOf, type KubeObject } from '../../machinery/object.js';
import { setMember } from '../../machinery/own-member.js';
import { customResourceSelectableFields } from '../crd-selectable-fields.js';
import { scaleSpecCauses, scaleStatusCauses } from '../crd-scale.js';
import type { ResourceDefinition } from '../definition.js';
import { defaultStrategy, hasStatusSubresource, type ResourceStrategies, type Strategy } from '../strategy.js';

function nonMetadata(obj: KubeObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) if (key !== 'metadata') setMember(out, key, value);
  return out;
}

function bumpGenerationOnChange(obj: KubeObject, old: KubeObject): void {
  const generation = metaOf(old).generation ?? 0;
  if (!deepEqual(nonMetadata(obj), nonMetadata(old))) metaOf(obj).generation = generation + 1;
  else if (metaOf(old).generation === undefined) delete metaOf(obj).generation;
  else metaOf(obj).generation = generation;
}

export function customResourceStrategies(def: ResourceDefinition): ResourceStrategies {
  const base = defaultStrategy(def);
  const withStatus = hasStatusSubresource(def);
  const scale = def.subresources.find((s) => s.name === 'scale')?.scale;
  const main: Strategy = {
    ...base,
    validate: (obj) => [...base.validate(obj), ...scaleSpecCauses(obj, scale), ...scaleStatusCauses(obj, scale)],
    validateUpdate: (obj, old) => [...base.validateUpdate(obj, old), ...scaleSpecCauses(obj, scale), ...scaleStatusCauses(obj, scale)],
    selectableFields: customResourceSelectableFields(def.namespaced, def.selectableFields),
    prepareForCreate(obj) {
      if (withStatus) delete obj.status;
      def.validator.applyDefaults(obj);
      metaOf(obj).generation = 1;
    },
    prepareForUpdate(obj, old) {
      def.validator.applyDefaults(obj);
      if (withStatus) {
        if (old.status === undefined) delete obj.status;
        else obj.status = deepClone(old.status);
      }
      bumpGenerationOnChange(obj, old);
    },
  };
  const subresources: Record<string, Strategy> = {};
  if (withStatus) {
    subresources.status = {
      ...main,
      // A status write is checked for the status scale paths only (ValidateStatusUpdate).
      validateUpdate: (obj, old) => [...base.validateUpdate(obj, old), ...scaleStatusCauses(obj, scale)],
      prepareForUpdate(obj, old) {
        const status = obj.status;
        const { resourceVersion, managedFields } = metaOf(obj);
        for (const key of Object.keys(obj)) delete obj[key];
        for (const [key, value] of Object.entries(deepClone(old))) setMember(obj, key, value);
        const meta = metaOf(obj);
        meta.resourceVersion = resourceVersion;
        if (managedFields === undefined) delete meta.managedFields;
        else meta.managedFields = managedFields;
        if (status === undefined) delete obj.status;
        else obj.status = status;
        def.validator.applyDefaults(obj);
      },
    };
  }
  // Scale writes change the custom resource through its own strategy, as kube's ScaleREST does.
  if (scale) subresources.scale = main;
  // kube's storage codec for custom resources runs the structural defaulter on every object it
  // reads, so objects stored before a default was added to the schema are read with it.
  const defaultOnRead = (obj: KubeObject): void => def.validator.applyDefaults(obj);
  return { main, subresources, defaultOnRead };
}
