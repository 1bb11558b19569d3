// `npm run generate`: api-specs/ -> load and check -> normalized model -> emitters -> generated/.
// A bad spec stops here with `file:line: path: problem` lines and exit code 1.

import { resolve } from 'node:path';
import { loadSpecs } from './load.js';
import { buildModel } from './normalize.js';
import { SpecErrors } from './spec-error.js';
import { collect, writeOutput } from './write.js';
import { EMITTERS } from './emitters.js';
import type { Model } from './model.js';
import type { OutputFile } from './output.js';

/** Runs every emitter over the specs in `specDir`; returns the files, without writing them. */
export async function generate(specDir: string, cwd = process.cwd()): Promise<{ model: Model; files: OutputFile[] }> {
  const model = buildModel(loadSpecs(specDir, cwd));
  const outputs = [];
  for (const [emitter, emit] of Object.entries(EMITTERS)) outputs.push({ emitter, files: await emit(model) });
  return { model, files: collect(outputs) };
}

async function main(): Promise<void> {
  const root = process.cwd();
  try {
    const { files } = await generate(resolve(root, 'api-specs'), root);
    const written = writeOutput(resolve(root, 'generated'), files);
    console.log(`generated/: ${files.length} files, ${written.length} changed`);
  } catch (e) {
    if (e instanceof SpecErrors) {
      console.error(e.message);
      process.exit(1);
    }
    throw e;
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.dirname, 'main.ts')) await main();
