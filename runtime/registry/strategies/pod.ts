// Pod: what kube-apiserver's pod strategy and v1 defaulting do beyond the spec file. On create
// the status is reset to phase Pending with the computed QoS class (and the SchedulingGated
// condition when gates are set), container requests default to their limits, and names and
// mounts are checked across the container lists. Updates through the main resource may change
// only a few spec fields (update.ts); the status subresource keeps the spec, and the
// ephemeralcontainers subresource adds debugging containers only. A pod bound to a
// node terminates gracefully (graceful-delete.ts). Field selectors cover the fields
// kube-apiserver indexes for pods.

import type { StatusCause } from '../../errors/status-error.js';
import { forbidden } from '../../validation/field-errors.js';
import type { ResourceDefinition } from '../definition.js';
import { asObject, asObjectList, asString, isPlainObject, metaOf, type KubeObject } from '../../machinery/object.js';
import { defaultStrategies, type ResourceStrategies, type Strategy } from '../strategy.js';
import { containerListCauses } from './pod/containers.js';
import { resourceRequirementsCauses, validatePodResourceName } from './pod/resource-requirements.js';
import { dropDisabledPodFields, type GateCheck } from './pod/drop-disabled.js';
import { ephemeralClaimNameCauses, ephemeralClaimReferenceCauses, ephemeralClaimSpecCauses } from './pod/ephemeral-claims.js';
import { ephemeralContainersStrategy } from './pod/ephemeral-containers.js';
import { podBeforeDelete } from './pod/graceful-delete.js';
import { projectedPathCauses } from './pod/projected-paths.js';
import { podQOSClass } from './pod/qos.js';
import { keepStatusWriteInvariants } from './pod/status-prepare.js';
import { podStatusCauses } from './pod/status.js';
import { podSpecUpdateCauses } from './pod/update.js';
import { volumeSourceOrder, withoutUnvalidatedSources } from './pod/volume-sources.js';
import { hasMember, setMember } from '../../machinery/own-member.js';

type Obj = Record<string, unknown>;

/** SetDefaults_Pod: a container that limits a resource and does not request it requests the limit. */
function defaultRequestsFromLimits(spec: Obj): void {
  for (const c of [...asObjectList(spec.containers), ...asObjectList(spec.initContainers)]) {
    const resources = asObject(c.resources);
    const limits = asObject(resources.limits);
    if (!Object.keys(limits).length) continue;
    const requests = asObject(resources.requests);
    for (const [name, value] of Object.entries(limits)) if (!hasMember(requests, name)) setMember(requests, name, value);
    resources.requests = requests;
    c.resources = resources;
  }
}

/** The status a new pod starts with, whatever the creator sent. */
function initialStatus(spec: Obj): Obj {
  const status: Obj = { phase: 'Pending', qosClass: podQOSClass(spec) };
  if (asObjectList(spec.schedulingGates).length) {
    status.conditions = [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }];
  }
  return status;
}

export function podSelectableFields(obj_: KubeObject): Record<string, string> {
  const meta = metaOf(obj_);
  const spec = asObject(obj_.spec);
  const status = asObject(obj_.status);
  return {
    'metadata.name': meta.name ?? '',
    'metadata.namespace': meta.namespace ?? '',
    'spec.nodeName': asString(spec.nodeName),
    'spec.restartPolicy': asString(spec.restartPolicy),
    'spec.schedulerName': asString(spec.schedulerName),
    'spec.serviceAccountName': asString(spec.serviceAccountName),
    'spec.hostNetwork': spec.hostNetwork === true ? 'true' : 'false',
    'status.phase': asString(status.phase),
    'status.podIP': asString(status.podIP),
    'status.nominatedNodeName': asString(status.nominatedNodeName),
  };
}

/** validatePodResources' requirements (PodLevelResources): the field is only present when the gate is on or the pod had it. */
function podLevelResourceCauses(spec: Obj): StatusCause[] {
  return isPlainObject(spec.resources) ? resourceRequirementsCauses(spec.resources, 'spec.resources', validatePodResourceName) : [];
}

