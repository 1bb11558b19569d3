// --feature-gates=Name=true,Other=false, with k8s.io/component-base/featuregate's rules: only
// known gates may be set (an unknown one stops the server at start), values are Go booleans, a
// gate locked to its default cannot be changed, and AllAlpha / AllBeta switch every alpha or
// beta gate that is not set explicitly.

export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureSpec {
  default: boolean;
  stage: FeatureStage;
  /** GA and some deprecated gates can no longer be changed. */
  lockToDefault?: boolean;
}

/**
 * Gates of Kubernetes 1.33 that bear on what this server serves. Gates that the generated
 * resource registry names (ResourceDefinition.featureGate) are added at start-up as well.
 */
export const KNOWN_FEATURE_GATES: Record<string, FeatureSpec> = {
  AnonymousAuthConfigurableEndpoints: { default: true, stage: 'BETA' },
  // GA and locked on in 1.33 (volume populators): a claim's dataSourceRef is always served.
  AnyVolumeDataSource: { default: true, stage: 'GA', lockToDefault: true },
  APIResponseCompression: { default: true, stage: 'BETA' },
  AuthorizeNodeWithSelectors: { default: true, stage: 'BETA' },
  AuthorizeWithSelectors: { default: true, stage: 'BETA' },
  BtreeWatchCache: { default: true, stage: 'BETA' },
  CBORServingAndStorage: { default: false, stage: 'ALPHA' },
  ClusterTrustBundle: { default: false, stage: 'BETA' },
  ClusterTrustBundleProjection: { default: false, stage: 'BETA' },
  ConsistentListFromCache: { default: true, stage: 'BETA' },
  ContainerStopSignals: { default: false, stage: 'ALPHA' },
  CrossNamespaceVolumeDataSource: { default: false, stage: 'ALPHA' },
  DRAAdminAccess: { default: false, stage: 'ALPHA' },
  DRADeviceTaints: { default: false, stage: 'ALPHA' },
  DRAPartitionableDevices: { default: false, stage: 'ALPHA' },
  DRAPrioritizedList: { default: false, stage: 'ALPHA' },
  DRAResourceClaimDeviceStatus: { default: true, stage: 'BETA' },
  DynamicResourceAllocation: { default: false, stage: 'BETA' },
  ImageVolume: { default: false, stage: 'BETA' },
  InPlacePodVerticalScaling: { default: true, stage: 'BETA' },
  ListFromCacheSnapshot: { default: false, stage: 'ALPHA' },
  MatchLabelKeysInPodAffinity: { default: true, stage: 'GA', lockToDefault: true },
  MatchLabelKeysInPodTopologySpread: { default: true, stage: 'BETA' },
  MutableCSINodeAllocatableCount: { default: false, stage: 'ALPHA' },
  MutatingAdmissionPolicy: { default: false, stage: 'ALPHA' },
  NodeInclusionPolicyInPodTopologySpread: { default: true, stage: 'GA', lockToDefault: true },
  OpenAPIEnums: { default: true, stage: 'BETA' },
  // Alpha in 1.33: a pod's own spec.resources (dropped while off), which LimitRanger's Pod items then count instead of its containers'.
  PodLevelResources: { default: false, stage: 'ALPHA' },
  PodLifecycleSleepAction: { default: true, stage: 'BETA' },
  PodObservedGenerationTracking: { default: false, stage: 'ALPHA' },
  PreferSameTrafficDistribution: { default: false, stage: 'ALPHA' },
  ProcMountType: { default: true, stage: 'BETA' },
  // Beta and on in Kubernetes 1.33; the specification calls it alpha, and the specification
  // wins: off until enabled, so a claim's allocatedResources / allocatedResourceStatuses are dropped.
  RecoverVolumeExpansionFailure: { default: false, stage: 'ALPHA' },
  RecursiveReadOnlyMounts: { default: true, stage: 'GA', lockToDefault: true },
  ResilientWatchCacheInitialization: { default: true, stage: 'BETA' },
  ResourceHealthStatus: { default: false, stage: 'ALPHA' },
  RetryGenerateName: { default: true, stage: 'GA', lockToDefault: true },
  SELinuxChangePolicy: { default: true, stage: 'BETA' },
  SeparateCacheWatchRPC: { default: true, stage: 'BETA' },
  SidecarContainers: { default: true, stage: 'GA', lockToDefault: true },
  StorageVersionMigrator: { default: false, stage: 'ALPHA' },
  StructuredAuthenticationConfiguration: { default: true, stage: 'BETA' },
  StructuredAuthorizationConfiguration: { default: true, stage: 'GA', lockToDefault: true },
  SupplementalGroupsPolicy: { default: true, stage: 'BETA' },
  UserNamespacesSupport: { default: true, stage: 'BETA' },
  VolumeAttributesClass: { default: false, stage: 'BETA' },
  // Beta in 1.33 (on there); off here until a user asks for it, so sendInitialEvents is refused as a
  // kube-apiserver with the gate off refuses it and clients fall back to list+watch.
  WatchList: { default: false, stage: 'BETA' },
};

