// Every request body kube-apiserver decodes with the negotiated codec is read from protobuf here
// too: DeleteOptions of DELETE and deletecollection (decoded by the meta-internal scheme, into
// DeleteOptions whatever version it names), Eviction, SelfSubjectReview and subresource bodies.
// The bodies are built by an independent encoder: protobufjs over the upstream field numbers
// (../shared/upstream/proto-fields.json), never the server's own encoder. A DeleteOptions body
// of a wrong kind, or one that does not decode, is passed on as kube's delete handler passes its
// decoder's error: a 500 with no reason, the object left alone.
import { encode } from 'cbor2';
import protobuf from 'protobufjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadUpstreamRoot, upstreamAvailable } from '../support/proto-fields-descriptor.js';
import { startWireServer, type WireServer, type WireResult } from '../support/wire-client.js';

const available = upstreamAvailable();
const NS = '/api/v1/namespaces/default';
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const SCHEME = 'pkg/apis/meta/internalversion/scheme/register.go:27';

let wire: WireServer;
let root: protobuf.Root;

beforeAll(async () => {
  if (!available) return;
  wire = await startWireServer();
  root = loadUpstreamRoot();
  // policy/v1 Eviction is not among the upstream messages: its two fields, numbered as
  // k8s.io/api/policy/v1/generated.proto numbers them, over the upstream ObjectMeta and DeleteOptions.
  root.add(new protobuf.Type('Eviction').add(new protobuf.Field('metadata', 1, `${META}.ObjectMeta`)).add(new protobuf.Field('deleteOptions', 2, `${META}.DeleteOptions`)));
  root.resolveAll();
});
afterAll(async () => {
  await wire?.close();
});

/** `k8s\0` + runtime.Unknown{typeMeta{apiVersion, kind}, raw: the message}, all by protobufjs. */
function envelope(apiVersion: string, kind: string, message: string, value: Record<string, unknown>): Uint8Array {
  const raw = root.lookupType(message).encode(root.lookupType(message).fromObject(value)).finish();
  const unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown').encode({ typeMeta: { apiVersion, kind }, raw }).finish();
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown]);
}
const deleteOptions = (value: Record<string, unknown>, apiVersion = 'v1', kind = 'DeleteOptions') => envelope(apiVersion, kind, `${META}.DeleteOptions`, value);

function send(method: string, path: string, body?: Uint8Array | string, contentType = PROTOBUF): Promise<WireResult> {
  if (body === undefined) return wire.call(method, path);
  // Node sends a DELETE body only with its length given.
  return wire.call(method, path, { headers: { 'content-type': contentType, 'content-length': String(Buffer.byteLength(body)) }, body });
}

async function configMap(name: string, labels: Record<string, string> = {}): Promise<string> {
  const res = await send('POST', `${NS}/configmaps`, JSON.stringify({ metadata: { name, labels }, data: { a: '1' } }), 'application/json');
  expect(res.status, res.text).toBe(201);
  return res.json<{ metadata: { uid: string } }>().metadata.uid;
}

const exists = async (path: string) => (await send('GET', path)).status === 200;

/** A 500 Status with no reason, as kube's delete handler writes a decoder's error. */
function expectDecoderError(res: WireResult, message: string) {
  expect(res.status, res.text).toBe(500);
  const status = res.json<{ reason?: string; message: string; code: number }>();
  expect(status).toMatchObject({ kind: 'Status', status: 'Failure', code: 500, message });
  expect(status.reason ?? '').toBe('');
}

