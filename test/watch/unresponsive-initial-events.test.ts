// The unresponsive-watcher bound (watch-body.ts, watch-stream.ts) for the watches the first test
// file does not drive: a watch-list (sendInitialEvents=true) over a large state whose client
// never reads it, over HTTP/1.1 on a raw TLS socket and over HTTP/2 on a stream whose window is
// never opened (no WINDOW_UPDATE). kube's cacheWatcher sends the initial events through the same
// buffered channels as the changes, so a watcher stuck in its initial state is closed as
// unresponsive like any other once its buffer stays full. Each case: the state waits whole, as a
// list would, the changes past the bound end the watch (counted in
// apiserver_terminated_watchers_total), every write is stored, and a client that reads at last
// finds the events in order and a clean end.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { UNRESPONSIVE_WATCH_EVENTS } from '../../runtime/api/handlers/watch-body.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { sample } from '../support/metrics-text.js';
import { parseResponses, tlsConnect } from '../support/raw-http1.js';
import { FRAME, RawH2 } from '../support/raw-http2.js';
import type { WatchEventJson } from '../support/watch-client.js';

const NS = 'initial-state';
const CONFIGMAPS = `/api/v1/namespaces/${NS}/configmaps`;
/** 16 objects of 900 KB: far more than socket buffers or a 64 KiB HTTP/2 window hold. */
const BIG_OBJECTS = 16;
const WATCH = `${CONFIGMAPS}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`;

const json = { 'content-type': 'application/json' };

function parseEvents(text: string): WatchEventJson[] {
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as WatchEventJson);
}

describe('a watch-list client that never reads its initial state', () => {
  let server: RunningServer;
  let admin: Credentials;

  beforeAll(async () => {
    server = await startServer({ storage: 'memory', featureGates: { WatchList: true } });
    admin = kubeconfigCredentials(server.kubeconfig);
    expect((await call(server.url, '/api/v1/namespaces', admin, { method: 'POST', headers: json, body: JSON.stringify({ metadata: { name: NS } }) })).status).toBe(201);
    for (let i = 0; i < BIG_OBJECTS; i++) {
      const body = JSON.stringify({ metadata: { name: `big-${String(i).padStart(2, '0')}` }, data: { k: 'x'.repeat(900_000) } });
      expect((await call(server.url, CONFIGMAPS, admin, { method: 'POST', headers: json, body })).status).toBe(201);
    }
    expect((await call(server.url, CONFIGMAPS, admin, { method: 'POST', headers: json, body: JSON.stringify({ metadata: { name: 'churn' }, data: { n: '0' } }) })).status).toBe(201);
  }, 60_000);
  afterAll(() => server?.close());

  async function terminated(): Promise<number> {
    const text = (await call(server.url, '/metrics', admin)).body;
    return sample(text, 'apiserver_terminated_watchers_total', { group: '', resource: 'configmaps' }) ?? 0;
  }

  /** More changes than the bound, each one stored. */
  async function churn(count: number): Promise<void> {
    for (let n = 1; n <= count; n++) {
      const res = await call(server.url, `${CONFIGMAPS}/churn`, admin, { method: 'PATCH', headers: { 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ data: { n: String(n) } }) });
      expect(res.status).toBe(200);
    }
    expect((await call(server.url, `${CONFIGMAPS}/churn`, admin)).json<{ data: { n: string } }>().data.n).toBe(String(count));
  }

  /** What a client finds: the state first (in name order, then the end-of-state bookmark), then changes in order, fewer than were made. */
  function expectPrefix(events: WatchEventJson[], changes: number): void {
    expect(events.length).toBeGreaterThan(0);
    expect(events.length).toBeLessThan(BIG_OBJECTS + 2 + changes);
    const state = events.slice(0, BIG_OBJECTS + 1).filter((e) => e.type === 'ADDED' && e.object.metadata?.name?.startsWith('big-'));
    expect(state.map((e) => e.object.metadata?.name)).toEqual(Array.from({ length: state.length }, (_, i) => `big-${String(i).padStart(2, '0')}`));
    const later = events.filter((e) => e.type === 'MODIFIED').map((e) => Number((e.object as { data: { n: string } }).data.n));
    for (let i = 1; i < later.length; i++) expect(later[i]).toBe(later[i - 1] + 1);
  }

  it('over HTTP/1.1: the changes past the bound end the watch; the client later reads a prefix and the last chunk', async () => {
    const before = await terminated();
    const socket = await tlsConnect(server, admin);
    socket.pause();
    socket.on('error', () => {});
    socket.write(`GET ${WATCH} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n`);
    const changes = UNRESPONSIVE_WATCH_EVENTS + 50;
    await churn(changes);
    await vi.waitFor(async () => expect(await terminated()).toBe(before + 1), { timeout: 10_000, interval: 50 });
    // Another client is served meanwhile, and its watch-list is whole.
    expect((await call(server.url, `${CONFIGMAPS}?limit=1`, admin)).status).toBe(200);

    // The client reads at last: the response is complete (its last chunk came) on a connection still open.
    const got: Buffer[] = [];
    socket.on('data', (c: Buffer) => got.push(c));
    socket.resume();
    await vi.waitFor(() => expect(parseResponses(Buffer.concat(got))).toHaveLength(1), { timeout: 10_000, interval: 50 });
    const raw = Buffer.concat(got);
    const [response] = parseResponses(raw);
    expect(response.status).toBe(200);
    expectPrefix(parseEvents(response.body), changes);
    socket.destroy();
  }, 60_000);

  it('over HTTP/2 with a window never opened: the changes past the bound end the watch; opened at last, the stream ends cleanly', async () => {
    const before = await terminated();
    const client = await RawH2.connect(server, admin);
    try {
      client.headers(1, 'GET', WATCH, [['accept', 'application/json']]);
      await client.next((f) => f.type === FRAME.HEADERS && f.stream === 1);
      const changes = UNRESPONSIVE_WATCH_EVENTS + 50;
      await churn(changes);
      await vi.waitFor(async () => expect(await terminated()).toBe(before + 1), { timeout: 10_000, interval: 50 });
      expect(client.frames.some((f) => f.type === FRAME.RST_STREAM)).toBe(false);

      // Now the client reads: whatever the server still holds for the stream, then its end.
      client.windowUpdate(0, 2 ** 31 - 1 - 65_535);
      client.windowUpdate(1, 2 ** 31 - 1 - 65_535);
      await client.next((f) => f.type === FRAME.DATA && f.stream === 1 && (f.flags & 0x1) !== 0);
      const body = Buffer.concat(client.frames.filter((f) => f.type === FRAME.DATA && f.stream === 1).map((f) => f.payload)).toString('utf8');
      expectPrefix(parseEvents(body), changes);
      expect(body.endsWith('\n')).toBe(true);
      expect(client.frames.some((f) => f.type === FRAME.RST_STREAM)).toBe(false);
    } finally {
      client.socket.destroy();
    }
  }, 60_000);
});
