import { describe, expect, it } from 'vitest';
import { FeatureGates, featureSpecAt, KNOWN_FEATURE_GATES, SERVER_VERSION } from '../../runtime/server/feature-gates.js';
import { USAGE } from '../../runtime/server/flags.js';
import { startServer } from '../../runtime/index.js';

// kube 1.33's values, read off each gate's versioned specs (pkg/features/versioned_kube_features.go
// and k8s.io/apiserver/pkg/features/kube_features.go): stage, default, locked.
const KUBE_1_33: [string, string, boolean, boolean][] = [
  ['AnyVolumeDataSource', 'GA', true, true],
  ['BtreeWatchCache', 'GA', true, true],
  ['ConsistentListFromCache', 'BETA', true, false],
  ['DeclarativeValidation', 'BETA', true, false],
  ['DeclarativeValidationTakeover', 'BETA', false, false],
  ['DynamicResourceAllocation', 'BETA', false, false],
  ['InPlacePodVerticalScaling', 'BETA', true, false],
  ['ProcMountType', 'BETA', true, false],
  ['RetryGenerateName', 'GA', true, true],
  ['SeparateCacheWatchRPC', 'DEPRECATED', false, false],
  ['SidecarContainers', 'GA', true, true],
  ['StructuredAuthorizationConfiguration', 'GA', true, true],
  ['UserNamespacesSupport', 'BETA', true, false],
  ['VolumeAttributesClass', 'BETA', false, false],
  ['WatchList', 'BETA', false, false],
];

describe('the versioned gate table', () => {
  it.each(KUBE_1_33)('%s is %s, default %s, locked %s at 1.33', (name, stage, dflt, locked) => {
    const spec = new FeatureGates().spec(name);
    expect(spec).toMatchObject({ stage, default: dflt });
    expect(spec?.lockToDefault ?? false).toBe(locked);
  });

  it('reads a history at any release: the last step at or before it, nothing before the first', () => {
    const watchList = KNOWN_FEATURE_GATES.WatchList;
    expect(featureSpecAt(watchList, '1.26')).toBeUndefined();
    expect(featureSpecAt(watchList, '1.27')).toMatchObject({ stage: 'ALPHA', default: false, since: '1.27' });
    expect(featureSpecAt(watchList, '1.32')).toMatchObject({ stage: 'BETA', default: true });
    expect(featureSpecAt(watchList, '1.33')).toMatchObject({ stage: 'BETA', default: false, since: '1.33' });
    // Minor versions compare as numbers, not strings (1.9 < 1.16).
    expect(featureSpecAt(KNOWN_FEATURE_GATES.APIResponseCompression, '1.9')).toMatchObject({ stage: 'ALPHA' });
    expect(SERVER_VERSION).toBe('1.33');
  });

  it('every history is in release order, and none reaches past the server release', () => {
    for (const [name, steps] of Object.entries(KNOWN_FEATURE_GATES)) {
      const versions = steps.map((s) => s.since.split('.').map(Number));
      for (let i = 1; i < versions.length; i++) {
        expect(versions[i][0] * 1000 + versions[i][1], name).toBeGreaterThan(versions[i - 1][0] * 1000 + versions[i - 1][1]);
      }
      expect(featureSpecAt(steps), name).toBeDefined();
      // A locked gate is GA or deprecated: the spec's "non-operational" gates.
      for (const s of steps) if (s.lockToDefault) expect(['GA', 'DEPRECATED'], name).toContain(s.stage);
    }
  });

  it('a gate younger than the release does not exist for it', () => {
    const gates = new FeatureGates({ Later: [{ since: '1.34', stage: 'ALPHA', default: false }] });
    expect(gates.isKnown('Later')).toBe(false);
    expect(() => gates.set({ Later: true })).toThrow('unrecognized feature gate: Later');
  });
});

describe('setting gates', () => {
  it.each([
    [{ NoSuchGate: true }, 'unrecognized feature gate: NoSuchGate'],
    [{ AnyVolumeDataSource: false }, 'cannot set feature gate AnyVolumeDataSource to false, feature is locked to true'],
    [{ SidecarContainers: false }, 'cannot set feature gate SidecarContainers to false, feature is locked to true'],
  ])('refuses %j', (settings, message) => {
    const gates = new FeatureGates();
    expect(() => gates.set({ WatchList: true, ...settings })).toThrow(message);
    // Nothing of a refused setting is applied.
    expect(gates.enabled('WatchList')).toBe(false);
  });

  it.each([
    [{ SeparateCacheWatchRPC: true }, 'Setting deprecated feature gate SeparateCacheWatchRPC=true. It will be removed in a future release.'],
    [{ AnyVolumeDataSource: true }, 'Setting GA feature gate AnyVolumeDataSource=true. It will be removed in a future release.'],
  ])('warns on %j with kube\'s text', (settings, warning) => {
    const warnings: string[] = [];
    const gates = new FeatureGates().set(settings, (m) => warnings.push(m));
    expect(warnings).toEqual([warning]);
    for (const [name, value] of Object.entries(settings)) expect(gates.enabled(name)).toBe(value);
  });

  it('alpha and beta gates are set without a warning', () => {
    const warnings: string[] = [];
    new FeatureGates().set({ WatchList: true, StorageVersionMigrator: true, DeclarativeValidation: false }, (m) => warnings.push(m));
    expect(warnings).toEqual([]);
  });

  it('startServer logs the warning through its logger and refuses a locked gate', async () => {
    const lines: string[] = [];
    const log = (m: string) => lines.push(m);
    const logger = { debug: () => {}, info: log, error: log, warn: (m: string) => lines.push(`W ${m}`) };
    const server = await startServer({ storage: 'memory', featureGates: 'SeparateCacheWatchRPC=false', logger });
    try {
      expect(lines).toContain('W Setting deprecated feature gate SeparateCacheWatchRPC=false. It will be removed in a future release.');
      expect(server.url).toMatch(/^https:/);
    } finally {
      await server.close();
    }
    await expect(startServer({ storage: 'memory', featureGates: 'AnyVolumeDataSource=false' })).rejects.toThrow(
      'invalid argument "AnyVolumeDataSource=false" for "--feature-gates" flag: cannot set feature gate AnyVolumeDataSource to false, feature is locked to true',
    );
  });
});

describe('--help', () => {
  it('lists every alpha and beta gate as kube does, and leaves GA and deprecated ones out', () => {
    const lines = USAGE.split('\n').map((l) => l.trim());
    const gates = new FeatureGates();
    const options = lines.filter((l) => /^[A-Za-z]+=true\|false \(/.test(l));
    expect(options).toEqual(gates.knownFeatures());
    expect(options).toContain('AllAlpha=true|false (ALPHA - default=false)');
    expect(options).toContain('AllBeta=true|false (BETA - default=false)');
    expect(options).toContain('DeclarativeValidation=true|false (BETA - default=true)');
    expect(options).toContain('DeclarativeValidationTakeover=true|false (BETA - default=false)');
    expect(options).toContain('WatchList=true|false (BETA - default=false)');
    expect(options).toContain('StorageVersionMigrator=true|false (ALPHA - default=false)');
    expect(options.some((l) => l.startsWith('AnyVolumeDataSource='))).toBe(false);
    expect(options.some((l) => l.startsWith('SeparateCacheWatchRPC='))).toBe(false);
    expect([...options].sort()).toEqual(options);
    expect(USAGE).toContain('--feature-gates mapStringBool          A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:');
  });
});
