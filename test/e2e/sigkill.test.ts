// A real server process on the embedded SQLite store, killed with SIGKILL while many clients are
// creating objects: every create that was acknowledged (201) is there after a restart on the same
// data dir, and resourceVersions keep increasing past every one acknowledged before the kill.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { call } from '../support/https-client.js';
import { startServerProcess, stopServerProcess, type ServerProcess } from '../support/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'e2e-sigkill-'));
const dataDir = join(dir, 'data');
const cm = '/api/v1/namespaces/default/configmaps';
let running: ServerProcess | undefined;

afterAll(() => {
  running?.child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('SQLite store under SIGKILL', () => {
  it('keeps every acknowledged create and continues resourceVersions after a restart', async () => {
    const first = (running = await startServerProcess(dataDir));
    const acknowledged = new Map<string, number>();
    let next = 0;
    let killed = false;
    // Eight clients create as fast as they can; the server is killed once 150 creates are acknowledged.
    const clients = Array.from({ length: 8 }, async () => {
      while (!killed) {
        const name = `k${next++}`;
        try {
          const res = await call(first.url, cm, first.creds, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ metadata: { name }, data: { n: name } }),
          });
          if (res.status === 201) {
            acknowledged.set(name, Number(res.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion));
            if (acknowledged.size >= 150 && !killed) {
              killed = true;
              first.child.kill('SIGKILL');
            }
          }
        } catch {
          // Requests in flight when the process dies fail; they were never acknowledged.
        }
      }
    });
    await Promise.all(clients);
    await new Promise((resolve) => (first.child.exitCode !== null || first.child.signalCode ? resolve(undefined) : first.child.once('exit', resolve)));

    const second = (running = await startServerProcess(dataDir));
    try {
      const list = await call(second.url, cm, second.creds);
      const stored = new Map(
        list.json<{ items: { metadata: { name: string; resourceVersion: string }; data: { n: string } }[] }>().items.map((i) => [i.metadata.name, i]),
      );
      for (const [name, rv] of acknowledged) {
        expect(stored.get(name)?.data.n, `acknowledged ${name} is missing`).toBe(name);
        expect(Number(stored.get(name)!.metadata.resourceVersion)).toBe(rv);
      }
      const after = await call(second.url, cm, second.creds, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ metadata: { name: 'after-restart' } }),
      });
      expect(after.status).toBe(201);
      const newest = Math.max(...acknowledged.values());
      expect(Number(after.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion)).toBeGreaterThan(newest);
    } finally {
      await stopServerProcess(second);
    }
  });
});
