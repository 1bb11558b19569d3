// Event, served as core/v1 and as events.k8s.io/v1 over one store of core/v1 objects. Both views
// use this module; it validates the stored form of the object (kube-apiserver validates its
// internal Event, whose field names are core/v1's) with the rules of the version the request came
// through, and offers the field selectors of that version (pkg/registry/core/event/strategy.go
// and the events.k8s.io/v1 field label conversions).

import type { StatusCause } from '../../errors/status-error.js';
import type { ResourceDefinition } from '../definition.js';
import { asObject, asString, metaOf, type KubeObject } from '../../machinery/object.js';
import { defaultStrategies, type ResourceStrategies, type Strategy } from '../strategy.js';
import { toStoredForm } from '../stored-form.js';
import { legacyEventCauses, strictCreateCauses, strictUpdateCauses } from './event-validation.js';

const REFERENCE_KEYS = ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'];

/**
 * The selectable fields, computed on the stored form; `referenceLabel` and `controllerLabel` are
 * the names this version gives the involved object and the reporting controller.
 */
function selectableFields(stored: KubeObject, referenceLabel: string, controllerLabel: string): Record<string, string> {
  const meta = metaOf(stored);
  const involved = asObject(stored.involvedObject);
  const fields: Record<string, string> = { 'metadata.name': meta.name ?? '', 'metadata.namespace': meta.namespace ?? '' };
  for (const key of REFERENCE_KEYS) fields[`${referenceLabel}.${key}`] = asString(involved[key]);
  fields.reason = asString(stored.reason);
  fields[controllerLabel] = asString(stored.reportingComponent);
  // `source` selects by the old source component, or by the reporting controller of new events.
  fields.source = asString(asObject(stored.source).component) || asString(stored.reportingComponent);
  fields.type = asString(stored.type);
  return fields;
}

export function eventStrategies(def: ResourceDefinition): ResourceStrategies {
  const base = defaultStrategies(def);
  const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
  const stored = (obj: KubeObject) => toStoredForm(def, obj, apiVersion);
  // Only requests through core/v1 (and the retired events.k8s.io/v1beta1) get the lenient rules.
  const strict = def.group === 'events.k8s.io';
  const newNames = def.storedAs !== undefined;
  const main: Strategy = {
    ...base.main,
    validate(obj) {
      const event = stored(obj);
      const causes: StatusCause[] = [...base.main.validate(obj), ...legacyEventCauses(event, strict ? 'events.k8s.io' : '')];
      if (strict) causes.push(...strictCreateCauses(event));
      return causes;
    },
    validateUpdate(obj, old) {
      const event = stored(obj);
      const causes: StatusCause[] = [...base.main.validateUpdate(obj, old), ...legacyEventCauses(event, strict ? 'events.k8s.io' : '')];
      if (strict) causes.push(...strictUpdateCauses(event, stored(old)));
      return causes;
    },
    // kube-apiserver's event strategy lets PUT create a missing event.
    allowCreateOnUpdate: () => true,
    selectableFields: (obj) =>
      newNames ? selectableFields(stored(obj), 'regarding', 'reportingController') : selectableFields(obj, 'involvedObject', 'reportingComponent'),
  };
  // Events live for --event-ttl after their last write, in both of their API versions.
  return { ...base, main, timeToLive: (ttls) => ttls.eventTTLMs };
}
