// --feature-gates=Name=true,Other=false, with k8s.io/component-base/featuregate's rules: only
// known gates may be set (an unknown one stops the server at start), values are Go booleans, a
// gate locked to its default cannot be changed, setting a GA or deprecated gate is allowed but
// warned about, and AllAlpha / AllBeta switch every alpha or beta gate that is not set explicitly.
//
// Each gate carries its history as kube's VersionedSpecs do (pkg/features/
// versioned_kube_features.go): the stage, default and lock it had from each release on. The
// server is kube-apiserver 1.33, so the entry in force is the last one at or before 1.33.

/** The release this server speaks for: gates are read at this version. */
export const SERVER_VERSION = '1.33';

export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureSpec {
  default: boolean;
  stage: FeatureStage;
  /** The release from which this spec holds; absent for gates registered without a history. */
  since?: string;
  /** GA and some deprecated gates can no longer be changed. */
  lockToDefault?: boolean;
}

/** One step of a gate's history: from `since` on, the gate has this stage, default and lock. */
export interface VersionedFeatureSpec extends FeatureSpec {
  since: string;
}

type Step = [since: string, stage: FeatureStage, dflt: boolean, lock?: 'locked'];

function history(...steps: Step[]): VersionedFeatureSpec[] {
  return steps.map(([since, stage, dflt, lock]) => ({ since, stage, default: dflt, ...(lock ? { lockToDefault: true } : {}) }));
}

/**
 * Gates of Kubernetes that bear on what this server serves, each with its history up to 1.33
 * as kube records it. Gates that the generated resource registry names
 * (ResourceDefinition.featureGate) and no entry here covers are added at start-up as well.
 */
export const KNOWN_FEATURE_GATES: Record<string, VersionedFeatureSpec[]> = {
  AnonymousAuthConfigurableEndpoints: history(['1.31', 'ALPHA', false], ['1.32', 'BETA', true]),
  // Volume populators: a claim's dataSourceRef is always served.
  AnyVolumeDataSource: history(['1.18', 'ALPHA', false], ['1.24', 'BETA', true], ['1.33', 'GA', true, 'locked']),
  APIResponseCompression: history(['1.8', 'ALPHA', false], ['1.16', 'BETA', true]),
  AuthorizeNodeWithSelectors: history(['1.31', 'ALPHA', false], ['1.32', 'BETA', true]),
  AuthorizeWithSelectors: history(['1.31', 'ALPHA', false], ['1.32', 'BETA', true]),
  BtreeWatchCache: history(['1.32', 'BETA', true], ['1.33', 'GA', true, 'locked']),
  CBORServingAndStorage: history(['1.32', 'ALPHA', false]),
  ClusterTrustBundle: history(['1.27', 'ALPHA', false], ['1.33', 'BETA', false]),
  ClusterTrustBundleProjection: history(['1.29', 'ALPHA', false], ['1.33', 'BETA', false]),
  ConsistentListFromCache: history(['1.28', 'ALPHA', false], ['1.31', 'BETA', true]),
  ContainerStopSignals: history(['1.33', 'ALPHA', false]),
  CrossNamespaceVolumeDataSource: history(['1.26', 'ALPHA', false]),
  DRAAdminAccess: history(['1.32', 'ALPHA', false]),
  DRADeviceTaints: history(['1.33', 'ALPHA', false]),
  DRAPartitionableDevices: history(['1.33', 'ALPHA', false]),
  DRAPrioritizedList: history(['1.33', 'ALPHA', false]),
  DRAResourceClaimDeviceStatus: history(['1.32', 'ALPHA', false], ['1.33', 'BETA', true]),
  // Hand-written checks of rules a spec also declares: both run and are compared while on;
  // with DeclarativeValidationTakeover the declared rules decide (runtime/registry/declarative.ts).
  DeclarativeValidation: history(['1.33', 'BETA', true]),
  DeclarativeValidationTakeover: history(['1.33', 'BETA', false]),
  DynamicResourceAllocation: history(['1.26', 'ALPHA', false], ['1.32', 'BETA', false]),
  ImageVolume: history(['1.31', 'ALPHA', false], ['1.33', 'BETA', false]),
  InPlacePodVerticalScaling: history(['1.27', 'ALPHA', false], ['1.33', 'BETA', true]),
  ListFromCacheSnapshot: history(['1.33', 'ALPHA', false]),
  MatchLabelKeysInPodAffinity: history(['1.29', 'ALPHA', false], ['1.31', 'BETA', true], ['1.33', 'GA', true, 'locked']),
  MatchLabelKeysInPodTopologySpread: history(['1.25', 'ALPHA', false], ['1.27', 'BETA', true]),
  MutableCSINodeAllocatableCount: history(['1.33', 'ALPHA', false]),
  MutatingAdmissionPolicy: history(['1.30', 'ALPHA', false]),
  NodeInclusionPolicyInPodTopologySpread: history(['1.25', 'ALPHA', false], ['1.26', 'BETA', true], ['1.33', 'GA', true, 'locked']),
  OpenAPIEnums: history(['1.23', 'ALPHA', false], ['1.24', 'BETA', true]),
  // A pod's own spec.resources (dropped while off), which LimitRanger's Pod items then count instead of its containers'.
  PodLevelResources: history(['1.32', 'ALPHA', false]),
  PodLifecycleSleepAction: history(['1.29', 'ALPHA', false], ['1.30', 'BETA', true]),
  PodObservedGenerationTracking: history(['1.33', 'ALPHA', false]),
  PreferSameTrafficDistribution: history(['1.33', 'ALPHA', false]),
  ProcMountType: history(['1.12', 'ALPHA', false], ['1.31', 'BETA', false], ['1.33', 'BETA', true]),
  // Beta and on from 1.32 in Kubernetes; the specification calls it alpha, and the specification
  // wins (DESIGN.md): off until enabled, so a claim's allocatedResources / allocatedResourceStatuses
  // are dropped. The one entry here that departs from kube's history.
  RecoverVolumeExpansionFailure: history(['1.23', 'ALPHA', false]),
  RecursiveReadOnlyMounts: history(['1.30', 'ALPHA', false], ['1.31', 'BETA', true], ['1.33', 'GA', true, 'locked']),
  ResilientWatchCacheInitialization: history(['1.31', 'BETA', true]),
  ResourceHealthStatus: history(['1.31', 'ALPHA', false]),
  RetryGenerateName: history(['1.30', 'ALPHA', false], ['1.31', 'BETA', true], ['1.32', 'GA', true, 'locked']),
  SELinuxChangePolicy: history(['1.32', 'ALPHA', false], ['1.33', 'BETA', true]),
  SeparateCacheWatchRPC: history(['1.28', 'BETA', true], ['1.33', 'DEPRECATED', false]),
  ServiceAccountNodeAudienceRestriction: history(['1.32', 'BETA', false], ['1.33', 'BETA', true]),
  SidecarContainers: history(['1.28', 'ALPHA', false], ['1.29', 'BETA', true], ['1.33', 'GA', true, 'locked']),
  StorageVersionMigrator: history(['1.30', 'ALPHA', false]),
  StructuredAuthenticationConfiguration: history(['1.29', 'ALPHA', false], ['1.30', 'BETA', true]),
  StructuredAuthorizationConfiguration: history(['1.29', 'ALPHA', false], ['1.30', 'BETA', true], ['1.32', 'GA', true, 'locked']),
  SupplementalGroupsPolicy: history(['1.31', 'ALPHA', false], ['1.33', 'BETA', true]),
  UserNamespacesSupport: history(['1.25', 'ALPHA', false], ['1.30', 'BETA', false], ['1.33', 'BETA', true]),
  VolumeAttributesClass: history(['1.29', 'ALPHA', false], ['1.31', 'BETA', false]),
  // Beta and on in 1.32, switched back off in 1.33 (kube found its streaming encoders better):
  // sendInitialEvents is refused as a kube-apiserver with the gate off refuses it, and clients
  // fall back to list+watch.
  WatchList: history(['1.27', 'ALPHA', false], ['1.32', 'BETA', true], ['1.33', 'BETA', false]),
};

