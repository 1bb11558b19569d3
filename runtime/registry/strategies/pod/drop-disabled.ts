// kube-apiserver's DropDisabledPodFields (Kubernetes 1.33): a Pod field behind a feature gate that
// is off is cleared on every write, unless the stored pod already uses the feature. Unlike the
// generic per-field rule (runtime/validation/drop-disabled.ts), kube decides "in use" per feature
// and looks only at some of its fields: a pod that has spec.resourceClaims keeps the containers'
// resources.claims too, and status fields never count. Some drops do more than clear a field: an
// image volume goes away with the mounts that name it, and procMount falls back to Default. The
// fields each rule clears carry `featureGate:` in api-specs/core/pod.yaml.

import { asObject, asObjectList, isPlainObject, isSet } from '../../../machinery/object.js';

type Obj = Record<string, unknown>;

/** Whether a feature gate is on. */
export type GateCheck = (gate: string) => boolean;

export interface PodFeatureRule {
  gate: string;
  /** The fields the rule clears, as `Type.field` of the spec file (checked against its markers). */
  fields: string[];
  /** Whether the stored pod uses the feature, so that an update keeps it. */
  inUse(old: Obj): boolean;
  /** Clears the feature's fields, in place. */
  drop(pod: Obj): void;
}

const specOf = (pod: Obj): Obj => asObject(pod.spec);
const statusOf = (pod: Obj): Obj => asObject(pod.status);

function containersOf(pod: Obj, lists = ['initContainers', 'containers', 'ephemeralContainers']): Obj[] {
  const spec = specOf(pod);
  return lists.flatMap((list) => (Array.isArray(spec[list]) ? spec[list].filter(isPlainObject) : []));
}

function containerStatusesOf(pod: Obj): Obj[] {
  const status = statusOf(pod);
  return ['initContainerStatuses', 'containerStatuses', 'ephemeralContainerStatuses'].flatMap((list) =>
    Array.isArray(status[list]) ? status[list].filter(isPlainObject) : [],
  );
}

const nonEmpty = (v: unknown): boolean => (Array.isArray(v) ? v.length > 0 : isPlainObject(v) && Object.keys(v).length > 0);

function podAffinityTerms(pod: Obj): Obj[] {
  const affinity = asObject(specOf(pod).affinity);
  return [affinity.podAffinity, affinity.podAntiAffinity].flatMap((a) => {
    const terms = asObject(a);
    return [
      ...asObjectList(terms.requiredDuringSchedulingIgnoredDuringExecution),
      ...asObjectList(terms.preferredDuringSchedulingIgnoredDuringExecution).map((w) => asObject(w.podAffinityTerm)),
    ];
  });
}

function projectedSources(pod: Obj): Obj[] {
  return asObjectList(specOf(pod).volumes).flatMap((v) => asObjectList(asObject(v.projected).sources));
}

function clear(holders: Obj[], field: string): void {
  for (const h of holders) delete h[field];
}

const podSecurityContext = (pod: Obj): Obj[] => (isPlainObject(specOf(pod).securityContext) ? [specOf(pod).securityContext as Obj] : []);
const containerSecurityContexts = (pod: Obj): Obj[] => containersOf(pod).map((c) => c.securityContext).filter(isPlainObject);
const lifecycles = (pod: Obj): Obj[] => containersOf(pod).map((c) => c.lifecycle).filter(isPlainObject);
const volumeMounts = (pod: Obj): Obj[] => containersOf(pod).flatMap((c) => asObjectList(c.volumeMounts));

/** A container's lifecycle left with nothing in it is removed, as kube resets it to nil. */
function dropEmptyLifecycles(pod: Obj): void {
  for (const c of containersOf(pod)) if (isPlainObject(c.lifecycle) && Object.keys(c.lifecycle).length === 0) delete c.lifecycle;
}

/** Removes image volumes and every mount that names one. */
function dropImageVolumes(pod: Obj): void {
  const spec = specOf(pod);
  if (!Array.isArray(spec.volumes)) return;
  const names = new Set<unknown>();
  spec.volumes = spec.volumes.filter((v) => {
    if (isPlainObject(v) && isSet(v.image)) {
      names.add(v.name);
      return false;
    }
    return true;
  });
  for (const c of containersOf(pod)) {
    if (Array.isArray(c.volumeMounts)) c.volumeMounts = c.volumeMounts.filter((m) => !(isPlainObject(m) && names.has(m.name)));
  }
}

