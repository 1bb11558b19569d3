// The watch writer (runtime/api/handlers/watch-body.ts) over a real server: events go from each
// watcher's queue straight to its connection. Many watchers of one burst of writes each get every
// event once, in order, one document per line, over HTTP/1.1 and over HTTP/2 streams sharing a
// connection; a watcher that stops reading holds back no one and, once it reads again, gets every
// event it missed, in order (fewer than UNRESPONSIVE_WATCH_EVENTS wait for it: past that its watch
// ends, see unresponsive-watchers.test.ts); and the server answers normally afterwards. Over
// HTTP/1.1 each event is a chunk of its own, as node frames a write (the writer frames them
// itself), and the answer ends with the last chunk, so the connection serves what follows it.
import { connect } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { testServerFor, type TestServer } from '../support/memory-server.js';
import { parseResponses, tlsConnect } from '../support/raw-http1.js';
import { openWatch, type WatchConnection, type WatchEventJson } from '../support/watch-client.js';

let server: RunningServer;
let creds: Credentials;
let client: TestServer;

beforeAll(async () => {
  server = await startServer({ storage: 'memory' });
  creds = kubeconfigCredentials(server.kubeconfig);
  client = testServerFor(server);
});
afterAll(() => server?.close());

const configmaps = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;
/** The test's own ConfigMaps, apart from the namespace's kube-root-ca.crt. */
const labels = { 'watch-writer': 'yes' };
const selected = 'labelSelector=watch-writer%3Dyes';

async function namespace(name: string): Promise<string> {
  expect((await client.send('POST', '/api/v1/namespaces', { metadata: { name } })).status).toBe(201);
  const list = await client.send<{ metadata: { resourceVersion: string } }>('GET', configmaps(name));
  return list.body.metadata.resourceVersion;
}

/** Every name created, and nothing else, ADDED once each with rising resourceVersions. */
function expectEvery(events: WatchEventJson[], names: string[]): void {
  expect(events.map((e) => e.type)).toEqual(names.map(() => 'ADDED'));
  expect(events.map((e) => e.object.metadata?.name).sort()).toEqual([...names].sort());
  const versions = events.map((e) => Number(e.object.metadata?.resourceVersion));
  expect(versions).toEqual([...versions].sort((a, b) => a - b));
  expect(new Set(versions).size).toBe(versions.length);
}

async function expectServing(ns: string, count: number): Promise<void> {
  const list = await client.send<{ items: unknown[] }>('GET', `${configmaps(ns)}?${selected}`);
  expect(list.status).toBe(200);
  expect(list.body.items).toHaveLength(count);
}

