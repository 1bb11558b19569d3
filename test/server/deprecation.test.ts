// Deprecated and removed API versions over HTTPS, against kube-apiserver 1.33's behaviour:
// - a served deprecated kind (storagemigration.k8s.io/v1alpha1 StorageVersionMigration, deprecated
//   in 1.33 by its prerelease-lifecycle tags) warns on every verb, errors included, with
//   deprecation.WarningMessage's text before any other warning, and reports the gauge labels;
//   a request authorization refuses never reaches the route, so it gets no warning;
// - every row of the spec's "Removed API versions" table answers 404 NotFound to GET, LIST and
//   POST, and discovery lists none of them, even with --runtime-config naming them (kube keeps
//   removed versions registered, so the flag is accepted, and nothing serves them).

import { describe, expect, it } from 'vitest';
import type { DeprecatedRequestLabels } from '../../runtime/server/filters/deprecation.js';
import { kindLifecycles } from '../../generated/lifecycle.js';
import { resources } from '../../generated/registry.js';
import { useMemoryServer } from '../support/memory-server.js';
import { REMOVED_TABLE } from '../support/removed-api-versions.js';

const SVM = '/apis/storagemigration.k8s.io/v1alpha1/storageversionmigrations';
const SVM_WARNING = '299 - "storagemigration.k8s.io/v1alpha1 StorageVersionMigration is deprecated in v1.33+, unavailable in v1.36+"';
const NOT_FOUND = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 };

const gauge: DeprecatedRequestLabels[] = [];
const server = useMemoryServer({
  featureGates: 'StorageVersionMigrator=true',
  runtimeConfig:
    'storagemigration.k8s.io/v1alpha1=true,discovery.k8s.io/v1beta1=true,events.k8s.io/v1beta1=true,storage.k8s.io/v1beta1/csistoragecapacities=true,flowcontrol.apiserver.k8s.io/v1beta3=true,authorization.k8s.io/v1beta1=true',
  onDeprecatedRequest: (labels) => gauge.push(labels),
});

const svm = (name: string) => ({ apiVersion: 'storagemigration.k8s.io/v1alpha1', kind: 'StorageVersionMigration', metadata: { name }, spec: { resource: { group: 'apps', version: 'v1', resource: 'deployments' } } });

describe('a served deprecated kind', () => {
  it('warns on create, get, list, update, patch, status and delete, and reports the gauge labels', async () => {
    gauge.length = 0;
    const created = await server.send('POST', SVM, svm('m1'));
    expect(created.status).toBe(201);
    expect(created.warnings).toEqual([SVM_WARNING]);
    const got = await server.send<{ metadata: Record<string, unknown> }>('GET', `${SVM}/m1`);
    expect(got.warnings).toEqual([SVM_WARNING]);
    expect((await server.send('GET', SVM)).warnings).toEqual([SVM_WARNING]);
    const updated = await server.send('PUT', `${SVM}/m1`, { ...svm('m1'), metadata: got.body.metadata });
    expect(updated.status).toBe(200);
    expect(updated.warnings).toEqual([SVM_WARNING]);
    expect((await server.send('GET', `${SVM}/m1/status`)).warnings).toEqual([SVM_WARNING]);
    const patched = await server.raw('PATCH', `${SVM}/m1`, { metadata: { labels: { a: 'b' } } }, { 'content-type': 'application/merge-patch+json' });
    expect(patched.status).toBe(200);
    expect(patched.headers.warning).toBe(SVM_WARNING);
    const deleted = await server.send('DELETE', `${SVM}/m1`);
    expect(deleted.status).toBe(200);
    expect(deleted.warnings).toEqual([SVM_WARNING]);
    expect(gauge).toContainEqual({ group: 'storagemigration.k8s.io', version: 'v1alpha1', resource: 'storageversionmigrations', subresource: '', removed_release: '1.36' });
    expect(gauge).toContainEqual({ group: 'storagemigration.k8s.io', version: 'v1alpha1', resource: 'storageversionmigrations', subresource: 'status', removed_release: '1.36' });
  });

  it('warns on a failed request too, the deprecation first and the handler warnings after it', async () => {
    const missing = await server.send('GET', `${SVM}/nothing-here`);
    expect(missing.status).toBe(404);
    expect(missing.warnings).toEqual([SVM_WARNING]);
    const invalid = await server.send('POST', SVM, { ...svm('m2'), spec: { resource: {} } });
    expect(invalid.status).toBe(422);
    expect(invalid.warnings).toEqual([SVM_WARNING]);
    // fieldValidation=Warn: an unknown field is a warning of the handler's own.
    const res = await server.raw('POST', `${SVM}?fieldValidation=Warn`, { ...svm('m3'), bogus: 1 });
    expect(res.status).toBe(201);
    const header = res.headers.warning;
    const warnings = (Array.isArray(header) ? header : String(header).split(/,(?=\s*299 )/)).map((w) => w.trim());
    expect(warnings).toEqual([SVM_WARNING, '299 - "unknown field \\"bogus\\""']);
    // Nothing wrong was stored, and the server still answers.
    expect((await server.send<{ items: { metadata: { name: string } }[] }>('GET', SVM)).body.items.map((i) => i.metadata.name)).toEqual(['m3']);
  });

  it('leaves kinds that are not deprecated alone', async () => {
    gauge.length = 0;
    const res = await server.send('GET', '/api/v1/namespaces/default/configmaps');
    expect(res.status).toBe(200);
    expect(res.warnings).toEqual([]);
    expect(gauge).toEqual([]);
  });
});

describe('removed API versions', () => {
  // The router's answer, as for any version nothing serves: below a group this server serves, the
  // go-restful 404 as a Status; below one it does not (as kube-apiserver 1.33 for extensions),
  // Go's plain-text 404.
  const SERVED_GROUPS = new Set(resources.map((d) => d.group));
  it.each(REMOVED_TABLE)('removed in %s: %s %s answers 404 to GET, LIST and POST', async (_release, gv, resource) => {
    const group = gv.split('/')[0] as string;
    const lifecycle = kindLifecycles.find((k) => `${k.group}/${k.version}` === gv && k.resource === resource)!;
    const collection = `/apis/${gv}/${lifecycle.namespaced ? 'namespaces/default/' : ''}${resource}`;
    for (const [method, path, body] of [
      ['GET', collection, undefined],
      ['GET', `${collection}/some-name`, undefined],
      ['POST', collection, { apiVersion: gv, kind: lifecycle.kind, metadata: { name: 'some-name' } }],
    ] as const) {
      const res = await server.raw(method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
      if (SERVED_GROUPS.has(group)) expect(res.json()).toEqual(NOT_FOUND);
      else expect(res.body).toBe('404 page not found\n');
      expect(res.headers.warning).toBeUndefined();
    }
  });

  it('are not in discovery', async () => {
    const groups = await server.send<{ groups: { name: string; versions: { groupVersion: string }[] }[] }>('GET', '/apis');
    const served = new Set(groups.body.groups.flatMap((g) => g.versions.map((v) => v.groupVersion)));
    for (const [, gv] of REMOVED_TABLE) if (gv !== 'storage.k8s.io/v1beta1') expect(served.has(gv), gv).toBe(false);
    const storage = await server.send<{ resources: { name: string }[] }>('GET', '/apis/storage.k8s.io/v1beta1');
    expect(storage.body.resources?.map((r) => r.name) ?? []).not.toContain('csistoragecapacities');
    expect((await server.send('GET', '/apis/discovery.k8s.io/v1beta1')).status).toBe(404);
  });
});