/** The rules of dropDisabledFields and dropDisabledPodStatusFields, in kube's order. */
export const POD_FEATURE_RULES: PodFeatureRule[] = [
  {
    gate: 'UserNamespacesSupport',
    // In v1 hostUsers sits on the spec (kube's internal type keeps it in the security context).
    fields: ['PodSpec.hostUsers'],
    inUse: (old) => isSet(specOf(old).hostUsers),
    drop: (pod) => clear([specOf(pod)], 'hostUsers'),
  },
  {
    gate: 'SupplementalGroupsPolicy',
    fields: ['PodSecurityContext.supplementalGroupsPolicy', 'ContainerStatus.user'],
    inUse: (old) => podSecurityContext(old).some((s) => isSet(s.supplementalGroupsPolicy)),
    drop: (pod) => {
      clear(podSecurityContext(pod), 'supplementalGroupsPolicy');
      clear(containerStatusesOf(pod), 'user');
    },
  },
  {
    gate: 'PodLevelResources',
    fields: ['PodSpec.resources'],
    // Only requests or limits count: an empty resources object is not a use.
    inUse: (old) => nonEmpty(asObject(specOf(old).resources).requests) || nonEmpty(asObject(specOf(old).resources).limits),
    drop: (pod) => clear([specOf(pod)], 'resources'),
  },
  {
    gate: 'ProcMountType',
    fields: ['SecurityContext.procMount'],
    // Old clients wrote procMount: Default everywhere, so a set field is reset to Default, not removed.
    inUse: (old) => containerSecurityContexts(old).some((s) => isSet(s.procMount) && s.procMount !== 'Default'),
    drop: (pod) => {
      for (const s of containerSecurityContexts(pod)) if (isSet(s.procMount)) s.procMount = 'Default';
    },
  },
  {
    gate: 'NodeInclusionPolicyInPodTopologySpread',
    fields: ['TopologySpreadConstraint.nodeAffinityPolicy', 'TopologySpreadConstraint.nodeTaintsPolicy'],
    // kube decides for each of the two fields on its own; both are GA and locked on in 1.33.
    inUse: (old) => asObjectList(specOf(old).topologySpreadConstraints).some((c) => isSet(c.nodeAffinityPolicy) || isSet(c.nodeTaintsPolicy)),
    drop: (pod) => {
      const constraints = asObjectList(specOf(pod).topologySpreadConstraints);
      clear(constraints, 'nodeAffinityPolicy');
      clear(constraints, 'nodeTaintsPolicy');
    },
  },
  {
    gate: 'MatchLabelKeysInPodTopologySpread',
    fields: ['TopologySpreadConstraint.matchLabelKeys'],
    inUse: (old) => asObjectList(specOf(old).topologySpreadConstraints).some((c) => nonEmpty(c.matchLabelKeys)),
    drop: (pod) => clear(asObjectList(specOf(pod).topologySpreadConstraints), 'matchLabelKeys'),
  },
  {
    gate: 'MatchLabelKeysInPodAffinity',
    fields: ['PodAffinityTerm.matchLabelKeys', 'PodAffinityTerm.mismatchLabelKeys'],
    inUse: (old) => podAffinityTerms(old).some((t) => nonEmpty(t.matchLabelKeys) || nonEmpty(t.mismatchLabelKeys)),
    drop: (pod) => {
      const terms = podAffinityTerms(pod);
      clear(terms, 'matchLabelKeys');
      clear(terms, 'mismatchLabelKeys');
    },
  },
  {
    gate: 'DynamicResourceAllocation',
    fields: ['PodSpec.resourceClaims', 'ResourceRequirements.claims', 'PodStatus.resourceClaimStatuses'],
    // Containers may only name claims of spec.resourceClaims, so kube looks at that list alone.
    inUse: (old) => nonEmpty(specOf(old).resourceClaims),
    drop: (pod) => {
      clear(containersOf(pod).map((c) => c.resources).filter(isPlainObject), 'claims');
      clear([specOf(pod)], 'resourceClaims');
      clear([statusOf(pod)], 'resourceClaimStatuses');
    },
  },
  {
    gate: 'ClusterTrustBundleProjection',
    fields: ['VolumeProjection.clusterTrustBundle'],
    inUse: (old) => projectedSources(old).some((s) => isSet(s.clusterTrustBundle)),
    // Only the member goes: the projected source stays, as kube leaves it (then empty).
    drop: (pod) => clear(projectedSources(pod), 'clusterTrustBundle'),
  },
  {
    gate: 'InPlacePodVerticalScaling',
    fields: ['Container.resizePolicy', 'EphemeralContainerCommon.resizePolicy', 'ContainerStatus.resources', 'ContainerStatus.allocatedResources'],
    // Ephemeral containers do not count towards "in use", though theirs are dropped too.
    inUse: (old) => containersOf(old, ['initContainers', 'containers']).some((c) => nonEmpty(c.resizePolicy)),
    drop: (pod) => {
      clear(containersOf(pod), 'resizePolicy');
      clear(containerStatusesOf(pod), 'resources');
      clear(containerStatusesOf(pod), 'allocatedResources');
    },
  },
  {
    gate: 'SidecarContainers',
    fields: ['Container.restartPolicy'],
    // Only init containers' restartPolicy; on other containers validation refuses it.
    inUse: (old) => containersOf(old, ['initContainers']).some((c) => c.restartPolicy === 'Always'),
    drop: (pod) => clear(containersOf(pod, ['initContainers']), 'restartPolicy'),
  },
  {
    gate: 'RecursiveReadOnlyMounts',
    fields: ['VolumeMount.recursiveReadOnly', 'ContainerStatus.volumeMounts'],
    inUse: (old) => volumeMounts(old).some((m) => isSet(m.recursiveReadOnly)),
    drop: (pod) => {
      clear(volumeMounts(pod), 'recursiveReadOnly');
      clear(containerStatusesOf(pod), 'volumeMounts');
    },
  },
  {
    gate: 'PodLifecycleSleepAction',
    fields: ['LifecycleHandler.sleep'],
    inUse: (old) => lifecycles(old).some((l) => isSet(asObject(l.preStop).sleep) || isSet(asObject(l.postStart).sleep)),
    drop: (pod) => {
      for (const l of lifecycles(pod)) {
        for (const hook of ['preStop', 'postStart']) {
          const handler = l[hook];
          if (!isPlainObject(handler) || !isSet(handler.sleep)) continue;
          delete handler.sleep;
          // A hook whose only action was the sleep is removed with it.
          if (!isSet(handler.exec) && !isSet(handler.httpGet) && !isSet(handler.tcpSocket)) delete l[hook];
        }
      }
      dropEmptyLifecycles(pod);
    },
  },
  {
    gate: 'ImageVolume',
    fields: ['VolumeSource.image'],
    inUse: (old) => asObjectList(specOf(old).volumes).some((v) => isSet(v.image)),
    drop: dropImageVolumes,
  },
  {
    gate: 'SELinuxChangePolicy',
    fields: ['PodSecurityContext.seLinuxChangePolicy'],
    inUse: (old) => podSecurityContext(old).some((s) => isSet(s.seLinuxChangePolicy)),
    drop: (pod) => clear(podSecurityContext(pod), 'seLinuxChangePolicy'),
  },
  {
    gate: 'ContainerStopSignals',
    fields: ['Lifecycle.stopSignal'],
    inUse: (old) => lifecycles(old).some((l) => isSet(l.stopSignal)),
    drop: (pod) => {
      clear(lifecycles(pod), 'stopSignal');
      dropEmptyLifecycles(pod);
    },
  },
  {
    gate: 'ResourceHealthStatus',
    fields: ['ContainerStatus.allocatedResourcesStatus'],
    // kube drops it whenever the gate is off, whatever the stored pod holds.
    inUse: () => false,
    drop: (pod) => clear(containerStatusesOf(pod), 'allocatedResourcesStatus'),
  },
  {
    gate: 'PodObservedGenerationTracking',
    fields: ['PodStatus.observedGeneration', 'PodCondition.observedGeneration'],
    // The one rule whose "in use" reads the stored status.
    inUse: (old) => (isSet(statusOf(old).observedGeneration) && statusOf(old).observedGeneration !== 0) || asObjectList(statusOf(old).conditions).some((c) => isSet(c.observedGeneration) && c.observedGeneration !== 0),
    drop: (pod) => {
      clear([statusOf(pod)], 'observedGeneration');
      clear(asObjectList(statusOf(pod).conditions), 'observedGeneration');
    },
  },
];

/** Clears, in place, the fields of every feature that is off and that `old` (on update) does not use. */
export function dropDisabledPodFields(pod: Obj, old: Obj | undefined, enabled: GateCheck): void {
  const off = POD_FEATURE_RULES.filter((r) => !enabled(r.gate) && !(old && r.inUse(old)));
  for (const rule of off) rule.drop(pod);
}
