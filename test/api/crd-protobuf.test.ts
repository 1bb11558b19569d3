// CustomResourceDefinition on the protobuf wire: JSONSchemaProps' `$ref`, `$schema` and
// `x-kubernetes-*` members travel under their proto names (ref, schema, xKubernetes*), the JSON
// values (default, example, enum) as raw JSON text, and the three schema unions as messages
// (items: schema 1 or jSONSchemas 2; additionalProperties: allows 1 and schema 2; dependencies:
// schema 1 or property 2), read back into their JSON forms. An independent protobufjs root,
// numbered from apiextensions-apiserver's generated.proto, checks the bytes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import protobuf from 'protobufjs';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMessage, decodeObject, encodeMessage, loadDescriptorRoot, messageNameResolver } from '../../runtime/api/protobuf/index.js';
import { startWireServer, type WireServer } from '../support/wire-client.js';
import { UPSTREAM_DIR, upstreamAvailable } from '../support/upstream.js';

const PKG = 'k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1';
const root = loadDescriptorRoot(join(process.cwd(), 'generated/protobuf/descriptors.json'));

/** The upstream messages the test reads, numbered as generated.proto numbers them. */
function upstreamRoot(): protobuf.Root {
  const r = new protobuf.Root();
  const ns = r.define(PKG);
  const props = new protobuf.Type('JSONSchemaProps')
    .add(new protobuf.Field('schema', 2, 'string'))
    .add(new protobuf.Field('ref', 3, 'string'))
    .add(new protobuf.Field('type', 5, 'string'))
    .add(new protobuf.Field('default', 8, 'JSON'))
    .add(new protobuf.Field('enum', 20, 'JSON', 'repeated'))
    .add(new protobuf.Field('items', 24, 'JSONSchemaPropsOrArray'))
    .add(new protobuf.MapField('properties', 29, 'string', 'JSONSchemaProps'))
    .add(new protobuf.Field('additionalProperties', 30, 'JSONSchemaPropsOrBool'))
    .add(new protobuf.MapField('dependencies', 32, 'string', 'JSONSchemaPropsOrStringArray'))
    .add(new protobuf.Field('xKubernetesPreserveUnknownFields', 38, 'bool'))
    .add(new protobuf.Field('xKubernetesIntOrString', 40, 'bool'))
    .add(new protobuf.Field('xKubernetesListType', 42, 'string'));
  ns.add(props);
  ns.add(new protobuf.Type('JSON').add(new protobuf.Field('raw', 1, 'bytes')));
  ns.add(new protobuf.Type('JSONSchemaPropsOrArray').add(new protobuf.Field('schema', 1, 'JSONSchemaProps')).add(new protobuf.Field('jSONSchemas', 2, 'JSONSchemaProps', 'repeated')));
  ns.add(new protobuf.Type('JSONSchemaPropsOrBool').add(new protobuf.Field('allows', 1, 'bool')).add(new protobuf.Field('schema', 2, 'JSONSchemaProps')));
  ns.add(new protobuf.Type('JSONSchemaPropsOrStringArray').add(new protobuf.Field('schema', 1, 'JSONSchemaProps')).add(new protobuf.Field('property', 2, 'string', 'repeated')));
  r.resolveAll();
  return r;
}

describe('JSONSchemaProps on the protobuf wire', () => {
  const upstream = upstreamRoot();
  const Props = upstream.lookupType(`${PKG}.JSONSchemaProps`);
  const schema = {
    $schema: 'http://json-schema.org/draft-04/schema#',
    type: 'object',
    'x-kubernetes-preserve-unknown-fields': true,
    properties: {
      list: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string', enum: ['a', 'b', null] } },
      tuple: { type: 'array', items: [{ type: 'string' }, { type: 'integer', default: 3 }] },
      port: { 'x-kubernetes-int-or-string': true, default: { deep: [1, 'x', true] } },
      map: { type: 'object', additionalProperties: { type: 'string', $ref: '#/definitions/x' } },
      open: { type: 'object', additionalProperties: true },
      closed: { type: 'object', additionalProperties: false },
      deps: { type: 'object', dependencies: { a: ['b', 'c'], d: { type: 'object' } } },
    },
  };
  const bytes = encodeMessage(root, `${PKG}.JSONSchemaProps`, schema);

  it('writes the wire form generated.proto describes', () => {
    const wire = Props.toObject(Props.decode(bytes), { bytes: String, defaults: false }) as Record<string, any>;
    expect(wire.schema).toBe('http://json-schema.org/draft-04/schema#');
    expect(wire.xKubernetesPreserveUnknownFields).toBe(true);
    const p = wire.properties;
    expect(p.list.xKubernetesListType).toBe('set');
    expect(p.list.items.schema.enum.map((e: { raw?: string }) => (e.raw ? Buffer.from(e.raw, 'base64').toString() : undefined))).toEqual(['"a"', '"b"', undefined]);
    expect(p.tuple.items.jSONSchemas.map((s: { type: string }) => s.type)).toEqual(['string', 'integer']);
    expect(Buffer.from(p.tuple.items.jSONSchemas[1].default.raw, 'base64').toString()).toBe('3');
    expect(Buffer.from(p.port.default.raw, 'base64').toString()).toBe('{"deep":[1,"x",true]}');
    expect(p.map.additionalProperties).toEqual({ allows: true, schema: expect.objectContaining({ type: 'string', ref: '#/definitions/x' }) });
    expect(p.open.additionalProperties).toEqual({ allows: true });
    expect(p.closed.additionalProperties).toEqual({ allows: false });
    expect(p.deps.dependencies.a).toEqual({ property: ['b', 'c'] });
    expect(p.deps.dependencies.d.schema.type).toBe('object');
  });

  it('reads it back into the JSON form (a null enum value stays null)', () => {
    const back = decodeMessage(root, `${PKG}.JSONSchemaProps`, bytes);
    expect(back).toEqual(schema);
  });
});

