// How a response is shaped beyond its media type, over HTTPS: pretty printing (?pretty, curl-like
// user agents), Table includeObject, PartialObjectMetadata for get/list/watch, protobuf lists and
// watch frames, and gzip above kube-apiserver's 128 KiB threshold.
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GZIP_THRESHOLD_BYTES } from '../../runtime/api/content-encoding.js';
import { decodeObject, decodeWatchEvent, loadDescriptorRoot, messageNameResolver, splitFrames } from '../../runtime/api/protobuf/index.js';
import { generatedPath } from '../../runtime/generated-files.js';
import { startWireServer, type WireServer } from '../support/wire-client.js';

let wire: WireServer;
const NS = '/api/v1/namespaces/default/configmaps';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

beforeAll(async () => {
  wire = await startWireServer();
  for (const name of ['shape-a', 'shape-b']) {
    const r = await wire.call('POST', NS, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { set: 'shape' } }, data: { k: 'v' } }),
    });
    expect(r.status).toBe(201);
  }
});
afterAll(async () => {
  await wire?.close();
});

describe('pretty printing', () => {
  it('indents JSON for ?pretty=true and for curl, and not for other clients', async () => {
    const compact = await wire.call('GET', `${NS}/shape-a`, { headers: { 'user-agent': 'kubectl/v1.33.0' } });
    expect(compact.text.endsWith('}\n')).toBe(true);
    expect(compact.text.split('\n')).toHaveLength(2);
    const asked = await wire.call('GET', `${NS}/shape-a?pretty=true`, { headers: { 'user-agent': 'kubectl/v1.33.0' } });
    expect(asked.text).toBe(JSON.stringify(asked.json(), null, 2));
    const curl = await wire.call('GET', `${NS}/shape-a`, { headers: { 'user-agent': 'curl/8.5.0' } });
    expect(curl.text).toBe(JSON.stringify(curl.json(), null, 2));
    const declined = await wire.call('GET', `${NS}/shape-a?pretty=false`, { headers: { 'user-agent': 'curl/8.5.0' } });
    expect(declined.text.split('\n')).toHaveLength(2);
  });

  it('indents errors for curl as well', async () => {
    const r = await wire.call('GET', `${NS}/absent`, { headers: { 'user-agent': 'curl/8.5.0' } });
    expect(r.status).toBe(404);
    expect(r.text).toBe(JSON.stringify(r.json(), null, 2));
  });
});

describe('Table includeObject', () => {
  type TableRows = { rows: { cells: unknown[]; object: Record<string, unknown> | null }[] };
  const rowsOf = async (query: string) => (await wire.call('GET', `${NS}?labelSelector=set%3Dshape${query}`, { headers: { accept: TABLE } })).json<TableRows>().rows;

  it('carries PartialObjectMetadata by default, the whole object, or nothing', async () => {
    const metadata = await rowsOf('');
    expect(metadata.map((r) => r.object?.kind)).toEqual(['PartialObjectMetadata', 'PartialObjectMetadata']);
    expect(metadata[0].object).toMatchObject({ apiVersion: 'meta.k8s.io/v1', metadata: { name: 'shape-a' } });
    const whole = await rowsOf('&includeObject=Object');
    expect(whole[0].object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { k: 'v' } });
    const none = await rowsOf('&includeObject=None');
    expect(none.map((r) => r.object)).toEqual([null, null]);
  });

  it('refuses an unknown includeObject with 400', async () => {
    const r = await wire.call('GET', `${NS}?includeObject=Everything`, { headers: { accept: TABLE } });
    expect(r.status).toBe(400);
    expect(r.json<{ message: string }>().message).toBe(
      `Unable to convert to Table as requested: includeObject: Invalid value: "Everything": must be 'Metadata', 'Object', 'None', or empty`,
    );
  });

  it('applies to the rows of a Table watch', async () => {
    const r = await wire.call('GET', `${NS}?watch=1&resourceVersion=0&timeoutSeconds=1&labelSelector=set%3Dshape&includeObject=Object`, {
      headers: { accept: TABLE },
    });
    const events = r.text.trim().split('\n').map((l) => JSON.parse(l) as { type: string; object: TableRows });
    expect(events.map((e) => e.type)).toEqual(['ADDED', 'ADDED']);
    expect(events[0].object.rows[0].object).toMatchObject({ kind: 'ConfigMap', data: { k: 'v' } });
  });
});

