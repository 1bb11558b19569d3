// The runtime's layers (the design's "Runtime layers"): each layer imports only
// the layers below it, never a layer above and never a sibling on its own level. The test reads
// the import and export-from lines of every runtime/**/*.ts file and names each import that goes
// the wrong way.

import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), '../..'));
const RUNTIME = join(ROOT, 'runtime');

/**
 * Rank of each layer: a file may import its own layer or any layer of a lower rank. Layers that
 * share a rank are siblings and may not import each other.
 */
const RANK: Record<string, number> = {
  // runtime/index.ts (startServer), main.ts, create-api.ts: the entry wires every layer.
  entry: 8,
  server: 7,
  api: 6,
  // In-process clients of the registry, started by the entry; the api never calls them.
  controllers: 6,
  registry: 5,
  auth: 4,
  validation: 3,
  storage: 3,
  machinery: 2,
  // StatusError, the one error type, imported by every layer including machinery.
  errors: 1,
};

/**
 * Files at the top of runtime/ that belong to a lower layer than the entry. generated-files.ts
 * must stay one level below the project root, so that the sources and the bundle (dist/, also one
 * level down) resolve `../generated/` alike; what it does (locate data files) is machinery's.
 */
const TOP_LEVEL_FILES: Record<string, string> = {
  'generated-files': 'machinery',
};

function layerOf(runtimeRelative: string): string {
  const parts = runtimeRelative.split('/');
  if (parts.length === 1) return TOP_LEVEL_FILES[parts[0].replace(/\.(ts|js)$/, '')] ?? 'entry';
  return parts[0];
}

function runtimeFiles(dir = RUNTIME): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return runtimeFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

// `import … from '…'`, `export … from '…'` (over several lines too), `import '…'` and `import('…')`.
const SPECIFIER = /\bfrom\s*['"]([^'"\n]+)['"]|\bimport\s*\(\s*['"]([^'"\n]+)['"]\s*\)|^\s*import\s*['"]([^'"\n]+)['"]/gm;

function importsOf(source: string): string[] {
  return [...source.matchAll(SPECIFIER)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** Why an import from `file` (relative to runtime/) of `specifier` goes the wrong way, or undefined when it does not. */
function violation(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const target = relative(RUNTIME, join(RUNTIME, dirname(file), specifier)).split(sep).join('/');
  // Outside runtime/ (generated/, data/): not a layer.
  if (target.startsWith('../')) return undefined;
  const from = layerOf(file);
  const to = layerOf(target);
  if (from === to) return undefined;
  const fromRank = RANK[from];
  const toRank = RANK[to];
  if (fromRank === undefined) return `runtime/${file}: folder '${from}' has no layer in this test`;
  if (toRank === undefined) return `runtime/${file} imports '${specifier}': folder '${to}' has no layer in this test`;
  if (toRank < fromRank) return undefined;
  const how = toRank === fromRank ? 'a sibling' : 'a higher layer';
  return `runtime/${file} imports '${specifier}': ${from} -> ${to} (${how})`;
}

describe('runtime layering', () => {
  it('every folder of runtime/ has a layer', () => {
    const folders = readdirSync(RUNTIME, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    expect(folders.filter((f) => RANK[f] === undefined)).toEqual([]);
  });

  it('no runtime file imports from a higher layer or a sibling', () => {
    const files = runtimeFiles();
    expect(files.length).toBeGreaterThan(100);
    const found: string[] = [];
    for (const path of files) {
      const file = relative(RUNTIME, path).split(sep).join('/');
      for (const specifier of importsOf(readFileSync(path, 'utf8'))) {
        const why = violation(file, specifier);
        if (why) found.push(why);
      }
    }
    expect(found).toEqual([]);
  });

  it('reads every form of import and names the file and the import that goes up', () => {
    const source = [
      "import type { A } from '../server/context.js';",
      'import {',
      '  b,',
      "} from '../api/negotiation.js';",
      "export { c } from './store.js';",
      "export * from '../machinery/object.js';",
      "import '../controllers/index.js';",
      "const d = await import('../storage/index.js');",
      "import { e } from 'hono';",
    ].join('\n');
    const specifiers = importsOf(source);
    expect(specifiers).toEqual([
      '../server/context.js',
      '../api/negotiation.js',
      './store.js',
      '../machinery/object.js',
      '../controllers/index.js',
      '../storage/index.js',
      'hono',
    ]);
    expect(specifiers.map((s) => violation('registry/store.ts', s)).filter(Boolean)).toEqual([
      "runtime/registry/store.ts imports '../server/context.js': registry -> server (a higher layer)",
      "runtime/registry/store.ts imports '../api/negotiation.js': registry -> api (a higher layer)",
      "runtime/registry/store.ts imports '../controllers/index.js': registry -> controllers (a higher layer)",
    ]);
    expect(violation('api/handlers/get.ts', '../../controllers/index.js')).toBe(
      "runtime/api/handlers/get.ts imports '../../controllers/index.js': api -> controllers (a sibling)",
    );
    expect(violation('machinery/object.ts', '../generated-files.js')).toBeUndefined();
    expect(violation('machinery/object.ts', '../index.js')).toBe("runtime/machinery/object.ts imports '../index.js': machinery -> entry (a higher layer)");
    expect(violation('create-api.ts', './server/app.js')).toBeUndefined();
    expect(violation('registry/openapi.ts', '../../generated/registry.js')).toBeUndefined();
  });
});