/** ValidatePodCreate: ephemeral containers are added later, through their subresource. */
function createOnlyCauses(o: KubeObject): StatusCause[] {
  return asObjectList(asObject(o.spec).ephemeralContainers).length ? [forbidden('spec.ephemeralContainers', 'cannot be set on create')] : [];
}

export function podStrategies(def: ResourceDefinition, enabled: GateCheck): ResourceStrategies {
  const base = defaultStrategies(def);
  const sources = volumeSourceOrder(def.validator);
  const podCauses = (o: KubeObject): StatusCause[] => [
    // The template's claim spec is validated before the claim name, as validateVolumeSource does.
    ...ephemeralClaimSpecCauses(asObject(o.spec)),
    ...ephemeralClaimNameCauses(metaOf(o).name, asObject(o.spec), sources),
    ...ephemeralClaimReferenceCauses(metaOf(o).name, asObject(o.spec)),
    ...projectedPathCauses(asObject(o.spec)),
    ...containerListCauses(asObject(o.spec)),
    ...podLevelResourceCauses(asObject(o.spec)),
  ];
  // The module's own volume causes join the validator's before kube's per-volume order is settled
  // (a volume with a faulty projected path is no longer a candidate for Duplicate, for instance).
  const settled = (o: KubeObject, causes: StatusCause[]): StatusCause[] => def.validator.arrangeElementCauses(o, withoutUnvalidatedSources(asObject(o.spec), causes, sources));
  const validate = (o: KubeObject): StatusCause[] => settled(o, [...base.main.validate(o), ...podCauses(o), ...createOnlyCauses(o)]);
  const main: Strategy = {
    ...base.main,
    applyDefaults(o) {
      def.validator.applyDefaults(o);
      if (isPlainObject(o.spec)) defaultRequestsFromLimits(o.spec);
    },
    prepareForCreate(o) {
      base.main.prepareForCreate(o);
      if (isPlainObject(o.spec)) defaultRequestsFromLimits(o.spec);
      o.status = initialStatus(asObject(o.spec));
      dropDisabledPodFields(o, undefined, enabled);
    },
    validate,
    prepareForUpdate(o, old) {
      base.main.prepareForUpdate(o, old);
      if (isPlainObject(o.spec)) defaultRequestsFromLimits(o.spec);
      dropDisabledPodFields(o, old, enabled);
    },
    validateUpdate: (o, old) => settled(o, [...base.main.validateUpdate(o, old), ...podCauses(o), ...podSpecUpdateCauses(o.spec, old.spec)]),
    selectableFields: podSelectableFields,
  };
  const baseStatus = base.subresources.status as Strategy;
  const status: Strategy = {
    ...baseStatus,
    prepareForUpdate(o, old) {
      baseStatus.prepareForUpdate(o, old);
      keepStatusWriteInvariants(o, old);
      dropDisabledPodFields(o, old, enabled);
    },
    validateUpdate: (o, old) => [...baseStatus.validateUpdate(o, old), ...podStatusCauses(o.status, old)],
    selectableFields: podSelectableFields,
  };
  // validateUpdate of the main strategy without its spec-update rule: this subresource changes the spec.
  const validateWrite = (o: KubeObject, old: KubeObject): StatusCause[] =>
    settled(o, [...def.validator.validateUpdate(o, old), ...podCauses(o)]);
  const ephemeral = ephemeralContainersStrategy(main, (o) => def.validator.applyDefaults(o), validateWrite);
  const ephemeralcontainers: Strategy = {
    ...ephemeral,
    prepareForUpdate(o, old) {
      ephemeral.prepareForUpdate(o, old);
      dropDisabledPodFields(o, old, enabled);
    },
  };
  // The module drops gated fields itself, by kube's per-feature rules (pod/drop-disabled.ts).
  return { main, subresources: { status, ephemeralcontainers }, beforeDelete: podBeforeDelete, dropsDisabledFields: true };
}
