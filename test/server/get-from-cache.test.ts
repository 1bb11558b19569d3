// A GET the watch cache holds is answered synchronously, from the cacher through the filter chain
// to @hono/node-server's write (see cacher-storage.ts getCached and app.ts). Over the real HTTPS
// server, on both protocols: the answer carries what every response carries, the filters that act
// when a response is done (metrics, the shutdown drain) still see it, and refusals on the same
// path are Status answers after which the object is served unchanged.
import { connect, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { sample } from '../support/metrics-text.js';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const GET_LABELS = { verb: 'GET', dry_run: '', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'resource', component: 'apiserver' };

interface H2Reply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

function h2Get(session: ClientHttp2Session, path: string, headers: Record<string, string> = {}): Promise<H2Reply> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path, ...headers });
    const chunks: Buffer[] = [];
    let head: IncomingHttpHeaders = {};
    stream.on('response', (h) => (head = h));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve({ status: Number(head[':status']), headers: head, text: Buffer.concat(chunks).toString('utf8') }));
    stream.on('error', reject);
    stream.end();
  });
}

describe('GET served from the watch cache', () => {
  let server: RunningServer;
  let admin: Credentials;
  let session: ClientHttp2Session;
  let created: { metadata: { name: string; resourceVersion: string; uid: string }; data: Record<string, string> };
  const get = (path: string, headers: Record<string, string> = {}) => call(server.url, path, admin, { headers });

  beforeAll(async () => {
    server = await startServer({ storage: 'memory' });
    admin = kubeconfigCredentials(server.kubeconfig);
    const res = await call(server.url, CONFIGMAPS, admin, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cached' }, data: { k: 'v' } }),
    });
    expect(res.status).toBe(201);
    created = res.json();
    // Not older than the create's version: from here on the cache holds it.
    expect((await get(`${CONFIGMAPS}/cached?resourceVersion=${created.metadata.resourceVersion}`)).status).toBe(200);
    session = connect(server.url, { ca: admin.ca, cert: admin.cert, key: admin.key });
  });
  afterAll(async () => {
    session?.close();
    await server?.close();
  });

  it('answers HTTP/1.1 with the object, its length, Audit-Id and Cache-Control, for every resourceVersion the cache holds', async () => {
    for (const query of ['', '?resourceVersion=0', `?resourceVersion=${created.metadata.resourceVersion}`]) {
      const res = await get(`${CONFIGMAPS}/cached${query}`, { 'audit-id': `get-${query.length}` });
      expect(res.status).toBe(200);
      expect(res.json()).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: created.metadata, data: { k: 'v' } });
      expect(res.headers['content-type']).toBe('application/json');
      expect(Number(res.headers['content-length'])).toBe(Buffer.byteLength(res.body));
      expect(res.headers['audit-id']).toBe(`get-${query.length}`);
      expect(res.headers['cache-control']).toBe('no-cache, private');
    }
  });

  it('answers HTTP/2 streams the same, many at once on one connection', async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => h2Get(session, `${CONFIGMAPS}/cached${i % 2 ? '?resourceVersion=0' : ''}`)));
    for (const reply of replies) {
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.text)).toMatchObject({ metadata: created.metadata, data: { k: 'v' } });
      expect(reply.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(reply.headers['cache-control']).toBe('no-cache, private');
      expect(reply.headers.connection).toBeUndefined();
    }
  });

  it('sees each update at once: a GET after a write answers the written version', async () => {
    let version = created.metadata.resourceVersion;
    for (let i = 0; i < 10; i++) {
      const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'moving' }, data: { n: String(i) } });
      const method = i === 0 ? 'POST' : 'PUT';
      const written = await call(server.url, i === 0 ? CONFIGMAPS : `${CONFIGMAPS}/moving`, admin, { method, headers: { 'content-type': 'application/json' }, body });
      expect(written.status).toBe(i === 0 ? 201 : 200);
      version = written.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
      const read = await (i % 2 ? h2Get(session, `${CONFIGMAPS}/moving`).then((r) => JSON.parse(r.text)) : get(`${CONFIGMAPS}/moving`).then((r) => r.json()));
      expect(read).toMatchObject({ metadata: { resourceVersion: version }, data: { n: String(i) } });
    }
  });

  it('answers refusals on the same path as a Status, and serves the object unchanged after them', async () => {
    const refusals: [string, Record<string, string>, number, string][] = [
      [`${CONFIGMAPS}/absent?resourceVersion=0`, {}, 404, 'NotFound'],
      [`${CONFIGMAPS}/cached?resourceVersion=not-a-number`, {}, 400, 'BadRequest'],
      [`${CONFIGMAPS}/cached`, { accept: 'application/no-such-type' }, 406, 'NotAcceptable'],
      [`${CONFIGMAPS}/cached?timeout=bogus`, {}, 400, 'BadRequest'],
    ];
    for (const [path, headers, code, reason] of refusals) {
      const res = await get(path, headers);
      expect(res.status).toBe(code);
      expect(res.json()).toMatchObject({ kind: 'Status', status: 'Failure', reason, code });
      expect(res.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
      const h2 = await h2Get(session, path, headers);
      expect(h2.status).toBe(code);
      expect(JSON.parse(h2.text)).toMatchObject({ kind: 'Status', reason, code });
    }
    const after = await get(`${CONFIGMAPS}/cached`);
    expect(after.status).toBe(200);
    expect(after.json()).toMatchObject({ metadata: created.metadata, data: { k: 'v' } });
    const listed = (await get(CONFIGMAPS)).json<{ items: { metadata: { name: string; resourceVersion: string } }[] }>();
    expect(listed.items.find((i) => i.metadata.name === 'cached')?.metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('is recorded in the request metrics with its code and response size', async () => {
    const before = (await get('/metrics')).body;
    const count = (text: string) => sample(text, 'apiserver_request_total', { ...GET_LABELS, code: '200' }) ?? 0;
    const sizes = (text: string) => sample(text, 'apiserver_response_sizes_count', { verb: 'GET', group: '', version: 'v1', resource: 'configmaps', subresource: '', scope: 'resource', component: 'apiserver' }) ?? 0;
    for (let i = 0; i < 3; i++) expect((await get(`${CONFIGMAPS}/cached?resourceVersion=0`)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await h2Get(session, `${CONFIGMAPS}/cached`)).status).toBe(200);
    const after = (await get('/metrics')).body;
    expect(count(after) - count(before)).toBe(5);
    expect(sizes(after) - sizes(before)).toBe(5);
  });
});
