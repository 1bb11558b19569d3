// `npm run build`, second half: the installable library in lib/. ES modules bundled per entry
// point (lib/index.js: startServer; lib/client.js: the typed client; lib/protobuf.js: its opt-in
// protobuf responses; lib/types.js: nothing at run time, the resource types are declarations only), code shared between them split into chunks,
// every package dependency left external; declarations from tsc in lib/dts/. lib/ sits one
// level below the package root, as runtime/ does, so the runtime finds generated/ and data/.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
rmSync(join(root, 'lib'), { recursive: true, force: true });

await build({
  absWorkingDir: root,
  entryPoints: { index: 'runtime/index.ts', client: 'client/index.ts', protobuf: 'client/protobuf.ts', types: 'generated/types/index.ts' },
  outdir: 'lib',
  format: 'esm',
  bundle: true,
  splitting: true,
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
