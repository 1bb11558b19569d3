// Watches and the informer through the typed client, on a server whose history is short
// (historyWindowMs), whose watches end on their own every 1-2 s (minRequestTimeoutSeconds) and
// which sends bookmarks often: events in order, bookmarks, resumption after the server ends a
// watch and after the connection drops, ExpiredError for forgotten versions, an informer that
// relists on 410.
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, ExpiredError, informer, StatusError, type Client, type WatchEvent } from '../../client/index.js';
import type { ConfigMap } from '../../generated/types/core.v1.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { adminConfig } from './support.js';

const POLL = { timeout: 20_000, interval: 50 };

/** A TCP relay to the server whose connections can all be cut at once. */
class Relay {
  readonly sockets = new Set<Socket>();
  private server?: Server;
  port = 0;

  async start(target: number): Promise<void> {
    this.server = createServer((inbound) => {
      const outbound = connect(target, '127.0.0.1');
      for (const s of [inbound, outbound]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => undefined);
      }
      inbound.pipe(outbound).pipe(inbound);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server?.address() as { port: number }).port;
  }

  cut(): number {
    const n = this.sockets.size;
    for (const s of this.sockets) s.destroy();
    return n;
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((resolve) => this.server?.close(() => resolve()));
  }
}

/** Collects a watch's events in the background until stopped. */
function collect<T>(events: AsyncIterable<WatchEvent<T>>): { seen: WatchEvent<T>[]; done: Promise<unknown> } {
  const seen: WatchEvent<T>[] = [];
  const done = (async () => {
    for await (const e of events) seen.push(e);
  })().catch((err: unknown) => err);
  return { seen, done };
}