const ALL_ALPHA = 'AllAlpha';
const ALL_BETA = 'AllBeta';

/** Go's strconv.ParseBool. */
function parseGoBool(value: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw new Error(`strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

/** Reads the flag's syntax only; whether the gates exist is FeatureGates' question. */
export function parseFeatureGatesFlag(value: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const piece of value.split(',')) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const key = (eq < 0 ? piece : piece.slice(0, eq)).trim();
    if (eq < 0) throw new Error(`missing bool value for ${key}`);
    const raw = piece.slice(eq + 1).trim();
    try {
      out[key] = parseGoBool(raw);
    } catch (err) {
      throw new Error(`invalid value of ${key}=${raw}, err: ${(err as Error).message}`);
    }
  }
  return out;
}

export class FeatureGates {
  private readonly known: Map<string, FeatureSpec>;
  private readonly explicit = new Map<string, boolean>();

  constructor(known: Record<string, FeatureSpec> = KNOWN_FEATURE_GATES) {
    this.known = new Map(Object.entries(known));
    this.known.set(ALL_ALPHA, { default: false, stage: 'ALPHA' });
    this.known.set(ALL_BETA, { default: false, stage: 'BETA' });
  }

  /** Registers more gates (e.g. from the resource registry); an existing gate keeps its spec. */
  add(specs: Record<string, FeatureSpec>): this {
    for (const [name, spec] of Object.entries(specs)) if (!this.known.has(name)) this.known.set(name, spec);
    return this;
  }

  /** Applies settings; throws on the first unknown or locked gate, with kube-apiserver's message. */
  set(settings: Record<string, boolean>): this {
    for (const [name, value] of Object.entries(settings)) {
      const spec = this.known.get(name);
      if (!spec) throw new Error(`unrecognized feature gate: ${name}`);
      if (spec.lockToDefault && spec.default !== value) {
        throw new Error(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
      }
    }
    for (const [name, value] of Object.entries(settings)) this.explicit.set(name, value);
    return this;
  }

  enabled(name: string): boolean {
    const spec = this.known.get(name);
    if (!spec) throw new Error(`feature ${JSON.stringify(name)} is not registered in FeatureGate`);
    const explicit = this.explicit.get(name);
    if (explicit !== undefined) return explicit;
    if (spec.stage === 'ALPHA' && this.explicit.get(ALL_ALPHA)) return true;
    if (spec.stage === 'BETA' && this.explicit.has(ALL_BETA)) return this.explicit.get(ALL_BETA) as boolean;
    return spec.default;
  }

  isKnown(name: string): boolean {
    return this.known.has(name);
  }

  /** Every gate's effective value, for logs and diagnostics. */
  snapshot(): Record<string, boolean> {
    const out: Record<string, boolean> = {};
    for (const name of [...this.known.keys()].sort()) out[name] = this.enabled(name);
    return out;
  }
}
