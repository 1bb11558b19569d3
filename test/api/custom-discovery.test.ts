// Discovery documents of custom resources' groups, as kube's discovery controller orders them:
// versions by kube's version priority (GA, then beta, then alpha, highest first; others last,
// alphabetically), the first preferred; resources by name with their subresources after them.

import { describe, expect, it } from 'vitest';
import { customGroupDocuments } from '../../runtime/api/custom-discovery.js';
import { compareKubeAwareVersions } from '../../runtime/machinery/version-priority.js';
import { customResourceDefinitions } from '../../runtime/registry/custom-resources/definition.js';

describe('kube-aware version order', () => {
  it('sorts as apimachinery documents it', () => {
    const versions = ['foo10', 'v11alpha2', 'v1', 'v3beta1', 'v12alpha1', 'foo1', 'v10beta3', 'v2', 'v11beta2', 'v10'];
    expect([...versions].sort(compareKubeAwareVersions)).toEqual(['v10', 'v2', 'v1', 'v11beta2', 'v10beta3', 'v3beta1', 'v12alpha1', 'v11alpha2', 'foo1', 'foo10']);
  });
});

describe('custom group documents', () => {
  const crd = (plural: string, kind: string, versions: string[], extra: Record<string, unknown> = {}) => ({
    metadata: { name: `${plural}.example.com` },
    spec: {
      group: 'example.com',
      scope: 'Cluster',
      names: { plural, kind },
      versions: versions.map((name, i) => ({ name, served: true, storage: i === 0, ...extra })),
    },
  });

  it('orders versions by priority, prefers the first, and lists resources by name with subresources', () => {
    const defs = [
      ...customResourceDefinitions(crd('zebras', 'Zebra', ['v1beta1', 'v1', 'v2alpha1'])),
      ...customResourceDefinitions(crd('apples', 'Apple', ['v1'], { subresources: { status: {} } })),
    ];
    const docs = customGroupDocuments(defs);
    expect(docs.groups).toEqual([
      {
        name: 'example.com',
        versions: [
          { groupVersion: 'example.com/v1', version: 'v1' },
          { groupVersion: 'example.com/v1beta1', version: 'v1beta1' },
          { groupVersion: 'example.com/v2alpha1', version: 'v2alpha1' },
        ],
        preferredVersion: { groupVersion: 'example.com/v1', version: 'v1' },
      },
    ]);
    const v1 = docs.documents.get('/apis/example.com/v1') as { resources: Array<Record<string, unknown>> };
    expect(v1.resources.map((r) => r.name)).toEqual(['apples', 'apples/status', 'zebras']);
    expect(v1.resources[0]).toEqual({
      name: 'apples',
      singularName: 'apple',
      namespaced: false,
      kind: 'Apple',
      verbs: ['delete', 'deletecollection', 'get', 'list', 'patch', 'create', 'update', 'watch'],
      storageVersionHash: expect.any(String),
    });
    expect(v1.resources[1]).toEqual({ name: 'apples/status', singularName: '', namespaced: false, kind: 'Apple', verbs: ['get', 'patch', 'update'] });
    const aggregated = docs.aggregated[0] as { versions: Array<{ version: string; freshness: string }> };
    expect(aggregated.versions.map((v) => v.version)).toEqual(['v1', 'v1beta1', 'v2alpha1']);
    expect(aggregated.versions.every((v) => v.freshness === 'Current')).toBe(true);
  });
});
