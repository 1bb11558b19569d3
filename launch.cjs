// dist/main.cjs, copied there by the build: runs the bundled server (dist/server.cjs) through
// V8's code cache. Compiling the bundle is most of a warm start; with the cache V8 reads back the
// functions an earlier run compiled instead of parsing the source again. The first run after a
// build (or after V8 refused the cache: another Node version or V8 flags) writes the cache once
// the server has started. With --enable-source-maps Node's own loader compiles the bundle, since
// only it applies the source map.
//
// V8 accepts a cache only under the V8 flags it was made with, so the bundle must never set a V8
// flag on itself while loading (one that did made every start refuse the cache, compile the whole
// bundle again and rewrite the cache); test/server/launch.test.ts shows the cache is kept.

'use strict';

const { readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const { join } = require('node:path');
const v8 = require('node:v8');
const vm = require('node:vm');

/**
 * Node compiles its built-in modules with its own code cache, which V8 refuses once a V8 flag has
 * been set (it checks a cache against the flags it was made under): every built-in module loaded
 * after the flags below was compiled from source, about 17 ms of a start's CPU for http2, tls,
 * crypto and the rest (spawn to /readyz, 196 to 179 ms in ten alternating starts). So the
 * ones a start loads, as the build listed them (dist/builtins.json), are loaded first; start.cjs
 * does the same before its own flags. Without the list (a build that wrote none) they load later.
 */
try {
  for (const name of JSON.parse(readFileSync(join(__dirname, 'builtins.json'), 'utf8'))) require(`node:${name}`);
} catch {
  // only the start's speed is lost
}

/**
 * V8's compilers to machine code, the optimizing one (TurboFan) and the baseline one (Sparkplug),
 * wait until the start has settled. A start runs once what serving never runs again (the
 * bootstrap policy compared role by role, tables walked, data frozen), and V8 optimized a few of
 * those functions and baseline-compiled many at every start: work thrown away, and the
 * compilers' code paged in, their output and the optimizing thread's memory kept, for the rest of
 * an idle server's life (about 4.5 MB of its memory for TurboFan, 0.7 MB for Sparkplug). Requests
 * that come before then run in V8's interpreter. The flags are set as this file loads (start.cjs
 * sets them sooner still), before the bundle is compiled, and left until after the cache is
 * written, so the cache is always made and read under the same flags (V8 refuses one made under
 * others). A node command line that already says how to compile is left alone.
 */
const COMPILERS_CHOSEN = /(^|\s)--(no-)?(opt|turbofan|sparkplug|jitless|max-opt)\b/;
/** Whether node's command line (its own flags or NODE_OPTIONS) already says what `flags` says. */
const commandLineNames = (flags) => flags.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`);
const holdCompilers = !commandLineNames(COMPILERS_CHOSEN);
if (holdCompilers) v8.setFlagsFromString('--no-turbofan --no-sparkplug');
/**
 * V8's allocation-site pretenuring is off for a serving process (runtime/server/pretenuring.ts
 * says why); set here, before the bundle is compiled, so no site is pretenured by the start
 * either, and so the code cache is made and read under the same flags.
 */
if (!commandLineNames(/(^|\s)--(no-)?allocation-site-pretenuring\b/)) v8.setFlagsFromString('--no-allocation-site-pretenuring');

const dir = __dirname;
const bundle = join(dir, 'server.cjs');
const cacheFile = join(dir, `server.cjs.${commandLineKey()}.cache`);
const bundleRequire = Module.createRequire(bundle);
/**
 * How long after the server serves the start's work is taken to have settled (the first lists of
 * its informers and controllers, the functions the first requests compile): then the cache is
 * taken, and the start's garbage collected.
 */
const SETTLE_MS = 1000;

/**
 * V8 accepts a cache only under the V8 flags it was made with, and `npm start` gives node other
 * flags (package.json) than `node dist/main.cjs` has: one cache per node command line, so that
 * neither keeps discarding and rewriting the other's. (V8 flags in NODE_OPTIONS still share the
 * command line's cache: a port in it would otherwise make a new file at every start.)
 */
function commandLineKey() {
  // FNV-1a: a name, not a secret, and node:crypto is not loaded yet.
  let hash = 0x811c9dc5;
  for (const c of process.execArgv.join('\0')) hash = Math.imul(hash ^ c.charCodeAt(0), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

/** V8 checks a cache only against its source's length, so one older than the bundle is not used. */
function readCache() {
  try {
    if (statSync(cacheFile).mtimeMs < statSync(bundle).mtimeMs) return undefined;
    return readFileSync(cacheFile);
  } catch {
    return undefined;
  }
}

function writeCache(script) {
  try {
    const partial = `${cacheFile}.${process.pid}`;
    writeFileSync(partial, script.createCachedData());
    // Renamed into place whole: a server starting meanwhile reads the old cache or the new one.
    renameSync(partial, cacheFile);
  } catch {
    // A read-only dist/ only costs the next start its compile time.
  }
}

/**
 * Starting allocates far more than serving an idle server does: V8's young generation grows to
 * 8 MB and the start leaves megabytes of garbage. V8 collects it only when allocation asks for it,
 * which an idle server never does, so the process would hold it for good. One collection of
 * everything, asked for as a heap profiler asks (the one way to V8's memory-reducing collection
 * without V8 flags, which would cost the code cache), gives it back: about 7 MB of RSS, for a
 * pause of 20-35 ms once.
 *
 * That collection also drops the bytecode of every function not running: V8 drops a function's
 * bytecode once it has gone unused through five collections, which an idle server never makes,
 * so the bytecode of all the start ran (read from the code cache or compiled) would stay for
 * good, most of it never run again. About 0.8 MB; what requests run is compiled again as they
 * come, once (about 10 ms over the first requests after the settle). V8's switch for this is
 * meant for its own tests but is only the age check skipped; it is on for this one collection,
 * after the cache is written, and left alone when the command line names it.
 */
const FLUSH_CHOSEN = /(^|\s)--(no-)?stress-flush-code\b/;

function collectStartGarbage() {
  let session;
  try {
    session = new (require('node:inspector').Session)();
    session.connect();
  } catch {
    return; // a node built without the inspector
  }
  const flushAll = !commandLineNames(FLUSH_CHOSEN);
  if (flushAll) v8.setFlagsFromString('--stress-flush-code');
  session.post('HeapProfiler.collectGarbage', () => {
    if (flushAll) v8.setFlagsFromString('--no-stress-flush-code');
    // Disconnecting from inside the answer's callback never returns (Node 20), so a turn later.
    setImmediate(() => session.disconnect());
  });
}

/** After the start settles: the cache if V8 had none to take, the collection, then the compilers. */
function afterStart(exports, script, cacheUsed) {
  if (!(exports.serving instanceof Promise)) {
    releaseCompilers();
    return;
  }
  exports.serving.then(
    () =>
      setTimeout(() => {
        if (script && !cacheUsed) writeCache(script);
        collectStartGarbage();
        releaseCompilers();
      }, SETTLE_MS).unref(),
    releaseCompilers,
  );
}

function releaseCompilers() {
  if (holdCompilers) v8.setFlagsFromString('--turbofan --sparkplug');
}

function run() {
  const { script, cacheUsed } = compile();
  const module = { exports: {} };
  script.runInThisContext()(module.exports, bundleRequire, module, bundle, dir);
  afterStart(module.exports, script, cacheUsed);
}

/**
 * Node applies a source map only to code its own module loader compiled: the bundle's function
 * expression is compiled as a module's body that returns it (the `return` stays on the first
 * line, which the map gives to the banner), then called as launch does.
 */
function runWithSourceMaps() {
  const module = new Module(bundle, null);
  module.filename = bundle;
  module.paths = Module._nodeModulePaths(dir);
  const start = module._compile(`return ${readFileSync(bundle, 'latin1')}`, bundle);
  start(module.exports, bundleRequire, module, bundle, dir);
  afterStart(module.exports);
}

/**
 * The cache (about 2 MB, outside V8's heap) is needed only to compile. Read here, in a function
 * of its own, nothing holds it once the server starts running, so the collections of the start
 * free it; an idle server makes no garbage, runs no collection, and would hold it for good.
 */
function compile() {
  const cachedData = readCache();
  // The build keeps the bundle ASCII, so Latin-1 reads it exactly, without UTF-8 decoding; it
  // is already the module's function (esbuild.config.mjs), so the text read is compiled as it is.
  const script = new vm.Script(readFileSync(bundle, 'latin1'), { filename: bundle, cachedData });
  return { script, cacheUsed: cachedData !== undefined && !script.cachedDataRejected };
}

if (process.sourceMapsEnabled) runWithSourceMaps();
else run();
