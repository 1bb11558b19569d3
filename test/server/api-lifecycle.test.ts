// The lifecycle table (generated/lifecycle.ts, from the specs' lifecycle blocks) and the rules
// kube-apiserver 1.33 derives from it: prerelease defaults (deprecated and removed three minors
// apart, as prerelease-lifecycle-gen fills them), deprecation.WarningMessage's text, which betas
// are on by default, and the spec's "Removed API versions" table, walked whole.

import { describe, expect, it } from 'vitest';
import { groupVersionLifecycles, kindLifecycles } from '../../generated/lifecycle.js';
import { resources } from '../../generated/registry.js';
import { deprecationWarning, enabledByDefault, reached, type KindLifecycle } from '../../runtime/machinery/lifecycle.js';
import { APILifecycle, SERVER_RELEASE } from '../../runtime/server/api-lifecycle.js';
import { RuntimeConfigError, resolveRuntimeConfig } from '../../runtime/server/runtime-config.js';
import { REMOVED_TABLE } from '../support/removed-api-versions.js';

const lc = (group: string, version: string, kind: string): KindLifecycle | undefined =>
  kindLifecycles.find((k) => k.group === group && k.version === version && k.kind === kind);


describe('the lifecycle table', () => {
  it('states a lifecycle for every served kind', () => {
    for (const d of resources) {
      const entry = lc(d.group, d.version, d.kind);
      expect(entry, `${d.group}/${d.version} ${d.kind}`).toBeDefined();
      expect(entry!.introduced, `${d.kind} introduced`).toMatch(/^1\.\d+$/);
      expect(entry!.resource).toBe(d.plural);
    }
  });

  it('carries kube 1.33 prerelease-lifecycle tags, with the defaults filled for alpha and beta', () => {
    expect(lc('resource.k8s.io', 'v1beta2', 'ResourceSlice')).toMatchObject({ introduced: '1.33', deprecated: '1.36', removed: '1.39' });
    expect(lc('storage.k8s.io', 'v1beta1', 'VolumeAttributesClass')).toMatchObject({ introduced: '1.31', deprecated: '1.34', removed: '1.37' });
    expect(lc('storagemigration.k8s.io', 'v1alpha1', 'StorageVersionMigration')).toMatchObject({ introduced: '1.30', deprecated: '1.33', removed: '1.36' });
    // Stable kinds get no defaults: never deprecated by the table unless a spec says so.
    expect(lc('', 'v1', 'ConfigMap')).toEqual({ group: '', version: 'v1', kind: 'ConfigMap', resource: 'configmaps', namespaced: true, introduced: '1.2' });
    expect(lc('storage.k8s.io', 'v1', 'CSIStorageCapacity')?.introduced).toBe('1.24');
    expect(lc('authentication.k8s.io', 'v1', 'SelfSubjectReview')?.introduced).toBe('1.28');
  });

  it.each(REMOVED_TABLE)('removed in %s: %s %s, never served', (release, gv, resource) => {
    const [group, version] = gv.includes('/') ? (gv.split('/') as [string, string]) : ['', gv];
    const entry = kindLifecycles.find((k) => k.group === group && k.version === version && k.resource === resource);
    expect(entry?.removed).toBe(release);
    expect(reached(entry!.removed, SERVER_RELEASE)).toBe(true);
    expect(resources.some((d) => d.group === group && d.version === version && d.plural === resource)).toBe(false);
  });

  it('marks a group version removed only when all its kinds are', () => {
    const gv = (group: string, version: string) => groupVersionLifecycles.find((g) => g.group === group && g.version === version);
    expect(gv('flowcontrol.apiserver.k8s.io', 'v1beta3')?.removed).toBe('1.32');
    expect(gv('policy', 'v1beta1')?.removed).toBe('1.25');
    // storage.k8s.io/v1beta1 lost CSIStorageCapacity in 1.27 but still serves VolumeAttributesClass.
    expect(gv('storage.k8s.io', 'v1beta1')?.removed).toBe('1.37');
    expect(reached(gv('storage.k8s.io', 'v1beta1')?.removed, SERVER_RELEASE)).toBe(false);
  });
});