const names = (events: WatchEvent<ConfigMap>[]) => events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.object.metadata?.name}`);

describe('typed client watches', () => {
  let server: RunningServer;
  let client: Client;
  const relay = new Relay();
  let relayed: Client;

  beforeAll(async () => {
    server = await startServer({
      storage: 'memory',
      historyWindowMs: 300,
      minRequestTimeoutSeconds: 1,
      watchBookmarkIntervalMs: 200,
      controllers: ['*', '-root-ca-cert-publisher'],
    });
    client = createClient(adminConfig(server));
    await relay.start(server.port);
    relayed = createClient(adminConfig(server, `https://127.0.0.1:${relay.port}`));
    for (const ns of ['events', 'dropped', 'old', 'pages', 'inf', 'noise']) await client.coreV1.namespaces().create({ metadata: { name: ns } });
  });
  afterAll(async () => {
    client?.close();
    relayed?.close();
    await relay.close();
    await server?.close();
  });

  it('passes BOOKMARK events on, with their resourceVersion', async () => {
    const cms = client.coreV1.configMaps('events');
    // timeoutSeconds: the server's own 1-2 s limit would leave no room for a bookmark before its deadline.
    for await (const e of cms.watch({ allowWatchBookmarks: true, timeoutSeconds: 10 })) {
      if (e.type !== 'BOOKMARK') continue;
      expect(e.object.kind).toBe('ConfigMap');
      expect(e.object.metadata?.resourceVersion).toMatch(/^\d+$/);
      return;
    }
    expect.unreachable('the watch ended without a bookmark');
  });

  it('gives events in order, and resumes when the server ends the watch', async () => {
    const cms = client.coreV1.configMaps('events');
    const from = (await cms.list()).metadata?.resourceVersion;
    const stop = new AbortController();
    const w = collect(cms.watch({ resourceVersion: from, allowWatchBookmarks: true, signal: stop.signal }));
    await cms.create({ metadata: { name: 'a' }, data: { n: '1' } });
    await cms.patch('a', { data: { n: '2' } }, { type: 'merge' });
    await expect.poll(() => names(w.seen), POLL).toEqual(['ADDED a', 'MODIFIED a']);
    // The server ends every watch after 1-2 s; the iterator opens it again from where it was.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await cms.delete('a');
    await expect.poll(() => names(w.seen), POLL).toEqual(['ADDED a', 'MODIFIED a', 'DELETED a']);
    stop.abort(new Error('done'));
    expect(((await w.done) as Error).message).toBe('done');
  });

  it('resumes from the last resourceVersion after the connection drops', async () => {
    const cms = relayed.coreV1.configMaps('dropped');
    const from = (await cms.list()).metadata?.resourceVersion;
    const stop = new AbortController();
    const w = collect(cms.watch({ resourceVersion: from, signal: stop.signal }));
    await client.coreV1.configMaps('dropped').create({ metadata: { name: 'before-drop' } });
    await expect.poll(() => names(w.seen), POLL).toEqual(['ADDED before-drop']);
    expect(relay.cut()).toBeGreaterThan(0);
    await client.coreV1.configMaps('dropped').create({ metadata: { name: 'after-drop' } });
    await expect.poll(() => names(w.seen), POLL).toEqual(['ADDED before-drop', 'ADDED after-drop']);
    stop.abort();
    await w.done;
  });

  it('does not resume a watch begun without a resourceVersion: its versions are no place to resume from', async () => {
    await client.coreV1.configMaps('dropped').create({ metadata: { name: 'present' } });
    const w = collect(relayed.coreV1.configMaps('dropped').watch());
    await expect.poll(() => names(w.seen).includes('ADDED present'), POLL).toBe(true);
    relay.cut();
    const err = await w.done;
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(StatusError);
  });

  it('throws ExpiredError for a watch from a forgotten version', async () => {
    const cms = client.coreV1.configMaps('old');
    const rv = (await cms.create({ metadata: { name: 'x' } })).metadata?.resourceVersion;
    await cms.create({ metadata: { name: 'y' } });
    await expect
      .poll(async () => {
        try {
          for await (const e of cms.watch({ resourceVersion: rv })) return `got ${e.type}`;
        } catch (err) {
          return err instanceof ExpiredError ? { code: err.code, reason: err.reason, message: err.message } : String(err);
        }
        return 'ended';
      }, POLL)
      .toMatchObject({ code: 410, reason: 'Expired', message: expect.stringMatching(new RegExp(`^too old resource version: ${rv} \\(\\d+\\)$`)) });
  });

  it('throws ExpiredError for an expired continue token, carrying the token that finishes the list', async () => {
    const cms = client.coreV1.configMaps('pages');
    for (const name of ['p1', 'p2', 'p3']) await cms.create({ metadata: { name } });
    const first = await cms.list({ limit: 1 });
    await cms.create({ metadata: { name: 'p4' } });
    let expired: ExpiredError | undefined;
    await expect
      .poll(async () => {
        expired = await cms.list({ limit: 1, continue: first.metadata?.continue }).then(
          () => undefined,
          (e: unknown) => (e instanceof ExpiredError ? e : undefined),
        );
        return expired?.code;
      }, POLL)
      .toBe(410);
    const rest = await cms.list({ continue: expired?.status.metadata?.continue });
    expect(rest.items.map((c) => c.metadata?.name)).toEqual(['p2', 'p3', 'p4']);
  });

  it('an informer keeps a cache, calls its handlers and relists after a 410', async () => {
    const cms = client.coreV1.configMaps('inf');
    let lists = 0;
    const source = { list: (o?: Parameters<typeof cms.list>[0]) => (lists++, cms.list(o)), watch: cms.watch.bind(cms) };
    const log: string[] = [];
    const expiredSeen: unknown[] = [];
    const inf = informer<ConfigMap>(source, {
      onAdd: (o) => log.push(`add ${o.metadata?.name}`),
      onUpdate: (old, o) => log.push(`update ${old.data?.v}->${o.data?.v}`),
      onDelete: (o) => log.push(`delete ${o.metadata?.name}`),
      onError: (e) => expiredSeen.push(e),
    });
    try {
      await inf.synced;
      await cms.create({ metadata: { name: 'one' }, data: { v: '1' } });
      await cms.patch('one', { data: { v: '2' } }, { type: 'merge' });
      await cms.create({ metadata: { name: 'two' } });
      await cms.delete('two');
      await expect.poll(() => log, POLL).toEqual(['add one', 'update 1->2', 'add two', 'delete two']);
      expect([...inf.cache.keys()]).toEqual(['inf/one']);
      // Writes elsewhere move history past the informer's version; once they age out of the
      // window, its next watch (the server ends each after 1-2 s) is from a forgotten version.
      await client.coreV1.configMaps('noise').create({ metadata: { name: 'n1' } });
      await client.coreV1.configMaps('noise').create({ metadata: { name: 'n2' } });
      await expect.poll(() => lists, POLL).toBeGreaterThanOrEqual(2);
      expect(expiredSeen.some((e) => e instanceof ExpiredError)).toBe(true);
      await cms.create({ metadata: { name: 'three' } });
      await expect.poll(() => [...inf.cache.keys()].sort(), POLL).toEqual(['inf/one', 'inf/three']);
      expect(log.slice(4)).toEqual(['add three']);
    } finally {
      inf.stop();
    }
  });
});
