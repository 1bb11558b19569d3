// Discovery over HTTPS, negotiated as kube-apiserver negotiates it: the legacy documents as JSON,
// YAML or protobuf (meta/v1 APIVersions, APIGroupList, APIGroup, APIResourceList), no
// transformation honoured, 406 for anything else; the aggregated form when the first servable
// Accept clause asks for apidiscovery.k8s.io v2 or v2beta1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { decodeObject, encodeObject, loadDescriptorRoot, messageNameResolver } from '../../runtime/api/protobuf/index.js';
import { generatedPath } from '../../runtime/generated-files.js';
import { startWireServer, type WireServer } from '../support/wire-client.js';

let wire: WireServer;

beforeAll(async () => {
  wire = await startWireServer();
});
afterAll(async () => {
  await wire?.close();
});

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const AGGREGATED_V2 = 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList';
const AGGREGATED_V2BETA1 = 'application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList';
const NOT_ACCEPTABLE = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  reason: 'NotAcceptable',
  code: 406,
};

const DOCUMENTS = [
  ['/api', 'APIVersions'],
  ['/apis', 'APIGroupList'],
  ['/api/v1', 'APIResourceList'],
  ['/apis/rbac.authorization.k8s.io', 'APIGroup'],
  ['/apis/rbac.authorization.k8s.io/v1', 'APIResourceList'],
] as const;

/**
 * What decoding the protobuf form gives back: the envelope always has an apiVersion (empty where
 * the JSON has none, as for /api and /api/v1); an empty repeated field is absent on the wire; and
 * our decoder leaves zero scalars out as `omitempty` would (APIResource's `namespaced: false` and
 * `singularName: ""` are on the wire, since the encoder writes non-pointer zeros as Go's marshallers
 * do, but come back absent).
 */
function asDecoded(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(asDecoded);
  if (value === null || typeof value !== 'object') return value;
  const dropped = (v: unknown) => (Array.isArray(v) && v.length === 0) || v === false || v === '';
  const entries = Object.entries(value).filter(([k, v]) => k === 'apiVersion' || !dropped(v));
  return Object.fromEntries(entries.map(([k, v]) => [k, asDecoded(v)]));
}

describe('legacy discovery documents', () => {
  const root = loadDescriptorRoot(generatedPath('protobuf/descriptors.json'));
  const names = messageNameResolver(root);

  it.each(DOCUMENTS)('%s is the same %s as JSON, YAML and protobuf', async (path, kind) => {
    const json = await wire.call('GET', path, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(200);
    expect(json.headers['content-type']).toBe('application/json');
    const doc = json.json();
    expect(doc.kind).toBe(kind);

    const yaml = await wire.call('GET', path, { headers: { accept: 'application/yaml' } });
    expect(yaml.status).toBe(200);
    expect(yaml.headers['content-type']).toBe('application/yaml');
    expect(parseYaml(yaml.text)).toEqual(doc);

    const pb = await wire.call('GET', path, { headers: { accept: `${PROTOBUF}, application/json` } });
    expect(pb.status).toBe(200);
    expect(pb.headers['content-type']).toBe(PROTOBUF);
    const decoded = decodeObject(root, pb.raw, names);
    expect(decoded.object).toEqual(asDecoded({ apiVersion: '', ...doc }));
    // The bytes are the document's own encoding as the meta/v1 message of its kind.
    const message = `k8s.io.apimachinery.pkg.apis.meta.v1.${kind}`;
    expect(Buffer.from(encodeObject(root, message, doc)).equals(pb.raw)).toBe(true);
  });

  it.each([
    ['a browser', 'text/html'],
    ['an unknown type', 'application/xml'],
    ['only a Table', 'application/json;as=Table;v=v1;g=meta.k8s.io'],
    ['only PartialObjectMetadata', 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io'],
    ['an aggregated version that does not exist', 'application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList'],
  ])('refuses %s with 406 as an indented JSON Status', async (_, accept) => {
    for (const path of ['/api', '/apis/rbac.authorization.k8s.io/v1']) {
      const r = await wire.call('GET', path, { headers: { accept } });
      expect(r.status).toBe(406);
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.text).toBe(JSON.stringify(NOT_ACCEPTABLE, null, 2));
    }
  });

  it.each([
    ['a transformation, then YAML', 'application/json;as=Table;v=v1;g=meta.k8s.io, application/yaml', 'application/yaml'],
    ['a wildcard', '*/*', 'application/json'],
    ['no Accept at all', undefined, 'application/json'],
    ['the protobuf synonym', 'application/vnd.cluster.protobuf', 'application/vnd.cluster.protobuf'],
  ])('serves %s with the first clause it can', async (_, accept, contentType) => {
    const r = await wire.call('GET', '/apis', { headers: accept ? { accept } : {} });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(contentType);
  });

  it('indents JSON for curl, as every other response', async () => {
    const r = await wire.call('GET', '/api', { headers: { 'user-agent': 'curl/8.5.0' } });
    expect(r.text).toBe(JSON.stringify(r.json(), null, 2));
  });
});

describe('aggregated discovery', () => {
  it.each([
    ['v2', AGGREGATED_V2],
    ['v2beta1', AGGREGATED_V2BETA1],
    // kubectl 1.27 asks this way: v2beta1 first, the legacy form as fallback.
    ['v2beta1', `${AGGREGATED_V2BETA1},application/json`],
    // An unknown version is skipped for the next clause.
    ['v2', `application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList,${AGGREGATED_V2}`],
  ])('serves %s for Accept %s', async (version, accept) => {
    for (const path of ['/api', '/apis']) {
      const r = await wire.call('GET', path, { headers: { accept } });
      expect(r.status).toBe(200);
      expect(r.headers['content-type']).toBe(`application/json;g=apidiscovery.k8s.io;v=${version};as=APIGroupDiscoveryList`);
      expect(r.json()).toMatchObject({ kind: 'APIGroupDiscoveryList', apiVersion: `apidiscovery.k8s.io/${version}` });
    }
  });

  it.each([
    ['a legacy JSON clause first', `application/json,${AGGREGATED_V2}`, 'application/json'],
    ['a protobuf clause first', `${PROTOBUF},${AGGREGATED_V2}`, PROTOBUF],
    ['a higher q on YAML', `${AGGREGATED_V2};q=0.5,application/yaml`, 'application/yaml'],
  ])('serves the legacy document when Accept has %s', async (_, accept, contentType) => {
    const r = await wire.call('GET', '/apis', { headers: { accept } });
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe(contentType);
  });
});
