// HEAD is served as GET without the body. Go's net/http, under kube-apiserver's GET handlers, still
// sends the Content-Length the GET's body would have had (RFC 9110 9.3.2), over HTTP/1.1 and
// HTTP/2 alike. Go counts the body only while it fits its write buffer (2 KiB, 4 KiB on HTTP/2)
// and writes larger GETs chunked; this server gives every GET its Content-Length, and every HEAD
// the same one.
import { connect, type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { kubeconfigCredentials, type Credentials } from '../support/https-client.js';

interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

let server: RunningServer;
let creds: Credentials;
let session: ClientHttp2Session;

function http1(method: string, path: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest(new URL(path, server.url), { method, ca: creds.ca, cert: creds.cert, key: creds.key, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function http2(method: string, path: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': method, ':path': path });
    const chunks: Buffer[] = [];
    let headers: IncomingHttpHeaders = {};
    stream.on('response', (h) => (headers = h));
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.on('end', () => resolve({ status: Number(headers[':status']), headers, body: Buffer.concat(chunks) }));
    stream.on('error', reject);
    stream.end();
  });
}

beforeAll(async () => {
  server = await startServer({ port: 0, storage: 'memory' });
  creds = kubeconfigCredentials(server.kubeconfig);
  session = connect(server.url, { ca: creds.ca, cert: creds.cert, key: creds.key });
});
afterAll(async () => {
  session?.close();
  await server?.close();
});

const PATHS = [
  ['an object', '/api/v1/namespaces/default'],
  ['a list', '/api/v1/namespaces'],
  ['a list as a Table', '/api/v1/namespaces?includeObject=None'],
  ['discovery', '/api/v1'],
  ['aggregated discovery', '/apis'],
  ['/healthz', '/healthz'],
  ['/readyz?verbose', '/readyz?verbose'],
  ['/version', '/version'],
  ['a Status 404', '/api/v1/namespaces/absent'],
  ['a plain-text 404', '/no/such/path'],
] as const;

describe.each([
  ['HTTP/1.1', http1],
  ['HTTP/2', http2],
] as const)('HEAD over %s', (_protocol, send) => {
  it.each(PATHS)('answers %s with the GET\'s status, headers and Content-Length, and no body', async (_what, path) => {
    const get = await send('GET', path);
    const head = await send('HEAD', path);
    expect(get.body.length).toBeGreaterThan(0);
    expect(head.status).toBe(get.status);
    expect(head.headers['content-length']).toBe(String(get.body.length));
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['cache-control']).toBe('no-cache, private');
    expect(head.headers['audit-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(head.body.length).toBe(0);
  });

  // kube-openapi serves the document with http.ServeContent, which sets Content-Length itself.
  it('gives the OpenAPI document\'s length, past any write buffer', async () => {
    const path = '/openapi/v2';
    const get = await send('GET', path);
    const head = await send('HEAD', path);
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(get.body.length));
    expect(head.body.length).toBe(0);
  });

  // A HEAD of a watch gets the watch's headers and no body, and must not leave a watcher behind
  // (Go's watch ends when the client goes; here nothing reads the dropped stream).
  it('ends the watch a HEAD started, releasing its watcher', async () => {
    const watchers = async () => {
      const metrics = (await send('GET', '/metrics')).body.toString();
      return Number(/^apiserver_registered_watchers\{group="",version="v1",kind="ConfigMap"\} (\d+)$/m.exec(metrics)?.[1] ?? 0);
    };
    const before = await watchers();
    for (let i = 0; i < 3; i++) {
      const head = await send('HEAD', '/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=600');
      expect(head.status).toBe(200);
      expect(head.headers['content-type']).toBe('application/json');
      expect(head.headers['content-length']).toBeUndefined();
      expect(head.body.length).toBe(0);
    }
    expect(await watchers()).toBe(before);
  });
});
