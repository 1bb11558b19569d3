// Discovery of CRDs in a group built-in kinds serve, as kube-apiserver 1.33 (with its aggregator)
// shows them. A CRD version the group does not serve becomes an APIService of version priority
// 100 (pkg/controlplane/controller/crdregistration), and the CRD discovery controller adds it to
// the shared aggregated discovery manager with the same priority
// (apiextensions-apiserver customresource_discovery_controller.go; apiserver
// endpoints/discovery/aggregated/handler.go calculateAPIGroupsLocked): above every built-in
// version's, so it leads the group's versions and is the preferred one, in /apis, /apis/<group>
// and aggregated discovery, while the group keeps its place. Its own paths are not reached:
// kube-apiserver's web service for the group claims every path below /apis/<group>, so
// /apis/<group>/<version> and the resources are 404. A CRD in a group version built-in kinds
// serve adds nothing there: the built-in source wins in aggregated discovery, and the group
// version's document and paths are the built-in ones.

import { describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';

type Obj = Record<string, any>;

const server = useMemoryServer();
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const GROUP = 'storage.k8s.io';
const AGGREGATED = { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' };

const crd = (plural: string, kind: string, version: string): Obj => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${GROUP}`, annotations: { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/enhancements/pull/1111' } },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural, kind },
    versions: [{ name: version, served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
  },
});

async function until(what: string, probe: () => Promise<boolean>): Promise<void> {
  for (const end = Date.now() + 10_000; !(await probe()); await new Promise((r) => setTimeout(r, 25))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
  }
}

const groups = async (): Promise<Obj[]> => (await server.send<Obj>('GET', '/apis')).body.groups;
const aggregatedItems = async (): Promise<Obj[]> => (await server.raw('GET', '/apis', undefined, AGGREGATED)).json<Obj>().items;
const versionsOf = (items: Obj[]): [string, string[]][] => items.find((i) => i.metadata.name === GROUP)!.versions.map((v: Obj) => [v.version, v.resources.map((r: Obj) => r.resource)]);

describe('CRDs in a built-in group', () => {
  it('lists a new version first in the group, its paths unreached; a built-in group version stays the built-in one', async () => {
    const before = await groups();
    const builtIn = before.find((g) => g.name === GROUP)!;
    const builtInAggregated = versionsOf(await aggregatedItems());
    const builtInVersions = (await server.send<Obj>('GET', `/apis/${GROUP}/v1`)).body.resources.map((r: Obj) => r.name);

    for (const [plural, kind, version] of [['gateways', 'Gateway', 'v1alpha9'], ['routes', 'Route', 'v1']]) {
      expect((await server.send('POST', CRDS, crd(plural, kind, version))).status).toBe(201);
    }
    for (const name of [`gateways.${GROUP}`, `routes.${GROUP}`]) {
      await until(`${name} Established`, async () => ((await server.send<Obj>('GET', `${CRDS}/${name}`)).body.status?.conditions ?? []).some((c: Obj) => c.type === 'Established' && c.status === 'True'));
    }
    await until('v1alpha9 listed', async () => (await groups()).find((g) => g.name === GROUP)!.versions.length > builtIn.versions.length);

    const after = await groups();
    const added = { groupVersion: `${GROUP}/v1alpha9`, version: 'v1alpha9' };
    expect(after.map((g) => g.name)).toEqual(before.map((g) => g.name));
    expect(after.find((g) => g.name === GROUP)).toEqual({ name: GROUP, versions: [added, ...builtIn.versions], preferredVersion: added });
    expect((await server.send<Obj>('GET', `/apis/${GROUP}`)).body).toEqual({ kind: 'APIGroup', apiVersion: 'v1', name: GROUP, versions: [added, ...builtIn.versions], preferredVersion: added });
    expect(versionsOf(await aggregatedItems())).toEqual([['v1alpha9', ['gateways']], ...builtInAggregated]);

    // The group's web service answers below /apis/storage.k8s.io: the new version is not reached,
    // and the built-in version is the built-in kinds' alone.
    expect((await server.raw('GET', `/apis/${GROUP}/v1alpha9`)).status).toBe(404);
    expect((await server.raw('GET', `/apis/${GROUP}/v1alpha9/namespaces/default/gateways`)).status).toBe(404);
    expect((await server.send<Obj>('GET', `/apis/${GROUP}/v1`)).body.resources.map((r: Obj) => r.name)).toEqual(builtInVersions);
    expect((await server.raw('GET', `/apis/${GROUP}/v1/namespaces/default/routes`)).status).toBe(404);

    // Deleting the CRDs: they have no instances (none could be made), so their cleanup finalizer
    // lets them go, and the new version leaves discovery.
    for (const name of [`gateways.${GROUP}`, `routes.${GROUP}`]) {
      expect([200, 202]).toContain((await server.send('DELETE', `${CRDS}/${name}`)).status);
      await until(`${name} deleted`, async () => (await server.raw('GET', `${CRDS}/${name}`)).status === 404);
    }
    await until('v1alpha9 gone', async () => (await groups()).find((g) => g.name === GROUP)!.versions.length === builtIn.versions.length);
    expect((await groups()).find((g) => g.name === GROUP)).toEqual(builtIn);
    expect(versionsOf(await aggregatedItems())).toEqual(builtInAggregated);
  });
});
