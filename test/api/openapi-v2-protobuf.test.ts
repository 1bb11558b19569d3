// /openapi/v2 in gnostic's protobuf form: the wire numbers of the messages, the JSON-to-gnostic
// mapping (decoded back with the same descriptor), content negotiation as kube-openapi's handler
// does it, and the real kubectl 1.27, whose apply and explain read only this form.
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import { parse as parseYaml } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MEDIA_TYPE_OPENAPI_V2_PROTOBUF, OpenAPIDocuments } from '../../runtime/api/openapi.js';
import { openAPIV2Type } from '../../runtime/api/openapi-v2-descriptor.js';
import { encodeOpenAPIV2, toOpenAPIV2Document } from '../../runtime/api/openapi-v2-protobuf.js';
import { kubectlVersions, startKubectlServer, type KubectlServer } from '../support/kubectl.js';

type Obj = Record<string, any>; // decoded messages are walked freely in assertions

const SWAGGER_PATH = new URL('../../generated/openapi/v2/swagger.json', import.meta.url).pathname;

function swagger(): Obj {
  const doc = JSON.parse(readFileSync(SWAGGER_PATH, 'utf8')) as Obj;
  delete doc['//'];
  return doc;
}

function decode(bytes: Uint8Array): Obj {
  const type = openAPIV2Type('Document');
  return type.toObject(type.decode(bytes), { longs: Number }) as Obj;
}

/** The field numbers of the top-level fields on the wire, in order. */
function wireFields(bytes: Uint8Array): number[] {
  const reader = protobuf.Reader.create(bytes);
  const ids: number[] = [];
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    ids.push(tag >>> 3);
    reader.skipType(tag & 7);
  }
  return ids;
}

const encodeAs = (name: string, message: Obj) => openAPIV2Type(name).encode(message).finish();

/** kube-openapi reads YAML with gopkg.in/yaml.v2, a YAML 1.1 parser. */
const yamlValue = (any: Obj) => parseYaml(any.yaml, { version: '1.1' });
const named = (list: Obj[] | undefined, name: string) => list?.find((entry) => entry.name === name)?.value;
const extensions = (list: Obj[] | undefined) => Object.fromEntries((list ?? []).map((e) => [e.name, yamlValue(e.value)]));

describe('gnostic OpenAPI v2 descriptor', () => {
  // Numbers from gnostic-models openapiv2/OpenAPIv2.proto.
  it.each([
    ['Document', { securityDefinitions: {} }, 13],
    ['Document', { vendorExtension: [{}] }, 16],
    ['Document', { definitions: {} }, 9],
    ['Schema', { ref: '#/x' }, 1],
    ['Schema', { additionalProperties: {} }, 21],
    ['Schema', { type: {} }, 22],
    ['Schema', { readOnly: true }, 27],
    ['Schema', { vendorExtension: [{}] }, 31],
    ['Operation', { operationId: 'x' }, 5],
    ['Operation', { vendorExtension: [{}] }, 13],
    ['PathItem', { patch: {} }, 8],
    ['PathItem', { parameters: [{}] }, 9],
    ['Paths', { path: [{}] }, 2],
    ['Responses', { responseCode: [{}] }, 1],
    ['QueryParameterSubSchema', { uniqueItems: true }, 20],
    ['QueryParameterSubSchema', { vendorExtension: [{}] }, 23],
    ['PathParameterSubSchema', { vendorExtension: [{}] }, 22],
    ['Header', { description: 'x' }, 18],
    ['PrimitivesItems', { vendorExtension: [{}] }, 18],
    ['FileSchema', { example: {} }, 9],
    ['Any', { yaml: 'x' }, 2],
    ['NonBodyParameter', { pathParameterSubSchema: {} }, 4],
    ['SecurityDefinitionsItem', { apiKeySecurity: {} }, 2],
    ['Oauth2AccessCodeSecurity', { tokenUrl: 'x' }, 5],
  ])('%s %j is field %i', (name, message, id) => {
    expect(wireFields(encodeAs(name, message))).toEqual([id]);
  });

  it('keeps a false additionalProperties on the wire (a oneof member has presence)', () => {
    const bytes = encodeAs('Schema', (toOpenAPIV2Document({ definitions: { X: { type: 'object', additionalProperties: false } } }) as Obj).definitions.additionalProperties[0].value);
    const schema = openAPIV2Type('Schema').toObject(openAPIV2Type('Schema').decode(bytes)) as Obj;
    expect(schema.additionalProperties).toEqual({ boolean: false });
  });
});

