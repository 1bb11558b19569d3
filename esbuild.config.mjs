// `npm run build` (run by `npm start` first): bundles the server into dist/main.mjs. Starting one
// bundled file takes a fraction of the time tsx needs to transform each module on every start.
// better-sqlite3 stays external because it is a native addon, etcd3 because it reads its .proto
// files from its own folder at run time.
import { build } from 'esbuild';

await build({
  entryPoints: ['runtime/main.ts'],
  outfile: 'dist/main.mjs',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3', 'etcd3'],
  sourcemap: 'linked',
  // The map is for opting in (NODE_OPTIONS=--enable-source-maps npm start): Node then parses it at
  // load and keeps it, about 24 MB for the server's whole life, so `npm start` leaves it off. Without
  // the sources inside it is a third of the size and stack traces still name the original lines.
  sourcesContent: false,
  logLevel: 'warning',
  // CommonJS dependencies inside an ES module bundle still call require() for Node built-ins.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});

// V8 keeps a script's source as one byte per character only when every character fits in
// Latin-1; one character beyond doubles the memory the 3.6 MB bundle takes for as long as the
// server runs. Write such characters as escapes in the sources.
const { readFileSync } = await import('node:fs');
const source = readFileSync('dist/main.mjs', 'utf8');
const wide = source.search(/[^\u0000-\u00ff]/u);
if (wide >= 0) {
  const line = source.slice(0, wide).split('\n').length;
  throw new Error(`dist/main.mjs line ${line} has a character beyond Latin-1 (${JSON.stringify(source[wide])}); escape it in the source`);
}
