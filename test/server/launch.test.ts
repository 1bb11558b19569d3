// The bundled server as `npm start` runs it: dist/main.cjs (launch.cjs) compiles dist/server.cjs
// through V8's code cache. V8 refuses a cache made under other V8 flags, and a refused cache is
// written again 1 s after the server serves, so "the cache is kept from one start to the next" is what
// shows that V8 took it. The bundle is copied into a folder of its own (beside links to what it
// reads at run time), so the test never touches the dist/ a developer may be running.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Agent, get, request } from 'node:https';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/ports.js';

const root = new URL('../..', import.meta.url).pathname;
/** launch.cjs takes the cache and collects the start's garbage this long after the server serves; the test waits a little more. */
const SETTLE_MS = 1000;

let place: string;
let dist: string;
let dataDir: string;
let tokenFile: string;
let builtinsReport: string;
const TOKEN = 'launch-test-token';

beforeAll(() => {
  // `npm start`'s own step: builds dist/ when a source changed since the last build.
  execFileSync(process.execPath, ['start.cjs', '--help'], { cwd: root, stdio: 'ignore' });
  place = mkdtempSync(join(tmpdir(), 'launch-'));
  dist = join(place, 'dist');
  mkdirSync(dist);
  for (const file of ['main.cjs', 'server.cjs', 'server.cjs.map', 'builtins.json']) copyFileSync(join(root, 'dist', file), join(dist, file));
  // The bundle finds generated/ and data/ one level above itself, its packages in node_modules/.
  for (const link of ['generated', 'data', 'node_modules']) symlinkSync(join(root, link), join(place, link));
  dataDir = join(place, 'data-dir');
  mkdirSync(dataDir);
  tokenFile = join(place, 'tokens.csv');
  writeFileSync(tokenFile, `${TOKEN},admin,admin-uid,system:masters\n`);
  builtinsReport = join(place, 'report-builtins.cjs');
  // Preloaded: when the server exits, the built-in modules it loaded, one line, and the files it required, another.
  writeFileSync(
    builtinsReport,
    "process.on('exit', () => process.stderr.write(`BUILTINS ${JSON.stringify(process.moduleLoadList)}\\nREQUIRED ${JSON.stringify(Object.keys(require.cache))}\\n`));\n",
  );
}, 120_000);

afterAll(() => {
  if (place) rmSync(place, { recursive: true, force: true });
});

let runs = 0;

/**
 * Runs the bundle until it serves and a little past the moment the cache would be written, then
 * `whileServing` with its port; stops it with SIGTERM. Its output, stdout and stderr in the order
 * written. They go to a file, not a pipe: node makes its end of a pipe non-blocking, and V8 writes
 * its traces with plain stdio, which drops what a full pipe refuses (thousands of trace lines at
 * once, read by a parent slowed by a loaded machine, lost most of them).
 */
async function runOnce(nodeFlags: string[] = [], whileServing?: (port: number) => Promise<void>, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const port = await freePort();
  const args = [...nodeFlags, join(dist, 'main.cjs'), '--secure-port', String(port), '--data-dir', dataDir, '--token-auth-file', tokenFile];
  const outputFile = join(place, `output-${++runs}.txt`);
  const fd = openSync(outputFile, 'a');
  const child = spawn(process.execPath, args, { stdio: ['ignore', fd, fd], env });
  closeSync(fd);
  const output = () => readFileSync(outputFile, 'utf8');
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      const poll = setInterval(() => output().includes('Serving on') && (clearInterval(poll), resolve()), 20);
      child.once('exit', (code) => (clearInterval(poll), reject(new Error(`the bundled server exited with ${code}: ${output()}`))));
    });
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS + 1500));
    expect(child.exitCode).toBeNull();
    await whileServing?.(port);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
  expect(child.exitCode).toBe(0);
  return output();
}

