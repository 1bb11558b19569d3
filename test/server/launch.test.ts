// The bundled server as `npm start` runs it: dist/main.cjs (launch.cjs) compiles dist/server.cjs
// through V8's code cache. V8 refuses a cache made under other V8 flags, and a refused cache is
// written again 1 s after the server serves, so "the cache is kept from one start to the next" is what
// shows that V8 took it. The bundle is copied into a folder of its own (beside links to what it
// reads at run time), so the test never touches the dist/ a developer may be running.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { get } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';

const root = new URL('../..', import.meta.url).pathname;
/** launch.cjs takes the cache and collects the start's garbage this long after the server serves; the test waits a little more. */
const SETTLE_MS = 1000;

let place: string;
let dist: string;
let dataDir: string;

beforeAll(() => {
  // `npm start`'s own step: builds dist/ when a source changed since the last build.
  execFileSync(process.execPath, ['start.cjs', '--help'], { cwd: root, stdio: 'ignore' });
  place = mkdtempSync(join(tmpdir(), 'launch-'));
  dist = join(place, 'dist');
  mkdirSync(dist);
  for (const file of ['main.cjs', 'server.cjs', 'server.cjs.map']) copyFileSync(join(root, 'dist', file), join(dist, file));
  // The bundle finds generated/ and data/ one level above itself, its packages in node_modules/.
  for (const link of ['generated', 'data', 'node_modules']) symlinkSync(join(root, link), join(place, link));
  dataDir = join(place, 'data-dir');
  mkdirSync(dataDir);
}, 120_000);

afterAll(() => {
  if (place) rmSync(place, { recursive: true, force: true });
});

/**
 * Runs the bundle until it serves and a little past the moment the cache would be written, then
 * `whileServing` with its port; stops it with SIGTERM. Its output.
 */
async function runOnce(nodeFlags: string[] = [], whileServing?: (port: number) => Promise<void>): Promise<string> {
  const port = await freePort();
  const child = spawn(process.execPath, [...nodeFlags, join(dist, 'main.cjs'), '--secure-port', String(port), '--data-dir', dataDir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', () => output.includes('Serving on') && resolve());
      child.once('exit', (code) => reject(new Error(`the bundled server exited with ${code}: ${output}`)));
    });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 1500));
    expect(child.exitCode).toBeNull();
    await whileServing?.(port);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  expect(child.exitCode).toBe(0);
  return output;
}

/** Each cache file in the bundle's folder with its modification time. */
function caches(): Map<string, number> {
  return new Map(readdirSync(dist).filter((f) => f.endsWith('.cache')).map((f) => [f, statSync(join(dist, f)).mtimeMs]));
}

describe('the bundled server and its code cache', () => {
  it('writes the cache once and keeps it at the next start (V8 accepted it)', async () => {
    await runOnce();
    const first = caches();
    expect(first.size).toBe(1);
    await runOnce();
    expect(caches()).toEqual(first);
  }, 60_000);

  it('keeps one cache per node command line, so other V8 flags neither refuse nor replace it', async () => {
    if (caches().size === 0) await runOnce();
    const plain = caches();
    await runOnce(['--max-semi-space-size=2']);
    const both = caches();
    expect(both.size).toBe(2);
    for (const [file, mtime] of plain) expect(both.get(file)).toBe(mtime);
    await runOnce(['--max-semi-space-size=2']);
    await runOnce();
    expect(caches()).toEqual(both);
  }, 90_000);

  it('runs through Node\'s own loader under --enable-source-maps, whose log lines name the TypeScript sources', async () => {
    const before = caches();
    const output = await runOnce(['--enable-source-maps']);
    expect(output).toMatch(/ index\.ts:\d+\] "Serving securely"/);
    // That path compiles without the code cache and writes none.
    expect(caches()).toEqual(before);
  }, 60_000);

  it('collects the start\'s garbage once it serves, then serves and stops as before', async () => {
    let status = 0;
    const output = await runOnce(['--trace-gc'], async (port) => {
      // Anonymous requests are off by default: a 401 shows the server answers after the collection.
      status = await new Promise<number>((resolve, reject) => {
        get({ host: '127.0.0.1', port, path: '/readyz', rejectUnauthorized: false }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        }).once('error', reject);
      });
    });
    expect(status).toBe(401);
    const afterServing = output.slice(output.indexOf('Serving on'));
    // V8's trace names the reason: the heap profiler's collection is a low memory notification,
    // a memory-reducing mark-compact that nothing else in an idle server asks for.
    expect(afterServing).toMatch(/Mark-Compact \(reduce\)[^\n]*low memory notification/);
    expect(output.slice(0, output.indexOf('Serving on'))).not.toMatch(/low memory notification/);
  }, 60_000);
});