describe('swagger JSON to gnostic Document', () => {
  const json = swagger();
  const doc = decode(encodeOpenAPIV2(json));
  const definitions: Obj[] = doc.definitions.additionalProperties;

  it('keeps the header fields and every definition, in document order', () => {
    expect(doc.swagger).toBe('2.0');
    expect(doc.info).toEqual({ title: json.info.title, version: json.info.version });
    expect(definitions.map((d) => d.name)).toEqual(Object.keys(json.definitions));
    expect(doc.paths.path.map((p: Obj) => p.name)).toEqual(Object.keys(json.paths));
  });

  it('carries ConfigMap with its properties, descriptions, map types and GVK', () => {
    const configMap = named(definitions, 'io.k8s.api.core.v1.ConfigMap');
    const source = json.definitions['io.k8s.api.core.v1.ConfigMap'];
    expect(configMap.description).toBe(source.description);
    expect(configMap.type).toEqual({ value: ['object'] });
    const properties: Obj[] = configMap.properties.additionalProperties;
    expect(properties.map((p) => p.name)).toEqual(Object.keys(source.properties));
    const data = named(properties, 'data');
    expect(data.description).toBe(source.properties.data.description);
    expect(data.additionalProperties).toEqual({ schema: { type: { value: ['string'] } } });
    expect(named(properties, 'binaryData').additionalProperties.schema.format).toBe('byte');
    expect(named(properties, 'metadata')).toEqual({
      ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta',
      description: source.properties.metadata.description,
    });
    expect(extensions(configMap.vendorExtension)).toEqual({ 'x-kubernetes-group-version-kind': source['x-kubernetes-group-version-kind'] });
  });

  it('turns every vendor extension of every definition property into YAML that parses back to its JSON value', () => {
    let seen = 0;
    const walk = (schema: Obj, decoded: Obj) => {
      const want = Object.fromEntries(Object.entries(schema).filter(([k]) => k.startsWith('x-')));
      expect(extensions(decoded.vendorExtension)).toEqual(want);
      seen += Object.keys(want).length;
      for (const [name, property] of Object.entries((schema.properties ?? {}) as Obj)) walk(property, named(decoded.properties.additionalProperties, name));
      if (schema.items) walk(schema.items, decoded.items.schema[0]);
    };
    for (const [name, schema] of Object.entries(json.definitions as Obj)) walk(schema, named(definitions, name));
    expect(seen).toBeGreaterThan(0);
    const objectMeta = named(definitions, 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
    const ownerReferences = named(objectMeta.properties.additionalProperties, 'ownerReferences');
    expect(extensions(ownerReferences.vendorExtension)).toMatchObject({ 'x-kubernetes-patch-strategy': 'merge', 'x-kubernetes-patch-merge-key': 'uid' });
    expect(ownerReferences.items.schema[0].ref).toBe('#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference');
  });

  it("maps a configmap path's PATCH operation with its parameters, responses and extensions", () => {
    const item = named(doc.paths.path, '/api/v1/namespaces/{namespace}/configmaps/{name}');
    const patch = item.patch;
    expect(patch.operationId).toBe('patchCoreV1NamespacedConfigMap');
    expect(patch.consumes).toContain('application/strategic-merge-patch+json');
    expect(patch.produces).toContain('application/json');
    expect(patch.schemes).toEqual(['https']);
    expect(patch.tags).toEqual(['core_v1']);
    expect(extensions(patch.vendorExtension)).toEqual({
      'x-kubernetes-action': 'patch',
      'x-kubernetes-group-version-kind': { group: '', kind: 'ConfigMap', version: 'v1' },
    });
    const [body, ...query] = patch.parameters.map((p: Obj) => p.parameter);
    expect(body.bodyParameter).toEqual({ name: 'body', in: 'body', required: true, schema: { ref: '#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Patch' } });
    const fieldValidation = query.map((p: Obj) => p.nonBodyParameter.queryParameterSubSchema).find((p: Obj) => p.name === 'fieldValidation');
    expect(fieldValidation).toMatchObject({ in: 'query', type: 'string', uniqueItems: true });
    expect(patch.responses.responseCode.map((r: Obj) => r.name)).toEqual(['200', '201', '401']);
    expect(named(patch.responses.responseCode, '200')).toEqual({
      response: { description: 'OK', schema: { schema: { ref: '#/definitions/io.k8s.api.core.v1.ConfigMap' } } },
    });
    expect(item.parameters.map((p: Obj) => p.parameter.nonBodyParameter.pathParameterSubSchema?.name).filter(Boolean)).toEqual(['name', 'namespace']);
  });

  it('keeps the bearer token security scheme and requirement', () => {
    expect(doc.securityDefinitions.additionalProperties).toEqual([
      { name: 'BearerToken', value: { apiKeySecurity: { type: 'apiKey', name: 'authorization', in: 'header', description: 'Bearer token authentication' } } },
    ]);
    expect(doc.security).toEqual([{ additionalProperties: [{ name: 'BearerToken', value: {} }] }]);
  });

  it('maps the rest of swagger 2.0 as gnostic does', () => {
    const bytes = encodeOpenAPIV2({
      swagger: '2.0',
      info: { title: 't', version: 'v', 'x-info': 1 },
      paths: {
        'x-paths': 'ext',
        '/things/{id}': {
          parameters: [{ $ref: '#/parameters/id' }],
          get: {
            parameters: [
              { name: 'h', in: 'header', type: 'integer', format: 'int32', enum: [1, 2] },
              { name: 'f', in: 'formData', type: 'string', allowEmptyValue: true, default: 'on' },
              { name: 'ids', in: 'query', type: 'array', items: { type: 'string' }, collectionFormat: 'csv', maxItems: 3 },
            ],
            responses: {
              default: { $ref: '#/responses/oops' },
              '200': { description: 'a file', schema: { type: 'file' }, headers: { 'X-Rate': { type: 'integer', description: 'r' } } },
              'x-responses': true,
            },
          },
        },
      },
      definitions: {
        Free: { type: 'object', additionalProperties: true },
        Closed: { type: 'object', properties: {}, additionalProperties: false, required: ['a'] },
        Combined: { allOf: [{ $ref: '#/definitions/Free' }], default: { a: null }, readOnly: true, example: 'yes' },
        Tuple: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], minItems: 0, maximum: 2.5 },
      },
      parameters: { id: { name: 'id', in: 'path', required: true, type: 'string' } },
      responses: { oops: { description: 'failed' } },
      securityDefinitions: {
        basic: { type: 'basic' },
        oauth: { type: 'oauth2', flow: 'accessCode', authorizationUrl: 'https://a', tokenUrl: 'https://t', scopes: { read: 'reads' } },
      },
      tags: [{ name: 'things', externalDocs: { url: 'https://docs' } }],
    });
    const doc = decode(bytes);
    expect(extensions(doc.info.vendorExtension)).toEqual({ 'x-info': 1 });
    expect(extensions(doc.paths.vendorExtension)).toEqual({ 'x-paths': 'ext' });
    const item = named(doc.paths.path, '/things/{id}');
    expect(item.parameters).toEqual([{ jsonReference: { ref: '#/parameters/id' } }]);
    const [header, form, query] = item.get.parameters.map((p: Obj) => p.parameter.nonBodyParameter);
    expect(header.headerParameterSubSchema).toMatchObject({ name: 'h', type: 'integer', format: 'int32' });
    expect(header.headerParameterSubSchema.enum.map(yamlValue)).toEqual([1, 2]);
    expect(form.formDataParameterSubSchema).toMatchObject({ allowEmptyValue: true });
    expect(yamlValue(form.formDataParameterSubSchema.default)).toBe('on');
    expect(query.queryParameterSubSchema).toMatchObject({ items: { type: 'string' }, collectionFormat: 'csv', maxItems: 3 });
    const responses = item.get.responses;
    expect(responses.responseCode.map((r: Obj) => r.name)).toEqual(['200', 'default']);
    expect(named(responses.responseCode, 'default')).toEqual({ jsonReference: { ref: '#/responses/oops' } });
    expect(named(responses.responseCode, '200').response).toEqual({
      description: 'a file',
      schema: { fileSchema: { type: 'file' } },
      headers: { additionalProperties: [{ name: 'X-Rate', value: { type: 'integer', description: 'r' } }] },
    });
    expect(extensions(responses.vendorExtension)).toEqual({ 'x-responses': true });

    const defs: Obj[] = doc.definitions.additionalProperties;
    expect(named(defs, 'Free').additionalProperties).toEqual({ boolean: true });
    expect(named(defs, 'Closed')).toEqual({ type: { value: ['object'] }, properties: {}, additionalProperties: { boolean: false }, required: ['a'] });
    const combined = named(defs, 'Combined');
    expect(combined.allOf).toEqual([{ ref: '#/definitions/Free' }]);
    expect(yamlValue(combined.default)).toEqual({ a: null });
    expect(yamlValue(combined.example)).toBe('yes');
    expect(combined.readOnly).toBe(true);
    expect(named(defs, 'Tuple')).toEqual({ type: { value: ['array'] }, items: { schema: [{ type: { value: ['string'] } }, { type: { value: ['integer'] } }] }, maximum: 2.5 });

    expect(doc.parameters.additionalProperties).toEqual([
      { name: 'id', value: { nonBodyParameter: { pathParameterSubSchema: { name: 'id', in: 'path', required: true, type: 'string' } } } },
    ]);
    expect(doc.responses.additionalProperties).toEqual([{ name: 'oops', value: { description: 'failed' } }]);
    expect(doc.securityDefinitions.additionalProperties).toEqual([
      { name: 'basic', value: { basicAuthenticationSecurity: { type: 'basic' } } },
      {
        name: 'oauth',
        value: {
          oauth2AccessCodeSecurity: {
            type: 'oauth2',
            flow: 'accessCode',
            authorizationUrl: 'https://a',
            tokenUrl: 'https://t',
            scopes: { additionalProperties: [{ name: 'read', value: 'reads' }] },
          },
        },
      },
    ]);
    expect(doc.tags).toEqual([{ name: 'things', externalDocs: { url: 'https://docs' } }]);
  });

  it('writes YAML that a YAML 1.1 reader takes back as the same strings', () => {
    const doc = decode(encodeOpenAPIV2({ swagger: '2.0', info: { 'x-words': ['on', 'no', '0755', '1e3', 'a long line '.repeat(20)] } }));
    expect(extensions(doc.info.vendorExtension)).toEqual({ 'x-words': ['on', 'no', '0755', '1e3', 'a long line '.repeat(20)] });
  });
});