/** One request with the test's system:masters token (none when `token` is false); its status and body. */
function call(port: number, agent: Agent, method: string, path: string, body?: unknown, token = true): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${TOKEN}` } : {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent, rejectUnauthorized: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.once('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** 2,000 GETs of one namespace, 50 at a time: enough of one request for V8 to find its functions hot. The 200s counted. */
async function hotGets(port: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  let answered = 0;
  for (let round = 0; round < 40; round++) {
    const answers = await Promise.all(Array.from({ length: 50 }, () => call(port, agent, 'GET', '/api/v1/namespaces/default')));
    answered += answers.filter((a) => a.status === 200).length;
  }
  agent.destroy();
  return answered;
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

  // Node reports each built-in module's code cache as accepted or refused (NODE_DEBUG_NATIVE);
  // V8 refuses it once a V8 flag has been set, and the launcher and start.cjs set some.
  const refusedBuiltins = (output: string) => [...output.matchAll(/^Code cache of (\S+) \(\w+\) is rejected$/gm)].map((m) => m[1]);
  // util.parseArgs loads its two modules when the server first reads its flags, not as util loads.
  const LAZY = /^internal\/util\/parse_args\//;

  it('loads node\'s built-in modules from node\'s own code cache, before setting V8 flags', async () => {
    const env = { ...process.env, NODE_DEBUG_NATIVE: 'CODE_CACHE' };
    const output = await runOnce([], undefined, env);
    expect(output).toMatch(/^Code cache of http2 \(\w+\) is accepted$/m);
    expect(refusedBuiltins(output.slice(0, output.indexOf('Serving on'))).filter((id) => !LAZY.test(id))).toEqual([]);
    // npm start's way in, start.cjs (which sets the flags before the launcher does), as far as the bundle's flag parsing.
    const help = spawnSync(process.execPath, ['start.cjs', '--help'], { cwd: root, env, encoding: 'utf8' });
    expect(help.status).toBe(0);
    expect(help.stderr).toMatch(/^Code cache of tls \(\w+\) is accepted$/m);
    expect(refusedBuiltins(help.stderr).filter((id) => !LAZY.test(id))).toEqual([]);
    // The list the build wrote names what the bundle requires and what a listening server loads.
    const listed = JSON.parse(readFileSync(join(root, 'dist', 'builtins.json'), 'utf8')) as string[];
    expect(listed).toEqual(expect.arrayContaining(['http2', 'https', 'tls', 'crypto', 'net', 'cluster', 'dns', 'vm']));
  }, 60_000);

  it('serves without loading undici: requests, answers and watches are the server\'s own Fetch classes', async () => {
    const statuses: number[] = [];
    let metrics = '';
    const output = await runOnce(['-r', builtinsReport], async (port) => {
      const agent = new Agent({ keepAlive: true });
      const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'no-undici' }, data: { a: 'b' } };
      const cms = '/api/v1/namespaces/default/configmaps';
      for (const [method, path, body, token] of [
        ['GET', '/readyz', undefined, true],
        ['GET', '/readyz', undefined, false],
        ['POST', cms, cm, true],
        ['POST', cms, cm, true],
        ['GET', `${cms}/no-undici`, undefined, true],
        ['GET', `${cms}?limit=1`, undefined, true],
        ['PATCH', `${cms}/no-undici`, undefined, true],
        ['GET', '/api/v1/nope', undefined, true],
        ['GET', `${cms}?watch=1&timeoutSeconds=1`, undefined, true],
        ['GET', '/version', undefined, true],
        ['GET', '/metrics', undefined, true],
        ['DELETE', `${cms}/no-undici`, undefined, true],
      ] as const) {
        const answer = await call(port, agent, method, path, body, token);
        statuses.push(answer.status);
        if (path === '/metrics') metrics = answer.body;
      }
      agent.destroy();
    });
    expect(statuses).toEqual([200, 401, 201, 409, 200, 200, 415, 404, 200, 200, 200, 200]);
    const loaded = JSON.parse(/BUILTINS (.*)\n/.exec(output)![1]) as string[];
    expect(loaded).toContain('NativeModule http2');
    expect(loaded.filter((m) => m.includes('undici'))).toEqual([]);
    // Nor @opentelemetry/api, which prom-client's CPU counters read only for exemplars
    // (esbuild.config.mjs), though /metrics answered with those counters.
    const required = JSON.parse(/REQUIRED (.*)\n/.exec(output)![1]) as string[];
    expect(required.some((f) => f.includes('better-sqlite3'))).toBe(true);
    expect(required.filter((f) => f.includes('@opentelemetry'))).toEqual([]);
    expect(readFileSync(join(dist, 'server.cjs'), 'latin1')).not.toContain('opentelemetry.js.api');
    expect(metrics).toMatch(/^process_cpu_user_seconds_total \d/m);
  }, 60_000);

  it('turns V8\'s allocation-site pretenuring off before the bundle runs, unless node\'s command line names it', async () => {
    // V8 traces each pretenuring decision it takes at a collection; with pretenuring off it takes none.
    const decisions = (output: string) => output.split('\n').filter((line) => line.includes('pretenuring: AllocationSite')).length;
    const serveSome = async (port: number) => void (await hotGets(port));
    expect(decisions(await runOnce(['--trace-pretenuring-statistics'], serveSome))).toBe(0);
    // The same start and requests with the flag named: V8 decides about the start's sites as it
    // always would (so the trace above would have shown them).
    expect(decisions(await runOnce(['--trace-pretenuring-statistics', '--allocation-site-pretenuring'], serveSome))).toBeGreaterThan(0);
  }, 60_000);

  it('starts without V8\'s optimizing compiler and has it again once the start has settled', async () => {
    let answered = 0;
    const output = await runOnce(['--trace-opt', '--trace-gc'], async (port) => void (answered = await hotGets(port)));
    expect(answered).toBe(2000);
    // The settled start is marked by its collection (the heap profiler's: a low memory notification).
    const settled = output.search(/low memory notification/);
    expect(settled).toBeGreaterThan(output.indexOf('Serving on'));
    expect(output.slice(0, settled)).not.toMatch(/completed optimizing/);
    expect(output.slice(settled)).toMatch(/completed optimizing/);
  }, 60_000);

  it('drops the bytecode the start left when it settles, and compiles again what requests run', async () => {
    // V8 prints what a collection drops as it marks, then the collection's own line, both from its
    // own writer, so in the order they happened. The settle's collection is V8's low memory
    // notification: two or more memory-reducing mark-compacts in a row, each line naming that
    // reason, run from a task of the inspector's after the switch is set. When an incremental
    // marking begun before the switch is still running, a collection that finishes it (before or
    // as the first of those rounds) drops only what V8's own ageing drops, and the next drops the
    // rest. So what the switch drops is counted from the start to the settle's last round.
    const settle = (output: string) => {
      const lines = output.split('\n');
      const first = lines.findIndex((line) => line.includes('low memory notification'));
      expect(first).toBeGreaterThan(0);
      // A collection's own line gives its time since the start ("... 1656 ms: Mark-Compact ...").
      const collection = (line: string) => line.includes(' ms: ');
      let last = first;
      for (let i = first + 1; i < lines.length; i++) {
        if (!collection(lines[i])) continue;
        if (!lines[i].includes('low memory notification')) break;
        last = i;
      }
      let previous = first - 1;
      while (previous >= 0 && !collection(lines[previous])) previous--;
      const drops = (from: number) => lines.slice(from, last + 1).filter((line) => line.includes('discarding compiled metadata')).length;
      return { untilSettled: drops(0), inSettle: drops(previous + 1) };
    };
    let answered = 0;
    const output = await runOnce(['--trace-flush-bytecode', '--trace-gc'], async (port) => void (answered = await hotGets(port)));
    // The start's bytecode is dropped (about 2,200 functions, with or without a code cache); the
    // GETs after it compile their own again and are answered.
    expect(settle(output).untilSettled).toBeGreaterThan(1000);
    expect(answered).toBe(2000);
    // V8 on its own drops bytecode only after five collections without a call: named on the
    // command line, the switch is left to it, and the settle's rounds drop nothing, or only the
    // few functions a start that collected often had left unused through five collections (a
    // start under V8's --stress-incremental-marking: 77 of them).
    expect(settle(await runOnce(['--trace-flush-bytecode', '--trace-gc', '--no-stress-flush-code'])).inSettle).toBeLessThan(100);
  }, 90_000);

  it('holds the baseline compiler through the start too, and leaves the compilers to a command line that names them', async () => {
    // Batches of functions Sparkplug compiled before the server served: node's own bootstrap runs
    // a couple before launch.cjs loads; the start itself compiled dozens.
    const batchesBeforeServing = (output: string) => output.slice(0, output.indexOf('Serving on')).split('Compiling current batch').length - 1;
    expect(batchesBeforeServing(await runOnce(['--trace-baseline-batch-compilation']))).toBeLessThanOrEqual(5);
    expect(batchesBeforeServing(await runOnce(['--sparkplug', '--trace-baseline-batch-compilation']))).toBeGreaterThan(20);
    // Turned off on the command line, TurboFan stays off after the start settles, under load too.
    let answered = 0;
    const output = await runOnce(['--no-turbofan', '--trace-opt'], async (port) => void (answered = await hotGets(port)));
    expect(answered).toBe(2000);
    expect(output).not.toMatch(/completed optimizing/);
  }, 90_000);
});
