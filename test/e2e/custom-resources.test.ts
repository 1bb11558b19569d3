// Custom resources served from a CustomResourceDefinition over HTTPS, as kube-apiserver serves
// them: nothing until the CRD is Established, then every verb on namespaced and cluster-scoped
// paths, validation, defaulting and pruning from the schema, the status subresource, every patch
// type but strategic merge patch (415), no protobuf (415 for bodies, 406 when only protobuf is
// acceptable), a deprecated version's warning, discovery and OpenAPI following the CRD live, and
// the CRD's deletion removing every instance, ending open watches and taking the paths away.

import { describe, expect, it } from 'vitest';
import { createCRD } from '../support/crds.js';
import { useMemoryServer } from '../support/memory-server.js';

type Obj = Record<string, any>;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const server = useMemoryServer();

const schema = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        cronSpec: { type: 'string', pattern: '^(\\d+|\\*)(/\\d+)?(\\s+(\\d+|\\*)(/\\d+)?){4}$' },
        image: { type: 'string' },
        replicas: { type: 'integer', minimum: 1, default: 1 },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, port: { type: 'integer' } } },
        },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string' } } },
  },
};

function crontabs(group: string, scope = 'Namespaced'): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `crontabs.${group}` },
    spec: {
      group,
      scope,
      names: { plural: 'crontabs', singular: 'crontab', kind: 'CronTab', shortNames: ['ct'], categories: ['all'] },
      versions: [
        { name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema }, subresources: { status: {} } },
        { name: 'v1beta1', served: true, storage: false, deprecated: true, schema: { openAPIV3Schema: schema }, subresources: { status: {} } },
      ],
    },
  };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await probe();
    if (got !== undefined) return got;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Creates the CRD; the naming and establishing controllers make it Established and it is served. */
async function establish(crd: Obj): Promise<void> {
  const { group, versions, scope, names } = crd.spec;
  const path = scope === 'Namespaced' ? `/apis/${group}/${versions[0].name}/namespaces/default/${names.plural}` : `/apis/${group}/${versions[0].name}/${names.plural}`;
  await createCRD(server, crd, path);
}