describe('PartialObjectMetadata', () => {
  const as = (kind: string) => `application/json;as=${kind};g=meta.k8s.io;v=v1`;

  it('serves get, list and watch as metadata only', async () => {
    const one = await wire.call('GET', `${NS}/shape-a`, { headers: { accept: as('PartialObjectMetadata') } });
    expect(one.json()).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'shape-a' } });
    expect(one.json().data).toBeUndefined();
    const list = await wire.call('GET', `${NS}?labelSelector=set%3Dshape`, { headers: { accept: as('PartialObjectMetadataList') } });
    const body = list.json<{ kind: string; items: { kind: string; metadata: { name: string } }[] }>();
    expect(body.kind).toBe('PartialObjectMetadataList');
    expect(body.items.map((i) => [i.kind, i.metadata.name])).toEqual([
      ['PartialObjectMetadata', 'shape-a'],
      ['PartialObjectMetadata', 'shape-b'],
    ]);
    const watch = await wire.call('GET', `${NS}?watch=1&resourceVersion=0&timeoutSeconds=1&labelSelector=set%3Dshape`, {
      headers: { accept: as('PartialObjectMetadata') },
    });
    const objects = watch.text.trim().split('\n').map((l) => JSON.parse(l).object);
    expect(objects.map((o) => [o.kind, o.metadata.name, o.data])).toEqual([
      ['PartialObjectMetadata', 'shape-a', undefined],
      ['PartialObjectMetadata', 'shape-b', undefined],
    ]);
  });

  it('refuses a list where one object was asked for, as kube-apiserver does', async () => {
    const r = await wire.call('GET', NS, { headers: { accept: as('PartialObjectMetadata') } });
    expect(r.status).toBe(406);
    expect(r.json<{ message: string }>().message).toBe(
      'you requested PartialObjectMetadata, but the requested object is a list (*v1.ConfigMapList)',
    );
  });
});

