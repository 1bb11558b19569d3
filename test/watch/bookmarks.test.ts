// Bookmarks before a watch's deadline, over HTTPS: kube-apiserver's cacheWatcher sends a BOOKMARK
// 2 s before timeoutSeconds ends the watch (and one a minute otherwise), only when the client
// allows them, so client-go's reflector resumes from there without relisting. The server here
// keeps the default one-minute interval, so any bookmark of a 5 s watch is the pre-deadline one.

import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resources } from '../../generated/registry.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { CacheWatcher, nextBookmarkTime } from '../../runtime/registry/cacher/cache-watcher.js';
import { Codec } from '../../runtime/registry/codec.js';
import type { ResourceDefinition } from '../../runtime/registry/definition.js';
import { WatchStream } from '../../runtime/registry/watch-stream.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { openWatch, type WatchEventJson } from '../support/watch-client.js';

const CM = '/api/v1/namespaces/default/configmaps';

describe('nextBookmarkTime', () => {
  it('is one interval away, or 2 s before the deadline when that comes first, and never once that has passed', () => {
    expect(nextBookmarkTime(1_000, 60_000)).toBe(61_000);
    expect(nextBookmarkTime(1_000, 60_000, 600_000)).toBe(61_000);
    expect(nextBookmarkTime(1_000, 60_000, 6_000)).toBe(4_000);
    expect(nextBookmarkTime(4_000, 60_000, 6_000)).toBeUndefined();
    expect(nextBookmarkTime(5_000, 60_000, 6_000)).toBeUndefined();
  });
});

describe('CacheWatcher bookmarks', () => {
  it('sends the bookmark before the deadline once, though its timer fires before the wall clock reaches its time', () => {
    // Timers faked, Date left real: each timer fires with Date.now() short of its time, as node's
    // timers can when the turn that set them had run long (their clock is the event loop's).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const stream = new WatchStream();
      const pushed: string[] = [];
      stream.push = (event) => void pushed.push(event.type);
      const codec = new Codec(resources.find((d) => d.group === '' && d.kind === 'ConfigMap') as ResourceDefinition);
      const watcher = new CacheWatcher({
        codec,
        keyPrefix: '/registry/configmaps/',
        predicate: { matches: () => true } as never,
        stream,
        afterRevision: 1,
        allowBookmarks: true,
        bookmarkIntervalMs: 60_000,
        deadline: Date.now() + 5_000,
        progress: () => 1,
        forget: () => undefined,
      });
      watcher.scheduleBookmarks();
      vi.advanceTimersByTime(10_000);
      expect(pushed).toEqual(['BOOKMARK']);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('a watch that times out', () => {
  let server: RunningServer;
  let creds: Credentials;

  const post = async (name: string) => {
    const res = await call(server.url, CM, creds, {
      method: 'POST',
      body: JSON.stringify({ metadata: { name } }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(201);
    return Number(res.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion);
  };
  /** Every event of a watch, until the server ends it. */
  const watchToEnd = async (query: string): Promise<WatchEventJson[]> => {
    const w = await openWatch(server.url, `${CM}?watch=1&${query}`, creds);
    expect(w.status).toBe(200);
    return w.until(() => false);
  };

  beforeAll(async () => {
    server = await startServer({ storage: 'memory', featureGates: 'WatchList=true' });
    creds = kubeconfigCredentials(server.kubeconfig);
  });
  afterAll(() => server?.close());

  it('gets a BOOKMARK at the current resourceVersion before it ends, only when it allows bookmarks', async () => {
    const created = await post('before');
    const [withBookmarks, without] = await Promise.all([
      watchToEnd(`resourceVersion=${created}&allowWatchBookmarks=true&timeoutSeconds=5`),
      watchToEnd(`resourceVersion=${created}&timeoutSeconds=5`),
    ]);
    const after = Number((await call(server.url, CM, creds)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion);

    expect(without).toEqual([]);
    expect(withBookmarks).toHaveLength(1);
    const [bookmark] = withBookmarks;
    expect(bookmark.type).toBe('BOOKMARK');
    // kube's bookmark object: the kind and the resourceVersion, nothing else (no initial-events-end here).
    expect(Object.keys(bookmark.object)).toEqual(['kind', 'apiVersion', 'metadata']);
    expect(bookmark.object).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1' });
    expect(Object.keys(bookmark.object.metadata!)).toEqual(['resourceVersion']);
    const rv = Number(bookmark.object.metadata!.resourceVersion);
    expect(rv).toBeGreaterThanOrEqual(created);
    expect(rv).toBeLessThanOrEqual(after);

    // The client resumes from the bookmark: a watch from it sees what came later, and nothing older.
    const later = await post('after');
    const resumed = await openWatch(server.url, `${CM}?watch=1&resourceVersion=${rv}&timeoutSeconds=3`, creds);
    const events = await resumed.until((e) => e.object.metadata?.name === 'after');
    resumed.close();
    expect(events.map((e) => [e.type, e.object.metadata?.name, Number(e.object.metadata?.resourceVersion)])).toEqual([['ADDED', 'after', later]]);
  });

  it('marks only the bookmark that ends the initial events of a watch-list, not the one before the deadline', async () => {
    await post('listed');
    const events = await watchToEnd('sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=4');
    const bookmarks = events.filter((e) => e.type === 'BOOKMARK');
    // The initial events, then the bookmark that ends them; changes made meanwhile (the server's
    // own controllers still publishing kube-root-ca.crt on a loaded machine) may follow it; the
    // watch ends with the bookmark 2 s before its deadline.
    const initial = events.slice(0, events.indexOf(bookmarks[0]!));
    expect(initial.every((e) => e.type === 'ADDED')).toBe(true);
    expect(initial.map((e) => e.object.metadata?.name)).toContain('listed');
    expect(bookmarks.map((e) => e.object.metadata?.annotations)).toEqual([{ 'k8s.io/initial-events-end': 'true' }, undefined]);
    expect(events.at(-1)).toEqual(bookmarks[1]);
  });

  it('gets no BOOKMARK when the deadline is closer than 2 s', async () => {
    const created = await post('short');
    expect(await watchToEnd(`resourceVersion=${created}&allowWatchBookmarks=true&timeoutSeconds=1`)).toEqual([]);
  });
});
