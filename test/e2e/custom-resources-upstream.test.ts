// The real-world CRDs of ../shared/upstream/crds served end to end: each is created, made
// Established, and its sample instance is accepted, read back from its storage version and
// listed; the Driver sample is stored with every field under spec pruned (its schema declares
// none); GatewayClass's CEL transition rule refuses a change of spec.controllerName as kube does.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { useMemoryServer } from '../support/memory-server.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../support/upstream.js';

type Obj = Record<string, any>;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const FILES = ['argoproj.io_rollouts', 'cert-manager.io_certificates', 'crew.example.com_drivers', 'gateway.networking.k8s.io_gatewayclasses', 'gateway.networking.k8s.io_httproutes', 'monitoring.coreos.com_servicemonitors'];

describe.runIf(upstreamAvailable())('real-world CRDs served', () => {
  const server = useMemoryServer();

  /** Creates the CRD; the naming and establishing controllers make it Established. */
  async function establish(crd: Obj): Promise<void> {
    const made = await server.send<Obj>('POST', CRDS, crd);
    expect(made.status, JSON.stringify(made.body).slice(0, 2000)).toBe(201);
    for (let i = 0; i < 200; i++) {
      const current = (await server.send<Obj>('GET', `${CRDS}/${crd.metadata.name}`)).body;
      if ((current.status?.conditions ?? []).some((c: Obj) => c.type === 'Established' && c.status === 'True')) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${crd.metadata.name} never Established`);
  }

  function pathOf(crd: Obj, version: string, namespace: string | undefined): string {
    const { group, names, scope } = crd.spec;
    return scope === 'Namespaced' ? `/apis/${group}/${version}/namespaces/${namespace ?? 'default'}/${names.plural}` : `/apis/${group}/${version}/${names.plural}`;
  }

  it.each(FILES)('%s: the sample instance is accepted and read back', async (file) => {
    const crd = parse(readFileSync(join(UPSTREAM_DIR, 'crds', `${file}.yaml`), 'utf8')) as Obj;
    const sample = parse(readFileSync(join(UPSTREAM_DIR, 'crds', `${file}.sample.yaml`), 'utf8')) as Obj;
    await establish(crd);
    const [, version] = String(sample.apiVersion).split('/');
    const collection = pathOf(crd, version!, sample.metadata.namespace);
    let created = await server.send<Obj>('POST', collection, sample);
    for (let i = 0; i < 100 && created.status === 404; i++) {
      await new Promise((r) => setTimeout(r, 50));
      created = await server.send<Obj>('POST', collection, sample);
    }
    expect(created.status, JSON.stringify(created.body).slice(0, 2000)).toBe(201);
    const storage = crd.spec.versions.find((v: Obj) => v.storage).name;
    const read = await server.send<Obj>('GET', `${pathOf(crd, storage, sample.metadata.namespace)}/${sample.metadata.name}`);
    expect(read.status).toBe(200);
    expect(read.body.apiVersion).toBe(`${crd.spec.group}/${storage}`);
    const list = await server.send<Obj>('GET', pathOf(crd, version!, sample.metadata.namespace));
    expect(list.body.items.map((i: Obj) => i.metadata.name)).toEqual([sample.metadata.name]);
    if (file === 'crew.example.com_drivers') expect(read.body.spec).toEqual({});
  });

  it('GatewayClass: spec.controllerName is immutable (a CEL transition rule)', async () => {
    const path = '/apis/gateway.networking.k8s.io/v1/gatewayclasses/example';
    const current = (await server.send<Obj>('GET', path)).body;
    const res = await server.send<Obj>('PUT', path, { ...current, spec: { ...current.spec, controllerName: 'example.net/other' } });
    expect(res.status).toBe(422);
    expect(res.body.details.causes).toEqual([expect.objectContaining({ field: 'spec.controllerName', message: expect.stringContaining('Value is immutable') })]);
    expect((await server.send<Obj>('GET', path)).body.spec.controllerName).toBe(current.spec.controllerName);
  });
});
