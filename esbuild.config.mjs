// `npm run build` (and `npm start` when dist/ is stale): bundles the server into dist/server.cjs,
// run by dist/main.cjs (launch.cjs) through V8's code cache. Starting one bundled file takes a
// fraction of the time tsx needs to transform each module on every start. better-sqlite3's addon
// stays outside, a native .node file (its JavaScript is bundled, below), and @peculiar/x509
// because only a start that makes certificates loads it: in the bundle its 450 KB of source would
// stay in memory on every start, and the code cache, written by the first start (the one that
// makes the PKI), would bring its compiled functions into every later start as well.
import { build } from 'esbuild';
import { copyFileSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

const root = dirname(fileURLToPath(import.meta.url));
/** Read by start.cjs: project-relative path -> [size, mtimeMs], or null for a file that was absent. */
const BUILD_RECORD = 'dist/build-record.json';
/** Inputs esbuild does not list as sources but that shape the bundle (options, dependency versions). */
const FIXED_INPUTS = ['start.cjs', 'launch.cjs', 'esbuild.config.mjs', 'package.json', 'package-lock.json', 'tsconfig.json', 'node_modules/.package-lock.json'];
// Neither the record nor the code cache of a previous build may vouch for this one.
rmSync(join(root, 'dist'), { recursive: true, force: true });
const startedAt = Date.now();

// A script run through vm (launch.cjs) has no import() of its own on Node 20 without an
// experimental flag; a dynamic import of an external package becomes a require() of it.
const externalsRequired = {
  name: 'external-dynamic-imports-as-require',
  setup(b) {
    b.onResolve({ filter: /.*/ }, (args) =>
      args.kind === 'dynamic-import' && EXTERNAL.includes(args.path) ? { path: args.path, namespace: 'required-external' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'required-external' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};
const EXTERNAL = ['@peculiar/x509'];

// better-sqlite3's JavaScript goes into the bundle, so that it comes from the code cache rather
// than a dozen files the CommonJS loader resolves and compiles at every start; only its addon, a
// .node file, is required from node_modules. runtime/storage/sqlite-addon.ts requires the package
// through createRequire, which esbuild cannot follow, so the bundle has a plain require in its
// place. The package finds its addon through `bindings`, which searches from the path of the
// file that calls it (in a bundle, dist/): here it is required where the install puts it.
const sqliteBundled = {
  name: 'better-sqlite3-bundled',
  setup(b) {
    const virtual = (path) => ({ path, namespace: 'better-sqlite3-bundled' });
    b.onResolve({ filter: /^\.\/sqlite-addon\.js$/ }, (args) => (args.importer.endsWith(join('runtime', 'storage', 'sqlite.ts')) ? virtual('sqlite-addon') : undefined));
    b.onResolve({ filter: /^bindings$/ }, (args) => (/better-sqlite3[\\/]lib[\\/]database\.js$/.test(args.importer) ? virtual('bindings') : undefined));
    const contents = {
      'sqlite-addon': "exports.requireSqlite = () => require('better-sqlite3');",
      bindings: "const { dirname, join } = require('node:path');\nmodule.exports = (name) => require(join(dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', name));",
    };
    b.onLoad({ filter: /.*/, namespace: 'better-sqlite3-bundled' }, (args) => ({ contents: contents[args.path], loader: 'js', resolveDir: root }));
  },
};

// protobufjs reads and writes 64-bit integers as Longs when the `long` package loads, and long
// instantiates a WebAssembly module as it loads (for its multiply and divide, which nothing here
// calls): the WebAssembly engine's pages, about 1.3 MB of every server's memory. The codec reads
// int64s as numbers, exact to 2^53 as JSON numbers are, and a Duration's nanoseconds from the
// varint's own bytes (runtime/api/protobuf/well-known.ts), so the bundle gives protobufjs no Long.
const protobufWithoutLong = {
  name: 'protobufjs-without-long',
  setup(b) {
    b.onResolve({ filter: /^long$/ }, (args) => (/protobufjs[\\/]/.test(args.importer) ? { path: 'long', namespace: 'no-long' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'no-long' }, () => ({ contents: 'module.exports = null;', loader: 'js' }));
  },
};

// prom-client's process CPU counters require @opentelemetry/api as they load, to label
// exemplars with the current trace, and read it only when a metric records exemplars, which the
// server's never do: 42 KB of source held in memory and its globals set up at every start for
// nothing. The bundle gets a stand-in that requires the package from node_modules the first time
// something reads it.
const opentelemetryOnUse = {
  name: 'opentelemetry-api-on-use',
  setup(b) {
    b.onResolve({ filter: /^@opentelemetry\/api$/ }, (args) => (/prom-client[\\/]/.test(args.importer) ? { path: 'api', namespace: 'opentelemetry-on-use' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'opentelemetry-on-use' }, () => ({
      contents: "let api;\nconst load = () => (api ??= require('@opentelemetry/api'));\nmodule.exports = { get trace() { return load().trace; }, get context() { return load().context; } };",
      loader: 'js',
    }));
  },
};

const result = await build({
  absWorkingDir: root,
  entryPoints: ['runtime/main.ts'],
  outfile: 'dist/server.cjs',
  // CommonJS: V8's code cache (launch.cjs) is open to scripts only, not to ES modules, on Node 20.
  format: 'cjs',
  // Node keeps each module's source text in memory for as long as the server runs and parses it
  // at every start; without whitespace and with shorter syntax it is about 70%. Identifiers are
  // not shortened, so function and class names (error and constructor names in logs) stay as
  // written without esbuild's keepNames, which wraps every function expression in a call that
  // defines its name: about 8 µs per request on the GET path (Hono's Context alone defines
  // a dozen per request) and 2 MB of idle memory. The map gives stack traces their original lines.
  minifyWhitespace: true,
  minifySyntax: true,
  bundle: true,
  platform: 'node',
  target: 'node20',
  // The addon is found from the package's place at run time (sqliteBundled).
  external: [...EXTERNAL, 'better-sqlite3/package.json', '@opentelemetry/api'],
  plugins: [externalsRequired, sqliteBundled, protobufWithoutLong, opentelemetryOnUse],
  sourcemap: 'linked',
  // The map is for opting in (NODE_OPTIONS=--enable-source-maps npm start): Node then parses it at
  // load and keeps it, about 24 MB for the server's whole life, so `npm start` leaves it off. Without
  // the sources inside it is a third of the size and stack traces still name the original lines.
  sourcesContent: false,
  metafile: true,
  logLevel: 'warning',
  // The sources are ES modules: strict, and runtime/generated-files.ts locates files from import.meta.url.
  // The file is one function expression taking what Node's CommonJS wrapper gives a module
  // (launch.cjs calls it): compiled as read, its text is the source V8 keeps. Wrapped at run time
  // instead, V8 kept a flattened copy of the concatenation as well (2.9 MB of heap for the
  // server's whole life) and the text read became garbage that an idle server never collects.
  banner: { js: "(function (exports, require, module, __filename, __dirname) {'use strict';const __import_meta_url=require('node:url').pathToFileURL(__filename).href;" },
  footer: { js: '})' },
  define: { 'import.meta.url': '__import_meta_url' },
});
copyFileSync(join(root, 'launch.cjs'), join(root, 'dist/main.cjs'));

// Node's built-in modules a start loads, for start.cjs and launch.cjs to load before they set V8
// flags (launch.cjs says why): those the bundle requires, launch.cjs's own, and those node's net
// loads when a server listens (cluster, and dns to look its address up).
const BUILTINS = 'dist/builtins.json';
const builtins = new Set(['cluster', 'dns', 'module', 'v8', 'vm']);
for (const { path } of result.metafile.outputs['dist/server.cjs'].imports) {
  const name = path.replace(/^node:/, '');
  if (builtinModules.includes(name)) builtins.add(name);
}
writeFileSync(join(root, BUILTINS), JSON.stringify([...builtins].sort()));

// launch.cjs reads the bundle as Latin-1, byte for character: decoding 2 MB of UTF-8 costs Node 20
// some 20 ms at every start, Latin-1 under one, and the two agree on ASCII. esbuild escapes
// non-ASCII characters in strings and names but leaves a few in regular expressions; those are
// written as \xHH escapes here (same meaning in a string, template or regular expression literal;
// the source map's columns after one on its line shift by three). Anything beyond Latin-1 would
// also double the memory V8 keeps the source in, so the source must be changed.
const outputs = [...Object.keys(result.metafile.outputs), 'dist/main.cjs', BUILTINS];
for (const file of outputs.filter((f) => /\.[cm]js$/.test(f))) {
  const path = join(root, file);
  const source = readFileSync(path, 'utf8');
  const ascii = source.replace(/(?<!\\)[\u0080-\u00ff]/g, (c) => `\\x${c.charCodeAt(0).toString(16)}`);
  const wide = ascii.search(/[^\u0000-\u007f]/u);
  if (wide >= 0) {
    const line = ascii.slice(0, wide).split('\n').length;
    throw new Error(`${file} line ${line} has a character beyond ASCII (${JSON.stringify(ascii[wide])}) that could not be escaped; escape it in the source`);
  }
  if (ascii !== source) {
    if (file.endsWith('.cjs')) new Script(ascii, { filename: path });
    writeFileSync(path, ascii);
  }
}

// What `npm start` checks to skip this build: every file read or written, with its size and
// modification time. A file changed while esbuild ran may not be in the bundle, so no record then.
const files = [...new Set([...FIXED_INPUTS, ...Object.keys(result.metafile.inputs), ...outputs])].sort();
const record = {};
for (const file of files) {
  const s = statSync(join(root, file), { throwIfNoEntry: false });
  if (!s) {
    record[file] = null;
    continue;
  }
  if (s.mtimeMs >= startedAt && !outputs.includes(file)) process.exit(0);
  record[file] = [s.size, s.mtimeMs];
}
writeFileSync(join(root, BUILD_RECORD), JSON.stringify(record));