describe.skipIf(!available)('protobuf DeleteOptions', () => {
  it('deletes with a protobuf DeleteOptions body, whatever version it names', async () => {
    for (const [apiVersion, kind] of [['v1', 'DeleteOptions'], ['meta.k8s.io/v1', 'DeleteOptions'], ['apps/v1', 'DeleteOptions'], ['', '']]) {
      await configMap('pb-plain');
      const res = await send('DELETE', `${NS}/configmaps/pb-plain`, deleteOptions({ gracePeriodSeconds: 0 }, apiVersion, kind));
      expect(res.status, `${apiVersion}/${kind}: ${res.text}`).toBe(200);
      expect(res.json()).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'pb-plain', kind: 'configmaps' } });
      expect(await exists(`${NS}/configmaps/pb-plain`)).toBe(false);
    }
  });

  it('honours the preconditions, dryRun and propagationPolicy the protobuf body carries', async () => {
    const uid = await configMap('pb-options');
    const stale = await send('DELETE', `${NS}/configmaps/pb-options`, deleteOptions({ preconditions: { uid: 'not-the-uid' } }));
    expect(stale.status, stale.text).toBe(409);
    expect(await exists(`${NS}/configmaps/pb-options`)).toBe(true);

    const dry = await send('DELETE', `${NS}/configmaps/pb-options`, deleteOptions({ dryRun: ['All'] }));
    expect(dry.status, dry.text).toBe(200);
    expect(await exists(`${NS}/configmaps/pb-options`)).toBe(true);

    const sideways = await send('DELETE', `${NS}/configmaps/pb-options`, deleteOptions({ propagationPolicy: 'Sideways' }));
    expect(sideways.status, sideways.text).toBe(422);
    expect(sideways.json<{ message: string }>().message).toContain('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sideways"');
    expect(await exists(`${NS}/configmaps/pb-options`)).toBe(true);

    const held = await send('DELETE', `${NS}/configmaps/pb-options`, deleteOptions({ preconditions: { uid }, propagationPolicy: 'Background' }));
    expect(held.status, held.text).toBe(200);
    expect(await exists(`${NS}/configmaps/pb-options`)).toBe(false);
  });

  it('answers in protobuf when asked, with the Status decodable by the upstream message', async () => {
    await configMap('pb-answer');
    const res = await wire.call('DELETE', `${NS}/configmaps/pb-answer`, {
      headers: { 'content-type': PROTOBUF, accept: PROTOBUF, 'content-length': String(deleteOptions({}).length) },
      body: deleteOptions({}),
    });
    expect(res.status).toBe(200);
    const unknown = root.lookupType('k8s.io.apimachinery.pkg.runtime.Unknown').decode(res.raw.subarray(4)) as unknown as { raw: Uint8Array };
    expect(root.lookupType(`${META}.Status`).toObject(root.lookupType(`${META}.Status`).decode(unknown.raw))).toMatchObject({ status: 'Success' });
  });

  it('takes a protobuf body on deletecollection, with the list options of the query', async () => {
    await configMap('pb-col-a', { batch: 'pb' });
    await configMap('pb-col-b', { batch: 'pb' });
    await configMap('pb-col-keep', { batch: 'other' });
    const dry = await send('DELETE', `${NS}/configmaps?labelSelector=batch%3Dpb`, deleteOptions({ dryRun: ['All'] }));
    expect(dry.status, dry.text).toBe(200);
    expect(await exists(`${NS}/configmaps/pb-col-a`)).toBe(true);
    const res = await send('DELETE', `${NS}/configmaps?labelSelector=batch%3Dpb`, deleteOptions({ gracePeriodSeconds: 0 }));
    expect(res.status, res.text).toBe(200);
    expect(res.json<{ items: { metadata: { name: string } }[] }>().items.map((i) => i.metadata.name).sort()).toEqual(['pb-col-a', 'pb-col-b']);
    expect([await exists(`${NS}/configmaps/pb-col-a`), await exists(`${NS}/configmaps/pb-col-keep`)]).toEqual([false, true]);
  });

  it('reads the options of a body only, as kube does: the query counts only without one', async () => {
    await configMap('pb-query');
    // dryRun in the query, a body without it: the body's options are the request's.
    const res = await send('DELETE', `${NS}/configmaps/pb-query?dryRun=All`, deleteOptions({}));
    expect(res.status, res.text).toBe(200);
    expect(await exists(`${NS}/configmaps/pb-query`)).toBe(false);
    await configMap('pb-query');
    expect((await send('DELETE', `${NS}/configmaps/pb-query?dryRun=All`)).status).toBe(200);
    expect(await exists(`${NS}/configmaps/pb-query`)).toBe(true);
  });

  it('reads YAML DeleteOptions too, and refuses a media type the meta codecs do not read with 415', async () => {
    await configMap('yaml-options');
    const refused = await send('DELETE', `${NS}/configmaps/yaml-options`, 'gracePeriodSeconds: 0', 'text/plain');
    expect(refused.status, refused.text).toBe(415);
    expect(await exists(`${NS}/configmaps/yaml-options`)).toBe(true);
    const res = await send('DELETE', `${NS}/configmaps/yaml-options`, 'apiVersion: v1\nkind: DeleteOptions\ndryRun: [All]\n', 'application/yaml');
    expect(res.status, res.text).toBe(200);
    expect(await exists(`${NS}/configmaps/yaml-options`)).toBe(true);
  });
});

