// --event-ttl: kube-apiserver stores Events with a lease of this length (default 1h), renewed by
// every write, so that an event disappears once it has not been written for that long. The
// expirer does this above our Storage contract: it times each key from its last write and deletes
// it, conditionally on that write's revision, once the time is up.

import { afterAll, describe, expect, it } from 'vitest';
import { resources } from '../../generated/registry.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { ObjectExpirer } from '../../runtime/registry/expirer.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import { parseFlags } from '../../runtime/server/flags.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';
import { openWatch } from '../support/watch-client.js';

const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('--event-ttl', () => {
  it('is parsed as a Go duration', () => {
    const parsed = parseFlags(['--event-ttl=30m']);
    expect(parsed.help === false && parsed.options.eventTTLMs).toBe(30 * 60 * 1000);
    const never = parseFlags(['--event-ttl', '0s']);
    expect(never.help === false && never.options.eventTTLMs).toBe(0);
    expect(() => parseFlags(['--event-ttl=1'])).toThrow('invalid argument "1" for "--event-ttl" flag: time: missing unit in duration "1"');
  });
});

describe('ObjectExpirer', () => {
  it('deletes keys not written for the TTL, renewing keys on every write', async () => {
    const storage = new MemoryStorage();
    let now = 1_000_000;
    await storage.create('/registry/events/default/old', '{}');
    const expirer = new ObjectExpirer(storage, '/registry/events/', 60_000, { now: () => now, sweepIntervalMs: 3_600_000 });
    await expirer.start();
    expect(expirer.size).toBe(1);
    now += 30_000;
    await storage.create('/registry/events/default/new', '{}');
    await storage.create('/registry/configmaps/default/other', '{}');
    await settle();
    expect(expirer.size).toBe(2);
    now += 30_000;
    expect(await expirer.sweep()).toBe(1);
    expect(await storage.get('/registry/events/default/old')).toBeUndefined();
    // A write renews the key's time.
    const kv = await storage.get('/registry/events/default/new');
    await storage.update('/registry/events/default/new', '{"a":1}', kv!.modRevision);
    await settle();
    now += 40_000;
    expect(await expirer.sweep()).toBe(0);
    now += 20_000;
    expect(await expirer.sweep()).toBe(1);
    expect(await storage.get('/registry/events/default/new')).toBeUndefined();
    expect(await storage.get('/registry/configmaps/default/other')).toBeDefined();
    expect(expirer.size).toBe(0);
    expirer.close();
  });

  it('leaves a key written after it last saw it to the next sweep', async () => {
    const storage = new MemoryStorage();
    let now = 0;
    const expirer = new ObjectExpirer(storage, '/registry/events/', 10, { now: () => now, sweepIntervalMs: 3_600_000 });
    await expirer.start();
    await storage.create('/registry/events/ns/e', '{}');
    await settle();
    expirer.close(); // stop following: the next write goes unseen
    const kv = await storage.get('/registry/events/ns/e');
    await storage.update('/registry/events/ns/e', '{"b":2}', kv!.modRevision);
    now += 100;
    // The conditional delete fails on the newer revision and the object stays.
    expect(await new ObjectExpirer(storage, '/registry/events/', 10, { now: () => now }).sweep()).toBe(0);
    expect(await storage.get('/registry/events/ns/e')).toBeDefined();
  });

  it('is run by the registry for the kinds that declare a time to live (Events, one for both versions)', () => {
    const registry = new ResourceRegistry(new MemoryStorage(), resources, { watchCache: false, eventTTLMs: 1000 });
    expect(registry.expirers).toHaveLength(1);
    registry.close();
    const never = new ResourceRegistry(new MemoryStorage(), resources, { watchCache: false, eventTTLMs: 0 });
    expect(never.expirers).toHaveLength(0);
    never.close();
  });
});

describe('Events expire in a running server', () => {
  let server: RunningServer | undefined;
  afterAll(() => server?.close());

  it('deletes an event after the TTL, and watchers see it go', async () => {
    server = await startServer({ storage: 'memory', eventTTLMs: 1500 });
    const creds = kubeconfigCredentials(server.kubeconfig);
    const path = '/api/v1/namespaces/default/events';
    const body = { metadata: { name: 'short-lived' }, involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' }, reason: 'Tick', message: 'tick', type: 'Normal' };
    const created = await call(server.url, path, creds, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(created.status).toBe(201);
    const rv = created.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const watch = await openWatch(server.url, `/apis/events.k8s.io/v1/namespaces/default/events?watch=1&resourceVersion=${rv}`, creds);
    try {
      const started = Date.now();
      const [gone] = await watch.until((e) => e.type === 'DELETED');
      expect(gone).toMatchObject({ type: 'DELETED', object: { apiVersion: 'events.k8s.io/v1', metadata: { name: 'short-lived' }, note: 'tick' } });
      expect(Date.now() - started).toBeGreaterThan(500);
    } finally {
      watch.close();
    }
    expect((await call(server.url, `${path}/short-lived`, creds)).status).toBe(404);
  });
});