describe('watch writer', () => {
  it('gives each of many HTTP/1.1 watchers every event of a burst of concurrent writes, in order', async () => {
    const ns = 'writer-burst';
    const rv = await namespace(ns);
    const watches: WatchConnection[] = await Promise.all(
      Array.from({ length: 40 }, () => openWatch(server.url, `${configmaps(ns)}?watch=1&${selected}&resourceVersion=${rv}`, creds)),
    );
    try {
      const names = Array.from({ length: 25 }, (_, i) => `burst-${i}`);
      // Sent together, so several commits (and their events) land in one turn of the server.
      const created = await Promise.all(names.map((name) => client.send('POST', configmaps(ns), { metadata: { name, labels }, data: { k: 'v' } })));
      expect(created.map((r) => r.status)).toEqual(names.map(() => 201));
      for (const watch of watches) {
        expect(watch.status).toBe(200);
        const events: WatchEventJson[] = [];
        for (let i = 0; i < names.length; i++) events.push((await watch.next())!);
        expectEvery(events, names);
      }
      await expectServing(ns, names.length);
    } finally {
      for (const watch of watches) watch.close();
    }
  });

  it('gives each HTTP/2 stream of one connection every event', async () => {
    const ns = 'writer-h2';
    const rv = await namespace(ns);
    const session = connect(server.url, { ca: creds.ca, cert: creds.cert, key: creds.key });
    try {
      const streams = Array.from({ length: 10 }, () => {
        const stream = session.request({ ':path': `${configmaps(ns)}?watch=1&${selected}&resourceVersion=${rv}` });
        stream.setEncoding('utf8');
        let text = '';
        stream.on('data', (chunk: string) => (text += chunk));
        const status = new Promise<number>((resolve) => stream.once('response', (h) => resolve(Number(h[':status']))));
        const lines = () => text.split('\n').filter((l) => l !== '');
        return { stream, status, lines };
      });
      expect(await Promise.all(streams.map((s) => s.status))).toEqual(streams.map(() => 200));
      const names = Array.from({ length: 10 }, (_, i) => `h2-${i}`);
      await Promise.all(names.map((name) => client.send('POST', configmaps(ns), { metadata: { name, labels } })));
      await expect.poll(() => streams.every((s) => s.lines().length === names.length), { timeout: 10_000 }).toBe(true);
      for (const s of streams) expectEvery(s.lines().map((l) => JSON.parse(l) as WatchEventJson), names);
      await expectServing(ns, names.length);
    } finally {
      session.destroy();
    }
  });

  it('holds back no one for a watcher that stops reading, which gets every event once it reads again', async () => {
    const ns = 'writer-slow';
    const rv = await namespace(ns);
    const path = `${configmaps(ns)}?watch=1&${selected}&resourceVersion=${rv}`;
    // A client that reads nothing: its events outgrow the socket buffers on both sides.
    let slowText = '';
    const slow = await new Promise<import('node:http').IncomingMessage>((resolve, reject) => {
      const req = httpsRequest(new URL(path, server.url), { ca: creds.ca, cert: creds.cert, key: creds.key, agent: false }, (res) => {
        res.pause();
        resolve(res);
      });
      req.on('error', reject);
      req.end();
    });
    const fast = await openWatch(server.url, path, creds);
    try {
      expect(slow.statusCode).toBe(200);
      const blob = 'x'.repeat(700 * 1024);
      const names = Array.from({ length: 12 }, (_, i) => `bulky-${i}`);
      for (const name of names) expect((await client.send('POST', configmaps(ns), { metadata: { name, labels }, data: { blob } })).status).toBe(201);
      const fastEvents: WatchEventJson[] = [];
      for (let i = 0; i < names.length; i++) fastEvents.push((await fast.next())!);
      expectEvery(fastEvents, names);
      expect((await client.send('GET', `${configmaps(ns)}/bulky-0`)).status).toBe(200);

      slow.setEncoding('utf8');
      slow.on('data', (chunk: string) => (slowText += chunk));
      slow.resume();
      const lines = () => slowText.split('\n').filter((l) => l !== '');
      await expect.poll(() => lines().length, { timeout: 10_000 }).toBe(names.length);
      const slowEvents = lines().map((l) => JSON.parse(l) as WatchEventJson);
      expectEvery(slowEvents, names);
      expect(slowEvents.every((e) => e.object.data?.blob === blob)).toBe(true);
      await expectServing(ns, names.length);
    } finally {
      slow.destroy();
      fast.close();
    }
  });
  it('sends each HTTP/1.1 watcher every event as a chunk of its own and ends the answer with the last chunk', async () => {
    const ns = 'writer-chunks';
    const rv = await namespace(ns);
    // Two watchers of one connection each, a GET pipelined behind each watch: it is answered once
    // the watch's timeout ends it, which only a whole last chunk lets a client see.
    const sockets = await Promise.all([tlsConnect(server, creds), tlsConnect(server, creds)]);
    const received = sockets.map((socket) => {
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      return () => Buffer.concat(chunks);
    });
    // The connection's client certificate authenticates: no header needed.
    const head = (path: string) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`;
    try {
      for (const socket of sockets) socket.write(head(`${configmaps(ns)}?watch=1&${selected}&resourceVersion=${rv}&timeoutSeconds=2`) + head(`/api/v1/namespaces/${ns}`));
      await expect.poll(() => received.every((r) => r().includes('HTTP/1.1 200')), { timeout: 10_000 }).toBe(true);
      // Multi-byte UTF-8 in the object: a chunk's size counts bytes, not characters.
      const data = { k: 'grüße €' };
      expect((await client.send('POST', configmaps(ns), { metadata: { name: 'chunk-0', labels }, data })).status).toBe(201);
      expect((await client.send('POST', configmaps(ns), { metadata: { name: 'chunk-1', labels }, data })).status).toBe(201);
      expect((await client.send('PUT', `${configmaps(ns)}/chunk-0`, { metadata: { name: 'chunk-0', labels }, data: { k: 'v' } })).status).toBe(200);
      expect((await client.send('DELETE', `${configmaps(ns)}/chunk-1`)).status).toBe(200);
      await expect.poll(() => received.every((r) => parseResponses(r()).length === 2), { timeout: 10_000 }).toBe(true);
      const bodies: Buffer[] = [];
      for (const raw of received.map((r) => r())) {
        const [watch, namespaceGet] = parseResponses(raw);
        expect(watch.status).toBe(200);
        expect(watch.headers['transfer-encoding']).toBe('chunked');
        expect(namespaceGet.status).toBe(200);
        // The watch's body, chunk by chunk: each one JSON document and its newline.
        const bodyStart = raw.indexOf('\r\n\r\n') + 4;
        const chunks: string[] = [];
        let at = bodyStart;
        for (;;) {
          const lineEnd = raw.indexOf('\r\n', at);
          const size = parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
          expect(Number.isInteger(size)).toBe(true);
          expect(raw.subarray(lineEnd + 2 + size, lineEnd + 4 + size).toString('latin1')).toBe('\r\n');
          at = lineEnd + 4 + size;
          if (size === 0) break;
          chunks.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size).toString('utf8'));
        }
        expect(raw.subarray(at, at + 8).toString('latin1')).toBe('HTTP/1.1');
        bodies.push(raw.subarray(bodyStart, at));
        expect(chunks.every((c) => c.endsWith('\n') && c.indexOf('\n') === c.length - 1)).toBe(true);
        const events = chunks.map((c) => JSON.parse(c) as WatchEventJson);
        expect(events.map((e) => [e.type, e.object.metadata?.name])).toEqual([
          ['ADDED', 'chunk-0'],
          ['ADDED', 'chunk-1'],
          ['MODIFIED', 'chunk-0'],
          ['DELETED', 'chunk-1'],
        ]);
        expect(events[0].object.data).toEqual(data);
      }
      // Both watchers were sent the same bytes.
      expect(bodies[0].equals(bodies[1])).toBe(true);
    } finally {
      for (const socket of sockets) socket.destroy();
    }
  });
});