describe.runIf(upstreamAvailable())('a stored CRD read as JSON, protobuf and YAML', () => {
  let wire: WireServer;
  const crd = parse(readFileSync(join(UPSTREAM_DIR, 'crds/gateway.networking.k8s.io_httproutes.yaml'), 'utf8')) as { metadata: { name: string } };
  const path = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`;

  beforeAll(async () => {
    wire = await startWireServer();
  });
  afterAll(() => wire?.close());

  it('gives the same object in every encoding', async () => {
    const created = await wire.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { headers: { 'content-type': 'application/json' }, body: JSON.stringify(crd) });
    expect(created.status, created.text).toBe(201);
    const json = (await wire.call('GET', path, { headers: { accept: 'application/json' } })).json();
    const pb = await wire.call('GET', path, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    expect(pb.status).toBe(200);
    expect(pb.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
    const decoded = decodeObject(root, new Uint8Array(pb.raw), messageNameResolver(root));
    expect(decoded.object).toEqual(json);
    const yaml = await wire.call('GET', path, { headers: { accept: 'application/yaml' } });
    expect(parse(yaml.text)).toEqual(json);
  });

  it('refuses a protobuf body whose schemas nest deeper than a JSON body may, and stays up', async () => {
    const varint = (n: number): number[] => {
      const out: number[] = [];
      for (; n > 127; n >>>= 7) out.push((n & 0x7f) | 0x80);
      return [...out, n];
    };
    const wrap = (tag: number, body: Buffer): Buffer => Buffer.concat([Buffer.from([tag, ...varint(body.length)]), body]);
    // JSONSchemaProps{not: {not: ... {type: "object"}}}, built inside out (field 28, tag 0xe2 0x01).
    const nested = (depth: number): Buffer => {
      const leaf = [0x2a, 0x06, ...Buffer.from('object')];
      const lengths = [leaf.length];
      for (let i = 0; i < depth; i++) lengths.push(lengths[i] + 2 + varint(lengths[i]).length);
      const out: number[] = [];
      for (let i = depth - 1; i >= 0; i--) out.push(0xe2, 0x01, ...varint(lengths[i]));
      return Buffer.from([...out, ...leaf]);
    };
    const Unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
    for (const depth of [300, 200_000]) {
      const version = Buffer.concat([wrap(0x0a, Buffer.from('v1')), Buffer.from([0x10, 1, 0x18, 1]), wrap(0x22, wrap(0x0a, nested(depth)))]);
      const names = Buffer.concat([wrap(0x0a, Buffer.from('deeps')), wrap(0x22, Buffer.from('Deep'))]);
      const spec = Buffer.concat([wrap(0x0a, Buffer.from('example.com')), wrap(0x1a, names), wrap(0x22, Buffer.from('Namespaced')), wrap(0x3a, version)]);
      const raw = Buffer.concat([wrap(0x0a, wrap(0x0a, Buffer.from('deeps.example.com'))), wrap(0x12, spec)]);
      const unknown = Unknown.encode(Unknown.fromObject({ typeMeta: { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' }, raw })).finish();
      const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
      const res = await wire.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { headers: { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/json' }, body });
      expect(res.status, res.text).toBe(400);
      expect(res.json<{ message: string }>().message).toBe('unable to decode CustomResourceDefinition from protobuf: exceeded max depth of 256');
    }
    expect((await wire.call('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/deeps.example.com')).status).toBe(404);
    expect((await wire.call('GET', '/readyz')).status).toBe(200);
  });

  it('takes a protobuf body', async () => {
    const widget = {
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
            schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { size: { type: 'integer', default: 1 } } } } } },
          },
        ],
      },
    };
    const raw = encodeMessage(root, `${PKG}.CustomResourceDefinition`, widget);
    const Unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown');
    const unknown = Unknown.encode(Unknown.fromObject({ typeMeta: { apiVersion: widget.apiVersion, kind: widget.kind }, raw })).finish();
    const body = Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
    const created = await wire.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { headers: { 'content-type': 'application/vnd.kubernetes.protobuf', accept: 'application/json' }, body });
    expect(created.status, created.text).toBe(201);
    const got = (await wire.call('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com')).json<{ spec: Record<string, unknown> }>();
    expect(got.spec).toEqual({ ...widget.spec, names: { ...widget.spec.names, singular: 'widget', listKind: 'WidgetList' }, conversion: { strategy: 'None' } });
  });
});