describe.skipIf(!available)('DeleteOptions bodies the meta-internal scheme cannot read', () => {
  const pod = { metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

  it.each([
    ['a protobuf Pod', () => envelope('v1', 'Pod', 'k8s.io.api.core.v1.Pod', pod), PROTOBUF, `no kind "Pod" is registered for version "v1" in scheme "${SCHEME}"`],
    ['a protobuf kind nobody has', () => deleteOptions({}, 'v1', 'DeleteOption'), PROTOBUF, `no kind "DeleteOption" is registered for version "v1" in scheme "${SCHEME}"`],
    ['a JSON Pod', () => JSON.stringify({ apiVersion: 'v1', kind: 'Pod' }), 'application/json', `no kind "Pod" is registered for version "v1" in scheme "${SCHEME}"`],
    ['JSON ListOptions', () => JSON.stringify({ apiVersion: 'meta.k8s.io/v1', kind: 'ListOptions' }), 'application/json', 'converting (v1.ListOptions) to (v1.DeleteOptions): unknown conversion'],
    ['a JSON Status of any version', () => JSON.stringify({ apiVersion: 'apps/v1', kind: 'Status' }), 'application/json', 'converting (v1.Status) to (v1.DeleteOptions): unknown conversion'],
    ['bytes without the protobuf prefix', () => '{"gracePeriodSeconds":0}', PROTOBUF, 'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]'],
    ['JSON that does not parse', () => '{"gracePeriodSeconds":', 'application/json', "couldn't get version/kind; json parse error: unexpected end of JSON input"],
  ])('%s: 500 with the decoder message, nothing deleted', async (_name, body, contentType, message) => {
    await configMap('kept');
    expectDecoderError(await send('DELETE', `${NS}/configmaps/kept`, body(), contentType), message);
    expect(await exists(`${NS}/configmaps/kept`)).toBe(true);
    expect((await send('DELETE', `${NS}/configmaps/kept`, deleteOptions({}))).status).toBe(200);
  });

  it('refuses a truncated protobuf body, the object kept', async () => {
    await configMap('truncated');
    const whole = deleteOptions({ gracePeriodSeconds: 0, propagationPolicy: 'Background' });
    const res = await send('DELETE', `${NS}/configmaps/truncated`, whole.subarray(0, whole.length - 5));
    expect(res.status, res.text).toBe(500);
    expect(await exists(`${NS}/configmaps/truncated`)).toBe(true);
  });
});

describe.skipIf(!available)('other protobuf request bodies', () => {
  async function createPod(name: string): Promise<{ metadata: { resourceVersion: string } }> {
    const res = await send('POST', `${NS}/pods`, JSON.stringify({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } }), 'application/json');
    expect(res.status, res.text).toBe(201);
    return res.json();
  }

  it('evicts with a protobuf Eviction, its deleteOptions honoured', async () => {
    await createPod('evicted');
    const dry = await send('POST', `${NS}/pods/evicted/eviction`, envelope('policy/v1', 'Eviction', 'Eviction', { metadata: { name: 'evicted' }, deleteOptions: { dryRun: ['All'] } }));
    expect(dry.status, dry.text).toBe(201);
    expect(await exists(`${NS}/pods/evicted`)).toBe(true);
    const res = await send('POST', `${NS}/pods/evicted/eviction`, envelope('policy/v1', 'Eviction', 'Eviction', { metadata: { name: 'evicted' }, deleteOptions: { gracePeriodSeconds: 0 } }));
    expect(res.status, res.text).toBe(201);
    expect(res.json()).toMatchObject({ kind: 'Status', status: 'Success' });
    expect(await exists(`${NS}/pods/evicted`)).toBe(false);
  });

  it('writes pod status from a protobuf Pod', async () => {
    const created = await createPod('status-pb');
    const body = envelope('v1', 'Pod', 'k8s.io.api.core.v1.Pod', {
      metadata: { name: 'status-pb', namespace: 'default', resourceVersion: created.metadata.resourceVersion },
      spec: { containers: [{ name: 'c', image: 'nginx' }] },
      status: { phase: 'Running', message: 'from protobuf' },
    });
    const res = await send('PUT', `${NS}/pods/status-pb/status`, body);
    expect(res.status, res.text).toBe(200);
    const stored = (await send('GET', `${NS}/pods/status-pb`)).json<{ status: { phase: string; message: string } }>();
    expect(stored.status).toMatchObject({ phase: 'Running', message: 'from protobuf' });
  });

  it('answers a protobuf SelfSubjectReview', async () => {
    const body = envelope('authentication.k8s.io/v1', 'SelfSubjectReview', 'k8s.io.api.authentication.v1.SelfSubjectReview', {});
    const res = await send('POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', body);
    expect(res.status, res.text).toBe(201);
    expect(res.json()).toMatchObject({ kind: 'SelfSubjectReview', status: { userInfo: { groups: expect.arrayContaining(['system:masters']) } } });
  });
});

describe('CBOR DeleteOptions (CBORServingAndStorage on)', () => {
  let cborWire: WireServer;
  beforeAll(async () => {
    cborWire = await startWireServer({ featureGates: { CBORServingAndStorage: true } });
  });
  afterAll(async () => {
    await cborWire?.close();
  });

  it('reads the options of a CBOR body', async () => {
    const call = (method: string, path: string, body?: Uint8Array) =>
      cborWire.call(method, path, body ? { headers: { 'content-type': 'application/cbor', 'content-length': String(body.length) }, body } : {});
    // Self-described CBOR (tag 55799) as kube's encoder writes it.
    const cbor = (value: unknown) => Buffer.concat([Buffer.from([0xd9, 0xd9, 0xf7]), encode(value)]);
    const created = await cborWire.call('POST', `${NS}/configmaps`, { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ metadata: { name: 'cbor' } }) });
    expect(created.status).toBe(201);
    expect((await call('DELETE', `${NS}/configmaps/cbor`, cbor({ apiVersion: 'v1', kind: 'DeleteOptions', dryRun: ['All'] }))).status).toBe(200);
    expect((await call('GET', `${NS}/configmaps/cbor`)).status).toBe(200);
    expect((await call('DELETE', `${NS}/configmaps/cbor`, cbor({ apiVersion: 'v1', kind: 'DeleteOptions', gracePeriodSeconds: 0 }))).status).toBe(200);
    expect((await call('GET', `${NS}/configmaps/cbor`)).status).toBe(404);
  });
});