describe('GET /openapi/v2 negotiation', () => {
  const documents = () => new OpenAPIDocuments(new Set(['api/v1']));

  it.each([
    ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf', MEDIA_TYPE_OPENAPI_V2_PROTOBUF],
    ['application/com.github.proto-openapi.spec.v2.v1.0+protobuf', MEDIA_TYPE_OPENAPI_V2_PROTOBUF],
    ['application/com.github.proto-openapi.spec.v2@v1.0+protobuf, application/json', MEDIA_TYPE_OPENAPI_V2_PROTOBUF],
    ['application/json;q=0.5, application/com.github.proto-openapi.spec.v2.v1.0+protobuf', MEDIA_TYPE_OPENAPI_V2_PROTOBUF],
    ['application/json, application/com.github.proto-openapi.spec.v2@v1.0+protobuf', 'application/json'],
    ['*/*', 'application/json'],
    ['application/*', 'application/json'],
    [undefined, 'application/json'],
  ])('Accept %s is answered with %s', (accept, contentType) => {
    const response = documents().handle('/openapi/v2', accept)!;
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(contentType);
    expect(response.headers.vary).toBe('Accept');
  });

  it('serves protobuf bytes that decode to the JSON document, under the same ETag, encoded once', () => {
    const served = documents();
    const json = served.handle('/openapi/v2', 'application/json')!;
    const pb = served.handle('/openapi/v2', 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf')!;
    expect(pb.body).toBeInstanceOf(Uint8Array);
    expect(pb.headers.etag).toBe(json.headers.etag);
    expect(decode(pb.body as Uint8Array)).toEqual(decode(encodeOpenAPIV2(JSON.parse(json.body as string))));
    expect(served.handle('/openapi/v2', 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf')!.body).toBe(pb.body);
  });

  it('refuses other media types with 406', () => {
    expect(() => documents().handle('/openapi/v2', 'text/html')).toThrow(expect.objectContaining({ code: 406, reason: 'NotAcceptable' }));
    expect(() => documents().handle('/openapi/v2', 'application/vnd.kubernetes.protobuf')).toThrow(expect.objectContaining({ code: 406 }));
  });
});

const kubectl127 = kubectlVersions().find((k) => k.version === '1.27')?.path;

describe.skipIf(!kubectl127)('kubectl 1.27 reads the protobuf OpenAPI v2', () => {
  let cluster: KubectlServer;

  beforeAll(async () => {
    cluster = await startKubectlServer('openapi-v2-pb-', { storage: 'memory' }, 30_000);
  });

  afterAll(async () => {
    await cluster?.close();
  });

  // kubectl's HOME is the test's fresh directory, so its discovery and OpenAPI caches start empty.
  const kubectl = (args: string[], input?: string) => cluster.kubectl(kubectl127!, args, input);

  const configMap = (name: string, value: string, extra = '') =>
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: default\ndata:\n  key: "${value}"\n${extra}`;

  it('explains ConfigMap from the v2 document', async () => {
    const r = await kubectl(['explain', 'configmap', '--output=plaintext-openapiv2']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^KIND:\s+ConfigMap$/m);
    expect(r.stdout).toMatch(/^VERSION:\s+v1$/m);
    expect(r.stdout).toMatch(/^\s+data\t<map\[string\]string>$/m);
    const field = await kubectl(['explain', 'configmap.metadata.labels', '--output=plaintext-openapiv2']);
    expect(field.stdout).toMatch(/^FIELD:\s+labels <map\[string\]string>$/m);
  });

  it('applies a ConfigMap, then applies a change to it', async () => {
    const created = await kubectl(['apply', '-f', '-'], configMap('pb-apply', 'one'));
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('configmap/pb-apply created');
    const configured = await kubectl(['apply', '-f', '-'], configMap('pb-apply', 'two'));
    expect(configured.stderr).toBe('');
    expect(configured.stdout.trim()).toBe('configmap/pb-apply configured');
    const got = await kubectl(['get', 'configmap', 'pb-apply', '-n', 'default', '-o', 'jsonpath={.data.key}']);
    expect(got.stdout).toBe('two');
  });

  it('rejects an unknown field under --validate=strict', async () => {
    const r = await kubectl(['create', '--validate=strict', '-f', '-'], configMap('pb-bogus', 'x', 'bogus: 1\n'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('unknown field "bogus"');
  });
});
