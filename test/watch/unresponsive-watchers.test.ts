// A watch client that stops reading (hostile or stuck) must not grow the server's memory: once its
// connection is full and UNRESPONSIVE_WATCH_EVENTS more events wait for it, its watch ends, its
// queue is dropped and the close is logged, as kube-apiserver's cacher closes an unresponsive
// cacheWatcher. Driven over real sockets: a raw TLS HTTP/1.1 client and an HTTP/2 stream that
// stop reading while a writer sends ~100 KiB objects; the server's live memory is read through
// the inspector. Under the bound nothing is lost: a replay from an old resourceVersion that the
// client does not read yet is not counted against it (see also watch-writer.test.ts). Below the
// HTTP layer: the same limit on each storage with and without the watch cache, and the stream's
// own rules (a BOOKMARK without room is left out; a reader that caught up has no limit).
import { mkdtempSync, rmSync } from 'node:fs';
import { connect as http2Connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNRESPONSIVE_WATCH_EVENTS } from '../../runtime/api/handlers/watch-body.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import { WatchStream, watchObjects } from '../../runtime/registry/watch.js';
import { kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { Inspector } from '../support/inspector.js';
import { freePort } from '../support/ports.js';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../support/server-process.js';
import { backends, definitions } from '../support/registry-fixtures.js';
import { openWatch, type WatchEventJson } from '../support/watch-client.js';

const configmaps = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

/** A watch over HTTP/1.1 on a raw TLS socket that stops reading once the response head is in. */
interface RawWatch {
  status: number;
  socket: TLSSocket;
  /** Starts reading again. */
  resume(): void;
  /** What has been read so far: the events, whether the body's last chunk came, whether the connection closed. */
  read(): { events: WatchEventJson[]; lastChunk: boolean; closed: boolean };
}

async function rawWatch(base: string, path: string, creds: Credentials): Promise<RawWatch> {
  const url = new URL(base);
  const socket = tlsConnect({ host: url.hostname, port: Number(url.port), ca: creds.ca, cert: creds.cert, key: creds.key });
  const chunks: Buffer[] = [];
  let closed = false;
  socket.on('close', () => (closed = true));
  socket.on('error', () => {});
  const head = await new Promise<string>((resolve, reject) => {
    socket.once('secureConnect', () => socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nAccept: application/json\r\n\r\n`));
    socket.once('error', reject);
    const onData = (d: Buffer) => {
      chunks.push(d);
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return;
      // From here on nothing is read: the socket's buffers on both sides fill.
      socket.pause();
      socket.off('data', onData);
      resolve(text.slice(0, end));
    };
    socket.on('data', onData);
  });
  return {
    status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]),
    socket,
    resume() {
      socket.on('data', (d: Buffer) => chunks.push(d));
      socket.resume();
    },
    read() {
      const body = bodyOf(Buffer.concat(chunks));
      return { events: lines(body.text), lastChunk: body.lastChunk, closed };
    },
  };
}

/** The de-chunked body after the head, and whether its last (zero-length) chunk came. */
function bodyOf(raw: Buffer): { text: string; lastChunk: boolean } {
  let at = raw.indexOf('\r\n\r\n') + 4;
  const parts: Buffer[] = [];
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    if (lineEnd < 0) break;
    const size = parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
    if (size === 0) return { text: Buffer.concat(parts).toString('utf8'), lastChunk: true };
    if (raw.length < lineEnd + 2 + size + 2) break;
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return { text: Buffer.concat(parts).toString('utf8'), lastChunk: false };
}

function lines(text: string): WatchEventJson[] {
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  return complete
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as WatchEventJson);
}

const versionsOf = (events: WatchEventJson[]) => events.map((e) => Number(e.object.metadata?.resourceVersion));

/** Strictly rising resourceVersions: in order, none twice. */
function expectInOrder(events: WatchEventJson[]): void {
  const versions = versionsOf(events);
  for (let i = 1; i < versions.length; i++) expect(versions[i]).toBeGreaterThan(versions[i - 1]!);
}

/** One request on an HTTP/2 session: its status and body. */
function h2Send(session: ClientHttp2Session, method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = session.request({ ':method': method, ':path': path, ...(body === undefined ? {} : { 'content-type': contentType }) });
    let status = 0;
    let text = '';
    req.setEncoding('utf8');
    req.on('response', (h) => (status = Number(h[':status'])));
    req.on('data', (d: string) => (text += d));
    req.on('end', () => resolve({ status, body: text }));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

describe('a watch client that stops reading', () => {
  let dir: string;
  let server: ServerProcess;
  let inspector: Inspector;
  let writer: ClientHttp2Session;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'unresponsive-'));
    const inspectPort = await freePort();
    // A short history window: what the watch cache still holds of the writes is gone by the time
    // memory is read, so what is left is what the watches hold. -v 1 shows the cacher's close.
    server = await startServerProcess(dir, ['--storage', 'memory', '--etcd-compaction-interval', '2s', '-v', '1'], [`--inspect-port=127.0.0.1:${inspectPort}`]);
    server.child.kill('SIGUSR1');
    inspector = await Inspector.connect(inspectPort);
    writer = http2Connect(server.url, { ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key });
  }, 60_000);

  afterAll(async () => {
    writer?.destroy();
    inspector?.close();
    await stopServerProcess(server);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The server's V8 heap in use plus external memory after a full GC, in MiB. */
  async function liveMiB(): Promise<number> {
    const heap = await inspector.heapAfterGC();
    return (heap.heapUsed + heap.external) / 1024 / 1024;
  }

  it('has its watch ended and dropped, over HTTP/1.1 and HTTP/2, while the writer and other watchers go on', async () => {
    const ns = 'unresponsive';
    expect((await h2Send(writer, 'POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
    const names = Array.from({ length: 8 }, (_, i) => `churn-${i}`);
    for (const name of names) expect((await h2Send(writer, 'POST', configmaps(ns), { metadata: { name }, data: { blob: '' } })).status).toBe(201);
    const list = JSON.parse((await h2Send(writer, 'GET', configmaps(ns))).body) as { metadata: { resourceVersion: string } };
    const path = `${configmaps(ns)}?watch=1&fieldSelector=metadata.name!%3Dkube-root-ca.crt&resourceVersion=${list.metadata.resourceVersion}`;

    const stalledH1 = await rawWatch(server.url, path, server.creds);
    expect(stalledH1.status).toBe(200);
    const h2 = http2Connect(server.url, { ca: server.creds.ca, cert: server.creds.cert, key: server.creds.key });
    const stalledH2: ClientHttp2Stream = h2.request({ ':path': path });
    // No data listener: the stream takes nothing, so its flow-control window closes.
    stalledH2.pause();
    expect(await new Promise((resolve) => stalledH2.once('response', (h) => resolve(Number(h[':status']))))).toBe(200);
    const fast = await openWatch(server.url, path, server.creds);
    expect(fast.status).toBe(200);

    try {
      // The baseline after a round of the same writes, so that what they build once (validators,
      // compiled code) is in it.
      for (const name of names) {
        expect((await h2Send(writer, 'PATCH', `${configmaps(ns)}/${name}`, { data: { blob: 'warm' } }, 'application/merge-patch+json')).status).toBe(200);
      }
      const warm = await fast.until((e) => e.object.metadata?.name === names[names.length - 1]);
      expect(warm).toHaveLength(names.length);
      const before = await liveMiB();
      // Updates of a few objects, so that the store stays small: more versions (32 KiB each) than
      // the watch cache keeps of what it has let go (it trims its history past 1024 events).
      const updates = 1200;
      const fastEvents: WatchEventJson[] = [];
      const reading = (async () => {
        while (fastEvents.length < updates + 1) {
          const event = await fast.next();
          if (!event) return;
          fastEvents.push(event);
        }
      })();
      const statuses: number[] = [];
      for (let i = 0; i < updates; i += names.length) {
        const batch = await Promise.all(
          names.map((name, j) =>
            h2Send(writer, 'PATCH', `${configmaps(ns)}/${name}`, { data: { blob: `${i + j}:`.padEnd(32 * 1024, 'x') } }, 'application/merge-patch+json'),
          ),
        );
        statuses.push(...batch.map((r) => r.status));
      }
      expect(statuses).toEqual(Array.from({ length: updates }, () => 200));
      // Past the history window, one small write lets the watch cache forget the big versions.
      await new Promise((r) => setTimeout(r, 3000));
      expect((await h2Send(writer, 'PATCH', `${configmaps(ns)}/${names[0]}`, { data: { blob: 'small' } }, 'application/merge-patch+json')).status).toBe(200);
      await reading;

      // The watcher that reads got every change, in order.
      expect(fastEvents).toHaveLength(updates + 1);
      expect(fastEvents.every((e) => e.type === 'MODIFIED')).toBe(true);
      expectInOrder(fastEvents);
      expect(fastEvents[updates]!.object.data?.blob).toBe('small');

      // Both stalled clients are still connected and reading nothing; the server holds no queue
      // for them. Without the bound they held every version (~37 MiB of stored bytes, about
      // three times that live: bytes, decoded object, its JSON text: over 100 MiB).
      const after = await liveMiB();
      expect(after - before).toBeLessThan(40);

      // Each stalled client, reading at last, finds a clean end of its watch after an in-order
      // beginning of what the fast watcher saw, and far from all of it.
      stalledH1.resume();
      await expect.poll(() => stalledH1.read().lastChunk || stalledH1.read().closed, { timeout: 30_000 }).toBe(true);
      const h1 = stalledH1.read();
      expect(h1.lastChunk).toBe(true);
      expect(h1.events.length).toBeLessThan(updates);
      const everything = [...warm, ...fastEvents];
      expect(versionsOf(h1.events)).toEqual(versionsOf(everything.slice(0, h1.events.length)));

      let h2Text = '';
      stalledH2.setEncoding('utf8');
      stalledH2.on('data', (d: string) => (h2Text += d));
      stalledH2.resume();
      await new Promise<void>((resolve, reject) => {
        stalledH2.once('end', resolve);
        stalledH2.once('error', reject);
      });
      const h2Events = lines(h2Text);
      expect(h2Events.length).toBeLessThan(updates);
      expect(versionsOf(h2Events)).toEqual(versionsOf(everything.slice(0, h2Events.length)));
      await new Promise((r) => (stalledH2.closed ? r(undefined) : stalledH2.once('close', r)));
      expect(stalledH2.rstCode).toBe(0);

      // The server answers, and stored every write.
      const got = JSON.parse((await h2Send(writer, 'GET', `${configmaps(ns)}/${names[names.length - 1]}`)).body) as { data: { blob: string } };
      expect(got.data.blob.startsWith(`${updates - 1}:`)).toBe(true);
      // Logged once per watch at V(1), naming the watch, never its objects.
      const closes = server.output().split('\n').filter((l) => l.includes('watcher close due to unresponsiveness'));
      expect(closes).toHaveLength(2);
      for (const line of closes) {
        expect(line).toContain('Forcing configmaps watcher close');
        expect(line).toContain(`/registry/configmaps/${ns}/`);
        expect(line).not.toContain('xxxx');
      }
      // And counted, as kube's cacher counts them.
      const metrics = (await h2Send(writer, 'GET', '/metrics')).body;
      expect(metrics).toContain('# HELP apiserver_terminated_watchers_total [ALPHA] Counter of watchers closed due to unresponsiveness broken by resource type.');
      expect(metrics).toContain('apiserver_terminated_watchers_total{group="",resource="configmaps"} 2');
    } finally {
      stalledH1.socket.destroy();
      h2.destroy();
      fast.close();
    }
  }, 120_000);
});

describe('a watch client that has not read a replay yet', () => {
  let server: RunningServer;
  let creds: Credentials;
  beforeAll(async () => {
    server = await startServer({ storage: 'memory' });
    creds = kubeconfigCredentials(server.kubeconfig);
  });
  afterAll(() => server?.close());

  it('gets all of it and stays open: events that waited before its connection filled are not counted', async () => {
    const ns = 'replay';
    const session = http2Connect(server.url, { ca: creds.ca, cert: creds.cert, key: creds.key });
    try {
      expect((await h2Send(session, 'POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
      const list = JSON.parse((await h2Send(session, 'GET', configmaps(ns))).body) as { metadata: { resourceVersion: string } };
      // Twice the bound in events, 16 MiB, several times what the sockets hold: more events than
      // the bound still wait once the connection is full.
      const count = UNRESPONSIVE_WATCH_EVENTS * 2;
      const blob = 'r'.repeat(40 * 1024);
      for (let i = 0; i < count; i += 10) {
        const made = await Promise.all(
          Array.from({ length: 10 }, (_, j) => h2Send(session, 'POST', configmaps(ns), { metadata: { name: `replay-${i + j}`, labels: { replay: 'yes' } }, data: { blob } })),
        );
        expect(made.map((r) => r.status)).toEqual(made.map(() => 201));
      }
      const path = `${configmaps(ns)}?watch=1&labelSelector=replay%3Dyes&resourceVersion=${list.metadata.resourceVersion}`;
      const replayer = await rawWatch(server.url, path, creds);
      expect(replayer.status).toBe(200);
      // A few live events while it reads nothing: fewer than the bound.
      const live = 10;
      for (let i = 0; i < live; i++) {
        expect((await h2Send(session, 'POST', configmaps(ns), { metadata: { name: `live-${i}`, labels: { replay: 'yes' } } })).status).toBe(201);
      }
      // Reading at last, it gets the whole replay and the live events, in order, and its watch
      // goes on: nothing was dropped.
      replayer.resume();
      try {
        await expect.poll(() => replayer.read().events.length, { timeout: 20_000 }).toBe(count + live);
        await new Promise((r) => setTimeout(r, 200));
        const { events, lastChunk, closed } = replayer.read();
        expect(events).toHaveLength(count + live);
        expect(events.every((e) => e.type === 'ADDED')).toBe(true);
        expectInOrder(events);
        const names = [...Array.from({ length: count }, (_, i) => `replay-${i}`), ...Array.from({ length: live }, (_, i) => `live-${i}`)];
        expect(events.map((e) => e.object.metadata?.name).sort()).toEqual(names.sort());
        expect(events.slice(count).map((e) => e.object.metadata?.name)).toEqual(Array.from({ length: live }, (_, i) => `live-${i}`));
        expect(lastChunk).toBe(false);
        expect(closed).toBe(false);
      } finally {
        replayer.socket.destroy();
      }
    } finally {
      session.destroy();
    }
  }, 60_000);
});

// What the HTTP writer does when a connection fills (limitQueue), on each storage and with the
// watch cache or without it (one storage watch per request): the limit counts from the events
// already waiting, and one event past it ends the stream with its queue dropped.
describe.each(backends.flatMap(([name, make]) => [[name, 'the watch cache', make, {}] as const, [name, 'no watch cache', make, false] as const]))(
  'a watch on %s storage through %s whose reader stopped',
  (_name, _cache, makeStorage, watchCache) => {
    it('holds the events up to its limit, and past it ends with none', async () => {
      const storage = makeStorage();
      const registry = new ResourceRegistry(storage, definitions, { watchCache });
      try {
        const configmaps = registry.storeFor('', 'v1', 'configmaps')!;
        await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name: 'default' } });
        for (const name of ['a', 'b', 'c']) await configmaps.create('default', { metadata: { name } });
        // Its initial state (three ADDED) waits; two more may join it.
        const stream = await watchObjects(configmaps, 'default', {});
        stream.limitQueue(2);
        await configmaps.create('default', { metadata: { name: 'd' } });
        await configmaps.create('default', { metadata: { name: 'e' } });
        expect(stream.stopped).toBe(false);
        await configmaps.create('default', { metadata: { name: 'f' } });
        await expect.poll(() => stream.stopped).toBe(true);
        expect(stream.unresponsive).toBe(6);
        expect(stream.drained).toBe(true);
        expect(stream.take()).toBeUndefined();
        // Released from the store: later changes reach it no more, and the store goes on.
        await configmaps.create('default', { metadata: { name: 'g' } });
        await new Promise((r) => setImmediate(r));
        expect(stream.take()).toBeUndefined();
        expect((await configmaps.get('default', 'g')).metadata?.name).toBe('g');
      } finally {
        registry.close();
        await storage.close();
      }
    });
  },
);

describe('a watch stream with a limit', () => {
  const added = (name: string) => ({ type: 'ADDED' as const, object: { metadata: { name } } });
  const bookmark = { type: 'BOOKMARK' as const, object: { metadata: { resourceVersion: '9' } } };

  it('leaves out a BOOKMARK it has no room for, as the cacher offers one without waiting, and goes on', () => {
    const stream = new WatchStream();
    stream.push(added('a'));
    stream.limitQueue(1);
    stream.push(added('b'));
    stream.push(bookmark);
    expect(stream.stopped).toBe(false);
    expect(stream.take()?.object).toEqual({ metadata: { name: 'a' } });
    stream.push(added('c'));
    expect(stream.stopped).toBe(false);
    stream.push(added('d'));
    expect(stream.stopped).toBe(true);
    expect(stream.unresponsive).toBe(3);
    expect(stream.take()).toBeUndefined();
  });

  it('has no limit again once its reader took every event', () => {
    const stream = new WatchStream();
    stream.limitQueue(1);
    stream.push(added('a'));
    expect(stream.take()).toBeDefined();
    stream.unlimitQueue();
    for (const name of ['b', 'c', 'd']) stream.push(added(name));
    expect(stream.stopped).toBe(false);
    expect([stream.take(), stream.take(), stream.take()].map((e) => (e?.object as { metadata: { name: string } }).metadata.name)).toEqual(['b', 'c', 'd']);
  });
});