describe('protobuf over the wire', () => {
  const root = loadDescriptorRoot(generatedPath('protobuf/descriptors.json'));
  const names = messageNameResolver(root);
  const PROTOBUF = 'application/vnd.kubernetes.protobuf, application/json';

  it('lists as a protobuf ConfigMapList', async () => {
    const r = await wire.call('GET', `${NS}?labelSelector=set%3Dshape`, { headers: { accept: PROTOBUF } });
    expect(r.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
    const list = decodeObject(root, r.raw, names).object as { kind: string; items: { metadata: { name: string } }[] };
    expect(list.kind).toBe('ConfigMapList');
    expect(list.items.map((i) => i.metadata.name)).toEqual(['shape-a', 'shape-b']);
  });

  it('watches in length-prefixed WatchEvent frames', async () => {
    const r = await wire.call('GET', `${NS}?watch=1&resourceVersion=0&timeoutSeconds=1&labelSelector=set%3Dshape`, { headers: { accept: PROTOBUF } });
    expect(r.headers['content-type']).toBe('application/vnd.kubernetes.protobuf;stream=watch');
    const { frames, rest } = splitFrames(r.raw);
    expect(rest).toHaveLength(0);
    const events = frames.map((f) => decodeWatchEvent(root, f, names));
    expect(events.map((e) => [e.type, (e.object.metadata as { name: string }).name])).toEqual([
      ['ADDED', 'shape-a'],
      ['ADDED', 'shape-b'],
    ]);
  });

  it('frames MODIFIED and DELETED events from history as the JSON watch sends them', async () => {
    const created = await wire.call('POST', NS, {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'framed', labels: { set: 'framed' } }, data: { k: 'v1' } }),
    });
    expect(created.status).toBe(201);
    const from = created.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const patched = await wire.call('PATCH', `${NS}/framed`, { headers: { 'content-type': 'application/merge-patch+json' }, body: '{"data":{"k":"v2"}}' });
    expect(patched.status).toBe(200);
    expect((await wire.call('DELETE', `${NS}/framed`)).status).toBe(200);

    // Watching from the create's resourceVersion replays what came after it, then times out.
    const path = `${NS}?watch=1&resourceVersion=${from}&timeoutSeconds=1&labelSelector=set%3Dframed`;
    const r = await wire.call('GET', path, { headers: { accept: PROTOBUF } });
    expect(r.headers['content-type']).toBe('application/vnd.kubernetes.protobuf;stream=watch');
    const { frames, rest } = splitFrames(r.raw);
    expect(rest).toHaveLength(0);
    const events = frames.map((f) => decodeWatchEvent(root, f, names));
    expect(events.map((e) => [e.type, (e.object as { data: { k: string } }).data.k])).toEqual([
      ['MODIFIED', 'v2'],
      ['DELETED', 'v2'],
    ]);
    const json = (await wire.call('GET', path)).text.trim().split('\n').map((line) => JSON.parse(line));
    expect(events).toEqual(json);
  });
});

describe('gzip', () => {
  const big = 'x'.repeat(60 * 1024);

  beforeAll(async () => {
    for (const name of ['big-1', 'big-2', 'big-3']) {
      const r = await wire.call('POST', NS, {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { set: 'big' } }, data: { blob: big } }),
      });
      expect(r.status).toBe(201);
    }
  });

  it('compresses a list over 128 KiB for a client that accepts gzip', async () => {
    const r = await wire.call('GET', `${NS}?labelSelector=set%3Dbig`, { headers: { 'accept-encoding': 'gzip' } });
    expect(r.status).toBe(200);
    expect(r.headers['content-encoding']).toBe('gzip');
    expect(r.headers.vary).toBe('Accept-Encoding');
    const text = gunzipSync(r.raw).toString('utf8');
    expect(text.length).toBeGreaterThan(GZIP_THRESHOLD_BYTES);
    expect(JSON.parse(text).items).toHaveLength(3);
  });

  it('leaves the list alone without Accept-Encoding: gzip, and small bodies always', async () => {
    const plain = await wire.call('GET', `${NS}?labelSelector=set%3Dbig`);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.json<{ items: unknown[] }>().items).toHaveLength(3);
    const qualified = await wire.call('GET', `${NS}?labelSelector=set%3Dbig`, { headers: { 'accept-encoding': 'gzip;q=1.0' } });
    expect(qualified.headers['content-encoding']).toBeUndefined();
    const small = await wire.call('GET', `${NS}/big-1`, { headers: { 'accept-encoding': 'deflate, gzip' } });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.json<{ data: { blob: string } }>().data.blob).toBe(big);
  });

  it('never compresses with APIResponseCompression off', async () => {
    const off = await startWireServer({ featureGates: { APIResponseCompression: false } });
    try {
      for (const name of ['big-1', 'big-2', 'big-3']) {
        await off.call('POST', NS, {
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { blob: big } }),
        });
      }
      const r = await off.call('GET', NS, { headers: { 'accept-encoding': 'gzip' } });
      expect(r.headers['content-encoding']).toBeUndefined();
      const names = r.json<{ items: { metadata: { name: string } }[] }>().items.map((i) => i.metadata.name);
      expect(names.filter((n) => n.startsWith('big-'))).toHaveLength(3);
    } finally {
      await off.close();
    }
  });
});