describe('custom resources served from a CRD', () => {
  it('serves nothing before the CRD is Established, then CRUD, list and schema rules', async () => {
    const group = 'stable.example.com';
    const crd = crontabs(group);
    expect((await server.raw('GET', `/apis/${group}/v1/namespaces/default/crontabs`)).status).toBe(404);
    await establish(crd);
    const base = `/apis/${group}/v1/namespaces/default/crontabs`;

    const made = await server.send<Obj>('POST', base, { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'a', labels: { tier: 'x' } }, spec: { cronSpec: '* * * * */5', image: 'img', bogus: 1 } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.spec).toEqual({ cronSpec: '* * * * */5', image: 'img', replicas: 1 });
    expect(made.body.metadata.generation).toBe(1);
    expect(made.warnings).toEqual(['299 - "unknown field \\"spec.bogus\\""']);

    const strict = await server.send<Obj>('POST', `${base}?fieldValidation=Strict`, { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'strict' }, spec: { bogus: 1 } });
    expect(strict.status).toBe(400);
    expect(strict.body.message).toContain('strict decoding error: unknown field "spec.bogus"');
    expect((await server.send('GET', `${base}/strict`)).status).toBe(404);

    const invalid = await server.send<Obj>('POST', base, { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'bad' }, spec: { replicas: 0 } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.reason).toBe('Invalid');
    expect(invalid.body.details.causes.map((c: Obj) => c.field)).toContain('spec.replicas');
    expect((await server.send('GET', `${base}/bad`)).status).toBe(404);

    const wrongName = await server.send<Obj>('POST', base, { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'Bad_Name' } });
    expect(wrongName.status).toBe(422);
    expect(wrongName.body.details.causes[0].field).toBe('metadata.name');

    await server.send('POST', base, { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'b', labels: { tier: 'y' } } });
    const selected = await server.send<Obj>('GET', `${base}?labelSelector=tier%3Dx`);
    expect(selected.body.kind).toBe('CronTabList');
    expect(selected.body.items.map((i: Obj) => i.metadata.name)).toEqual(['a']);
    const all = await server.send<Obj>('GET', `/apis/${group}/v1/crontabs`);
    expect(all.body.items.map((i: Obj) => i.metadata.name)).toEqual(['a', 'b']);
    const byName = await server.send<Obj>('GET', `${base}?fieldSelector=metadata.name%3Db`);
    expect(byName.body.items.map((i: Obj) => i.metadata.name)).toEqual(['b']);

    // The other served version reads the same objects with its own apiVersion, and warns that it is deprecated.
    const beta = await server.send<Obj>('GET', `/apis/${group}/v1beta1/namespaces/default/crontabs/a`);
    expect(beta.body.apiVersion).toBe(`${group}/v1beta1`);
    expect(beta.body.spec.image).toBe('img');
    expect(beta.warnings.join()).toContain(`${group}/v1beta1 CronTab is deprecated`);

    const updated = await server.send<Obj>('PUT', `${base}/a`, { ...made.body, spec: { ...made.body.spec, image: 'img2' } });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body.metadata.generation).toBe(2);
    const deleted = await server.send<Obj>('DELETE', `${base}/b`);
    expect(deleted.status).toBe(200);
    expect((await server.send('GET', `${base}/b`)).status).toBe(404);
  });

  it('keeps status and spec apart between the main resource and the status subresource', async () => {
    const group = 'status.example.com';
    await establish(crontabs(group));
    const base = `/apis/${group}/v1/namespaces/default/crontabs`;
    const made = await server.send<Obj>('POST', base, { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 's' }, spec: { image: 'a' }, status: { phase: 'Ignored' } });
    expect(made.body.status).toBeUndefined();
    const statusWrite = await server.send<Obj>('PUT', `${base}/s/status`, { ...made.body, spec: { image: 'changed' }, status: { phase: 'Running' } });
    expect(statusWrite.status, JSON.stringify(statusWrite.body)).toBe(200);
    expect(statusWrite.body.status).toEqual({ phase: 'Running' });
    expect(statusWrite.body.spec.image).toBe('a');
    expect(statusWrite.body.metadata.generation).toBe(1);
    const mainWrite = await server.send<Obj>('PUT', `${base}/s`, { ...statusWrite.body, status: { phase: 'Overwritten' } });
    expect(mainWrite.body.status).toEqual({ phase: 'Running' });
    expect(mainWrite.body.metadata.generation).toBe(1);
    const status = await server.send<Obj>('GET', `${base}/s/status`);
    expect(status.body.status).toEqual({ phase: 'Running' });
  });

  it('takes JSON patch, merge patch and server-side apply with the schema\'s list types, refuses strategic merge patch and protobuf', async () => {
    const group = 'patch.example.com';
    await establish(crontabs(group));
    const base = `/apis/${group}/v1/namespaces/default/crontabs`;
    await server.send('POST', base, { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'p' }, spec: { image: 'a' } });
    const merge = await server.raw('PATCH', `${base}/p`, JSON.stringify({ spec: { image: 'b' } }), { 'content-type': 'application/merge-patch+json' });
    expect(merge.status).toBe(200);
    const json = await server.raw('PATCH', `${base}/p`, JSON.stringify([{ op: 'replace', path: '/spec/image', value: 'c' }]), { 'content-type': 'application/json-patch+json' });
    expect(json.status).toBe(200);
    expect(json.json<Obj>().spec.image).toBe('c');
    const smp = await server.raw('PATCH', `${base}/p`, JSON.stringify({ spec: { image: 'd' } }), { 'content-type': 'application/strategic-merge-patch+json' });
    expect(smp.status).toBe(415);
    expect(smp.json<Obj>().message).toBe('the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml');

    const apply = (manager: string, ports: Obj[]) =>
      server.raw('PATCH', `${base}/applied?fieldManager=${manager}`, JSON.stringify({ apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'applied' }, spec: { ports } }), {
        'content-type': 'application/apply-patch+yaml',
      });
    const first = await apply('one', [{ name: 'http', port: 80 }]);
    expect(first.status, first.body.toString()).toBe(201);
    const second = await apply('two', [{ name: 'https', port: 443 }]);
    expect(second.status).toBe(200);
    // A map list keyed by name: each manager's entry stays.
    expect(second.json<Obj>().spec.ports).toEqual([
      { name: 'http', port: 80 },
      { name: 'https', port: 443 },
    ]);

    // The protobuf envelope's magic; the content type alone decides.
    const protobufBody = await server.raw('POST', base, 'k8s\u0000', { 'content-type': 'application/vnd.kubernetes.protobuf' });
    expect(protobufBody.status).toBe(415);
    const protobufOnly = await server.raw('GET', `${base}/p`, undefined, { accept: 'application/vnd.kubernetes.protobuf' });
    expect(protobufOnly.status).toBe(406);
    const either = await server.raw('GET', `${base}/p`, undefined, { accept: 'application/vnd.kubernetes.protobuf, application/json' });
    expect(either.status).toBe(200);
    expect(String(either.headers['content-type'])).toContain('application/json');
  });

  it('serves cluster-scoped custom resources', async () => {
    const group = 'cluster.example.com';
    await establish(crontabs(group, 'Cluster'));
    const made = await server.send<Obj>('POST', `/apis/${group}/v1/crontabs`, { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'c' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.metadata.namespace).toBeUndefined();
    expect((await server.send('GET', `/apis/${group}/v1/namespaces/default/crontabs/c`)).status).toBe(404);
  });

  it('changes discovery and OpenAPI as the CRD comes and goes; deleting it removes instances, ends watches and takes the paths away', async () => {
    const group = 'live.example.com';
    const before = await server.send<Obj>('GET', '/apis');
    expect(before.body.groups.map((g: Obj) => g.name)).not.toContain(group);
    await establish(crontabs(group));
    const groups = await server.send<Obj>('GET', '/apis');
    const entry = groups.body.groups.find((g: Obj) => g.name === group);
    expect(entry.preferredVersion).toEqual({ groupVersion: `${group}/v1`, version: 'v1' });
    expect(entry.versions.map((v: Obj) => v.version)).toEqual(['v1', 'v1beta1']);
    const resources = await server.send<Obj>('GET', `/apis/${group}/v1`);
    expect(resources.body.resources.map((r: Obj) => r.name)).toEqual(['crontabs', 'crontabs/status']);
    expect(resources.body.resources[0]).toMatchObject({ singularName: 'crontab', namespaced: true, kind: 'CronTab', shortNames: ['ct'], categories: ['all'] });
    const aggregated = await server.raw('GET', '/apis', undefined, { accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList' });
    const item = aggregated.json<Obj>().items.find((i: Obj) => i.metadata.name === group);
    expect(item.versions[0].resources[0]).toMatchObject({ resource: 'crontabs', scope: 'Namespaced', responseKind: { group, version: 'v1', kind: 'CronTab' } });

    const index = await server.send<Obj>('GET', '/openapi/v3');
    expect(Object.keys(index.body.paths)).toContain(`apis/${group}/v1`);
    const v3 = await server.send<Obj>('GET', index.body.paths[`apis/${group}/v1`].serverRelativeURL);
    const kindSchema = v3.body.components.schemas['com.example.live.v1.CronTab'];
    expect(kindSchema['x-kubernetes-group-version-kind']).toEqual([{ group, kind: 'CronTab', version: 'v1' }]);
    expect(kindSchema.properties.spec.properties.image).toEqual({ type: 'string' });
    const patchOp = v3.body.paths[`/apis/${group}/v1/namespaces/{namespace}/crontabs/{name}`].patch;
    expect(Object.keys(patchOp.requestBody.content)).not.toContain('application/strategic-merge-patch+json');
    const v2 = await server.send<Obj>('GET', '/openapi/v2');
    expect(v2.body.definitions['com.example.live.v1.CronTab']).toBeDefined();
    const v2proto = await server.raw('GET', '/openapi/v2', undefined, { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
    expect(v2proto.status).toBe(200);

    const base = `/apis/${group}/v1/namespaces/default/crontabs`;
    await server.send('POST', base, { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'w1' } });
    const list = await server.send<Obj>('GET', base);
    const watch = server.raw('GET', `${base}?watch=true&resourceVersion=${list.body.metadata.resourceVersion}`);
    await server.send('POST', base, { apiVersion: `${group}/v1`, kind: 'CronTab', metadata: { name: 'w2' } });

    const deleted = await server.send<Obj>('DELETE', `${CRDS}/crontabs.${group}`);
    expect([200, 202]).toContain(deleted.status);
    // The watch ends (cleanly) once the resource is no longer served.
    const ended = await watch;
    expect(ended.status).toBe(200);
    expect(ended.body.toString()).toContain('"w2"');
    await until('CRD gone', async () => ((await server.send('GET', `${CRDS}/crontabs.${group}`)).status === 404 ? true : undefined));
    expect((await server.raw('GET', base)).status).toBe(404);
    const after = await server.send<Obj>('GET', '/apis');
    expect(after.body.groups.map((g: Obj) => g.name)).not.toContain(group);
    expect((await server.raw('GET', `/apis/${group}/v1`)).status).toBe(404);
    const indexAfter = await server.send<Obj>('GET', '/openapi/v3');
    expect(Object.keys(indexAfter.body.paths)).not.toContain(`apis/${group}/v1`);

    // Created again, the CRD starts with no instances: its cleanup deleted them.
    await establish(crontabs(group));
    expect((await server.send<Obj>('GET', base)).body.items).toEqual([]);
  });
});
