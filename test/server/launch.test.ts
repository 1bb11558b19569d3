// The bundled server as `npm start` runs it: dist/main.cjs (launch.cjs) compiles dist/server.cjs
// through V8's code cache. V8 refuses a cache made under other V8 flags, and a refused cache is
// written again 2 s after the start, so "the cache is kept from one start to the next" is what
// shows that V8 took it. The bundle is copied into a folder of its own (beside links to what it
// reads at run time), so the test never touches the dist/ a developer may be running.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';

const root = new URL('../..', import.meta.url).pathname;
/** launch.cjs takes the cache this long after the start; the test waits a little more. */
const CACHE_AFTER_MS = 2000;

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

/** Runs the bundle until it serves and a little past the moment the cache would be written; its output. */
async function runOnce(nodeFlags: string[] = []): Promise<string> {
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
    await new Promise((resolve) => setTimeout(resolve, CACHE_AFTER_MS + 1500));
    expect(child.exitCode).toBeNull();
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
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
});
