// The key order of custom resources on the wire, as kube-apiserver 1.33 writes them: a custom
// resource is an unstructured object, a Go map[string]interface{}, and encoding/json writes a
// map's keys sorted, at every level (apimachinery pkg/apis/meta/v1/unstructured/helpers.go,
// unstructuredJSONScheme.doEncode). A list is a map too (apiVersion, items, kind, metadata), whose
// metadata always has `continue`, empty on the last page (UnstructuredList.SetContinue from the
// storage's UpdateList). Whatever order a client sends, create, get, list, watch, patch and
// status answers are sorted; so is a default the schema gains after an object was stored.

import { describe, expect, it } from 'vitest';
import { createCRD } from '../support/crds.js';
import { useMemoryServer } from '../support/memory-server.js';

type Obj = Record<string, any>;

const server = useMemoryServer();
const GROUP = 'order.example.com';
const CRD = `things.${GROUP}`;
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const BASE = `/apis/${GROUP}/v1/namespaces/default/things`;

/** The paths of objects whose keys are out of sorted order. */
function unsorted(value: unknown, path = '$'): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => unsorted(v, `${path}[${i}]`));
  if (value === null || typeof value !== 'object') return [];
  const keys = Object.keys(value);
  const here = keys.some((k, i) => i > 0 && keys[i - 1] > k) ? [`${path}: ${keys.join(',')}`] : [];
  return [...here, ...keys.flatMap((k) => unsorted((value as Obj)[k], `${path}.${k}`))];
}

const crd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: CRD },
  spec: {
    group: GROUP,
    scope: 'Namespaced',
    names: { plural: 'things', kind: 'Thing' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { zeta: { type: 'string', default: 'z' }, mid: { type: 'string' } } },
              status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
            },
          },
        },
      },
    ],
  },
};

const thing = (name: string): Obj => ({
  spec: { zulu: { y: 1, x: [{ q: 1, b: 2 }] }, alpha: true },
  metadata: { name, labels: { z: '1', a: '2' }, annotations: { 'y.example.com/b': '1', 'b.example.com/a': '2' } },
  kind: 'Thing',
  apiVersion: `${GROUP}/v1`,
});

describe('custom resources are written with sorted keys', () => {
  it('sorts every answer whatever order the request had', async () => {
    await createCRD(server, crd, BASE);
    const created = await server.raw('POST', BASE, thing('t1'));
    expect(created.status).toBe(201);
    const body = created.json<Obj>();
    expect(unsorted(body)).toEqual([]);
    expect(Object.keys(body)).toEqual(['apiVersion', 'kind', 'metadata', 'spec']);
    expect(created.body).toContain('"spec":{"alpha":true,"zeta":"z","zulu":{"x":[{"b":2,"q":1}],"y":1}}');
    expect(Object.keys(body.metadata)).toEqual(['annotations', 'creationTimestamp', 'generation', 'labels', 'managedFields', 'name', 'namespace', 'resourceVersion', 'uid']);

    const got = await server.raw('GET', `${BASE}/t1`);
    expect(got.body).toBe(created.body);

    // A list is a map too, its metadata with an empty continue on the last page.
    expect((await server.raw('POST', BASE, thing('t2'))).status).toBe(201);
    const list = (await server.raw('GET', BASE)).json<Obj>();
    expect(unsorted(list)).toEqual([]);
    expect(Object.keys(list)).toEqual(['apiVersion', 'items', 'kind', 'metadata']);
    expect(list.metadata).toEqual({ continue: '', resourceVersion: expect.any(String) });
    const page = (await server.raw('GET', `${BASE}?limit=1`)).json<Obj>();
    expect(Object.keys(page.metadata)).toEqual(['continue', 'remainingItemCount', 'resourceVersion']);
    expect(page.metadata.continue).not.toBe('');
    // A typed ListMeta (metadata-only lists, Tables) leaves the empty continue out.
    const partial = await server.raw('GET', BASE, undefined, { accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1' });
    expect(partial.json<Obj>().metadata).toEqual({ resourceVersion: expect.any(String) });
    const table = await server.raw('GET', BASE, undefined, { accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' });
    expect(table.json<Obj>().metadata).toEqual({ resourceVersion: expect.any(String) });

    // Watch events, patches and status writes.
    const watch = server.raw('GET', `${BASE}?watch=true&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=2`);
    const patched = await server.raw('PATCH', `${BASE}/t1`, JSON.stringify({ spec: { mid: 'm', beta: { d: 1, c: 2 } } }), { 'content-type': 'application/merge-patch+json' });
    expect(patched.status).toBe(200);
    expect(unsorted(patched.json())).toEqual([]);
    expect(patched.body).toContain('"spec":{"alpha":true,"beta":{"c":2,"d":1},"mid":"m","zeta":"z","zulu":');
    const current = patched.json<Obj>();
    const status = await server.raw('PUT', `${BASE}/t1/status`, { ...current, status: { ready: true, phase: 'Up' } });
    expect(status.status).toBe(200);
    expect(status.body).toContain('"status":{"phase":"Up","ready":true}');
    expect(unsorted(status.json())).toEqual([]);
    const events = (await watch).body
      .toString()
      .split('\n')
      .filter((l) => l)
      .map((l) => JSON.parse(l));
    expect(events.map((e: Obj) => e.type)).toEqual(['MODIFIED', 'MODIFIED']);
    expect(events.flatMap((e: Obj) => unsorted(e.object))).toEqual([]);

    // A default the schema gains later is read into its sorted place.
    for (;;) {
      const stored = (await server.send<Obj>('GET', `${CRDS}/${CRD}`)).body;
      stored.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.beta = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
      stored.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.aaa = { type: 'string', default: 'first' };
      const res = await server.send('PUT', `${CRDS}/${CRD}`, stored);
      if (res.status === 200) break;
      expect(res.status).toBe(409);
    }
    for (const end = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 50))) {
      const t2 = (await server.raw('GET', `${BASE}/t2`)).json<Obj>();
      if (t2.spec.aaa === 'first') {
        expect(Object.keys(t2.spec)).toEqual(['aaa', 'alpha', 'zeta', 'zulu']);
        break;
      }
      if (Date.now() > end) throw new Error('the new default was never read');
    }
    const relisted = (await server.raw('GET', BASE)).json<Obj>();
    expect(unsorted(relisted)).toEqual([]);
  });
});
