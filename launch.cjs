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
const vm = require('node:vm');

const dir = __dirname;
const bundle = join(dir, 'server.cjs');
const cacheFile = join(dir, `server.cjs.${commandLineKey()}.cache`);
const bundleRequire = Module.createRequire(bundle);
/** Time for the server to start (and compile what it runs) before the cache is taken. */
const CACHE_AFTER_MS = 2000;

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

function run() {
  const { script, cacheUsed } = compile();
  const module = { exports: {} };
  script.runInThisContext()(module.exports, bundleRequire, module, bundle, dir);
  if (!cacheUsed) setTimeout(() => writeCache(script), CACHE_AFTER_MS).unref();
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