/** Compares two "major.minor" versions numerically. */
function compareVersions(a: string, b: string): number {
  const [am, an] = a.split('.').map(Number);
  const [bm, bn] = b.split('.').map(Number);
  return am - bm || an - bn;
}

/** The spec in force at `version`: the last step at or before it; undefined when the gate is younger. */
export function featureSpecAt(steps: readonly VersionedFeatureSpec[], version: string = SERVER_VERSION): FeatureSpec | undefined {
  let found: FeatureSpec | undefined;
  for (const step of [...steps].sort((x, y) => compareVersions(x.since, y.since))) {
    if (compareVersions(step.since, version) <= 0) found = step;
  }
  return found;
}

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
  private readonly known = new Map<string, FeatureSpec>();
  private readonly explicit = new Map<string, boolean>();

  constructor(known: Record<string, readonly VersionedFeatureSpec[]> = KNOWN_FEATURE_GATES, version: string = SERVER_VERSION) {
    for (const [name, steps] of Object.entries(known)) {
      // A gate introduced after the server's release does not exist for it.
      const spec = featureSpecAt(steps, version);
      if (spec) this.known.set(name, spec);
    }
    this.known.set(ALL_ALPHA, { default: false, stage: 'ALPHA' });
    this.known.set(ALL_BETA, { default: false, stage: 'BETA' });
  }

  /** Registers more gates (e.g. from the resource registry); an existing gate keeps its spec. */
  add(specs: Record<string, FeatureSpec>): this {
    for (const [name, spec] of Object.entries(specs)) if (!this.known.has(name)) this.known.set(name, spec);
    return this;
  }

  /**
   * Applies settings; throws on the first unknown or locked gate, with kube-apiserver's message,
   * and then changes nothing. Setting a GA or deprecated gate passes kube's warning to `warn`.
   */
  set(settings: Record<string, boolean>, warn: (message: string) => void = () => {}): this {
    const warnings: string[] = [];
    for (const [name, value] of Object.entries(settings)) {
      const spec = this.known.get(name);
      if (!spec) throw new Error(`unrecognized feature gate: ${name}`);
      if (spec.lockToDefault && spec.default !== value) {
        throw new Error(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
      }
      if (spec.stage === 'DEPRECATED') warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
      else if (spec.stage === 'GA') warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
    }
    for (const [name, value] of Object.entries(settings)) this.explicit.set(name, value);
    for (const message of warnings) warn(message);
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

  spec(name: string): FeatureSpec | undefined {
    return this.known.get(name);
  }

  /** Every gate's effective value, for logs and diagnostics. */
  snapshot(): Record<string, boolean> {
    const out: Record<string, boolean> = {};
    for (const name of [...this.known.keys()].sort()) out[name] = this.enabled(name);
    return out;
  }

  /**
   * The options `--help` lists, as kube's KnownFeatures: `Name=true|false (STAGE - default=x)`,
   * sorted; GA and deprecated gates are left out, since they are on their way out.
   */
  knownFeatures(): string[] {
    const out: string[] = [];
    for (const [name, spec] of this.known) {
      if (spec.stage === 'GA' || spec.stage === 'DEPRECATED') continue;
      out.push(`${name}=true|false (${spec.stage} - default=${spec.default})`);
    }
    return out.sort();
  }
}
