// The scale subresource of a custom resource on the protobuf wire. kube's crdHandler encodes the
// autoscaling/v1 Scale with the codecs of the scheme Scale is registered in, so /scale answers a
// protobuf Accept and takes a protobuf body, while the custom resource itself (unstructured) is
// refused protobuf: 406 for a protobuf-only Accept. An independent protobufjs root, numbered from
// k8s.io/api/autoscaling/v1/generated.proto, checks the bytes.
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeObject, loadDescriptorRoot } from '../../runtime/api/protobuf/index.js';
import { startWireServer, type WireServer } from '../support/wire-client.js';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const root = loadDescriptorRoot(join(process.cwd(), 'generated/protobuf/descriptors.json'));
const widgets = '/apis/example.com/v1/namespaces/default/widgets';

/** Scale as generated.proto numbers it: metadata 1, spec 2, status 3; ScaleSpec.replicas 1; ScaleStatus.replicas 1, selector 2. */
function upstreamScale(): protobuf.Type {
  const r = new protobuf.Root();
  const ns = r.define('scale');
  ns.add(new protobuf.Type('ObjectMeta').add(new protobuf.Field('name', 1, 'string')).add(new protobuf.Field('namespace', 3, 'string')).add(new protobuf.Field('resourceVersion', 6, 'string')));
  ns.add(new protobuf.Type('ScaleSpec').add(new protobuf.Field('replicas', 1, 'int32')));
  ns.add(new protobuf.Type('ScaleStatus').add(new protobuf.Field('replicas', 1, 'int32')).add(new protobuf.Field('selector', 2, 'string')));
  ns.add(new protobuf.Type('Scale').add(new protobuf.Field('metadata', 1, 'ObjectMeta')).add(new protobuf.Field('spec', 2, 'ScaleSpec')).add(new protobuf.Field('status', 3, 'ScaleStatus')));
  ns.add(
    new protobuf.Type('Unknown')
      .add(new protobuf.Field('typeMeta', 1, 'TypeMeta'))
      .add(new protobuf.Field('raw', 2, 'bytes'))
      .add(new protobuf.Field('contentEncoding', 3, 'string'))
      .add(new protobuf.Field('contentType', 4, 'string')),
  );
  ns.add(new protobuf.Type('TypeMeta').add(new protobuf.Field('apiVersion', 1, 'string')).add(new protobuf.Field('kind', 2, 'string')));
  r.resolveAll();
  return r.lookupType('scale.Scale');
}

describe('the scale subresource of a custom resource in protobuf', () => {
  let wire: WireServer;
  const Scale = upstreamScale();
  const Unknown = Scale.root.lookupType('scale.Unknown');
  const unwrap = (body: Buffer) => {
    expect([...body.subarray(0, 4)]).toEqual([0x6b, 0x38, 0x73, 0x00]);
    const unknown = Unknown.decode(body.subarray(4)) as unknown as { typeMeta: { apiVersion: string; kind: string }; raw: Uint8Array };
    return { typeMeta: unknown.typeMeta, scale: Scale.toObject(Scale.decode(unknown.raw), { defaults: false }) };
  };

  beforeAll(async () => {
    wire = await startWireServer();
    const crd = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { plural: 'widgets', kind: 'Widget' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas', labelSelectorPath: '.status.selector' } },
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  spec: { type: 'object', properties: { replicas: { type: 'integer', maximum: 10 } } },
                  status: { type: 'object', properties: { replicas: { type: 'integer' }, selector: { type: 'string' } } },
                },
              },
            },
          },
        ],
      },
    };
    const created = await wire.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { headers: { 'content-type': 'application/json' }, body: JSON.stringify(crd) });
    expect(created.status, created.text).toBe(201);
    const body = JSON.stringify({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { replicas: 2 } });
    for (let i = 0; i < 200; i++) {
      const res = await wire.call('POST', widgets, { headers: { 'content-type': 'application/json' }, body });
      if (res.status === 201) break;
      await new Promise((r) => setTimeout(r, 25));
    }
    const cr = await wire.call('GET', `${widgets}/w`);
    expect(cr.status, cr.text).toBe(200);
    const withStatus = { ...cr.json(), status: { replicas: 1, selector: 'app=w' } };
    const status = await wire.call('PUT', `${widgets}/w/status`, { headers: { 'content-type': 'application/json' }, body: JSON.stringify(withStatus) });
    expect(status.status, status.text).toBe(200);
  }, 30_000);
  afterAll(() => wire?.close());

  it('answers a protobuf Accept with an autoscaling/v1 Scale in protobuf', async () => {
    const res = await wire.call('GET', `${widgets}/w/scale`, { headers: { accept: PROTOBUF } });
    expect(res.status, res.text).toBe(200);
    expect(res.headers['content-type']).toBe(PROTOBUF);
    const { typeMeta, scale } = unwrap(res.raw);
    expect(typeMeta).toEqual({ apiVersion: 'autoscaling/v1', kind: 'Scale' });
    expect(scale).toMatchObject({ metadata: { name: 'w', namespace: 'default' }, spec: { replicas: 2 }, status: { replicas: 1, selector: 'app=w' } });
    // The custom resource itself has no protobuf form: a protobuf-only Accept is refused.
    expect((await wire.call('GET', `${widgets}/w`, { headers: { accept: PROTOBUF } })).status).toBe(406);
  });

  it('takes a protobuf Scale in a PUT and scales the custom resource', async () => {
    const current = (await wire.call('GET', `${widgets}/w/scale`)).json<{ metadata: Record<string, unknown> }>();
    const body = encodeObject(root, 'k8s.io.api.autoscaling.v1.Scale', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: current.metadata, spec: { replicas: 5 } });
    const res = await wire.call('PUT', `${widgets}/w/scale`, { headers: { 'content-type': PROTOBUF, accept: PROTOBUF }, body });
    expect(res.status, res.text).toBe(200);
    expect(unwrap(res.raw).scale.spec).toEqual({ replicas: 5 });
    expect((await wire.call('GET', `${widgets}/w`)).json<{ spec: unknown }>().spec).toEqual({ replicas: 5 });
  });

  it('answers a bad protobuf Scale with a Status and keeps the custom resource', async () => {
    const current = (await wire.call('GET', `${widgets}/w/scale`)).json<{ metadata: Record<string, unknown> }>();
    // Over the schema's maximum: the custom resource's own validation refuses it (422), in protobuf.
    const tooMany = encodeObject(root, 'k8s.io.api.autoscaling.v1.Scale', { apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: current.metadata, spec: { replicas: 11 } });
    const refused = await wire.call('PUT', `${widgets}/w/scale`, { headers: { 'content-type': PROTOBUF, accept: 'application/json' }, body: tooMany });
    expect(refused.status, refused.text).toBe(422);
    // Bytes that are no protobuf Scale at all.
    const garbage = Buffer.concat([Buffer.from('k8s\0', 'latin1'), Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f])]);
    const bad = await wire.call('PUT', `${widgets}/w/scale`, { headers: { 'content-type': PROTOBUF, accept: 'application/json' }, body: garbage });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.json<{ kind: string }>().kind).toBe('Status');
    expect((await wire.call('GET', `${widgets}/w`)).json<{ spec: unknown }>().spec).toEqual({ replicas: 5 });
    expect((await wire.call('GET', '/readyz')).status).toBe(200);
  });
});