describe('kube rules from the table', () => {
  it('writes deprecation.WarningMessage text', () => {
    expect(deprecationWarning({ group: '', version: 'v1', kind: 'Endpoints', resource: 'endpoints', namespaced: true, introduced: '1.0', deprecated: '1.33', replacement: { group: 'discovery.k8s.io', version: 'v1', kind: 'EndpointSlice' } })).toBe(
      'v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice',
    );
    expect(deprecationWarning({ group: '', version: 'v1', kind: 'ComponentStatus', resource: 'componentstatuses', namespaced: false, introduced: '1.0', deprecated: '1.19' })).toBe('v1 ComponentStatus is deprecated in v1.19+');
    expect(deprecationWarning(lc('storagemigration.k8s.io', 'v1alpha1', 'StorageVersionMigration')!)).toBe(
      'storagemigration.k8s.io/v1alpha1 StorageVersionMigration is deprecated in v1.33+, unavailable in v1.36+',
    );
    expect(deprecationWarning(lc('flowcontrol.apiserver.k8s.io', 'v1beta3', 'FlowSchema')!)).toBe(
      'flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema is deprecated in v1.29+, unavailable in v1.32+; use flowcontrol.apiserver.k8s.io/v1 FlowSchema',
    );
  });

  it('counts a release as reached at and after it, never before', () => {
    expect(reached('1.33', [1, 33])).toBe(true);
    expect(reached('1.9', [1, 33])).toBe(true);
    expect(reached('1.34', [1, 33])).toBe(false);
    expect(reached('2.0', [1, 33])).toBe(false);
    expect(reached(undefined, [1, 33])).toBe(false);
  });

  it('turns betas on by default only when introduced before 1.22; alpha never; stable always', () => {
    expect(enabledByDefault('v1beta1', '1.21')).toBe(true);
    expect(enabledByDefault('v1beta1', '1.22')).toBe(false);
    expect(enabledByDefault('v1beta2', '1.33')).toBe(false);
    expect(enabledByDefault('v1alpha1', '1.10')).toBe(false);
    expect(enabledByDefault('v1', '1.33')).toBe(true);
  });

  it('keeps a legacy beta resource on by default until the flag switches its version or level off', () => {
    const lifecycle = new APILifecycle(
      [{ group: 'demo.example.com', version: 'v1beta1', introduced: '1.10' }],
      [
        { group: 'demo.example.com', version: 'v1beta1', kind: 'Old', resource: 'olds', namespaced: true, introduced: '1.10', deprecated: '1.40', removed: '1.43' },
        { group: 'demo.example.com', version: 'v1beta1', kind: 'New', resource: 'news', namespaced: true, introduced: '1.30', deprecated: '1.40', removed: '1.43' },
      ],
    );
    const known = [{ group: 'demo.example.com', version: 'v1beta1' }];
    const byDefault = resolveRuntimeConfig({}, known, lifecycle.runtimeConfigDefaults());
    expect(byDefault('demo.example.com', 'v1beta1', 'olds')).toBe(true);
    expect(byDefault('demo.example.com', 'v1beta1', 'news')).toBe(false);
    const off = resolveRuntimeConfig({ 'demo.example.com/v1beta1': 'false' }, known, lifecycle.runtimeConfigDefaults());
    expect(off('demo.example.com', 'v1beta1', 'olds')).toBe(false);
    const levelOff = resolveRuntimeConfig({ 'api/beta': 'false' }, known, lifecycle.runtimeConfigDefaults());
    expect(levelOff('demo.example.com', 'v1beta1', 'olds')).toBe(false);
  });

  it('accepts a removed version in --runtime-config (kube keeps it registered) and still refuses one never had', () => {
    const lifecycle = new APILifecycle(groupVersionLifecycles, kindLifecycles);
    const known = [...new Map(resources.map((d) => [`${d.group}/${d.version}`, { group: d.group, version: d.version }])).values()];
    const enabled = resolveRuntimeConfig({ 'discovery.k8s.io/v1beta1': 'true', 'events.k8s.io/v1beta1': '' }, known, lifecycle.runtimeConfigDefaults());
    expect(enabled('discovery.k8s.io', 'v1beta1', 'endpointslices')).toBe(false);
    expect(enabled('discovery.k8s.io', 'v1', 'endpointslices')).toBe(true);
    expect(() => resolveRuntimeConfig({ 'discovery.k8s.io/v2': 'true' }, known, lifecycle.runtimeConfigDefaults())).toThrow(
      new RuntimeConfigError('group version discovery.k8s.io/v2 that has not been registered'),
    );
  });

  it('lists the deprecated endpoints among served kinds, subresources of the same kind included', () => {
    const lifecycle = new APILifecycle(groupVersionLifecycles, kindLifecycles);
    const svm = resources.filter((d) => d.kind === 'StorageVersionMigration' || d.kind === 'ConfigMap' || d.kind === 'ResourceSlice');
    const deprecated = lifecycle.deprecatedResources(svm);
    expect([...deprecated.keys()].sort()).toEqual(['storagemigration.k8s.io/v1alpha1/storageversionmigrations', 'storagemigration.k8s.io/v1alpha1/storageversionmigrations/status']);
    expect(deprecated.get('storagemigration.k8s.io/v1alpha1/storageversionmigrations')).toEqual({
      warning: 'storagemigration.k8s.io/v1alpha1 StorageVersionMigration is deprecated in v1.33+, unavailable in v1.36+',
      removedRelease: '1.36',
    });
  });
});
