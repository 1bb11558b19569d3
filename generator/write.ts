// The only module that touches the disk: collects every emitter's files, refuses two emitters
// writing one path, writes changed files and removes stale generated ones.

import { mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import type { OutputFile } from './output.js';

export function collect(outputs: { emitter: string; files: OutputFile[] }[]): OutputFile[] {
  const owner = new Map<string, string>();
  const all: OutputFile[] = [];
  for (const { emitter, files } of outputs) {
    for (const f of files) {
      const prior = owner.get(f.path);
      if (prior) throw new Error(`emitters ${prior} and ${emitter} both write ${f.path}`);
      owner.set(f.path, emitter);
      all.push(f);
    }
  }
  return all.sort((a, b) => a.path.localeCompare(b.path));
}

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    return statSync(full).isDirectory() ? listFiles(full) : [full];
  });
}

/** Writes `files` under `outDir`; files there that no emitter produced are removed. Returns the paths written. */
export function writeOutput(outDir: string, files: OutputFile[]): string[] {
  const wanted = new Set(files.map((f) => join(outDir, f.path)));
  for (const stale of listFiles(outDir)) if (!wanted.has(stale)) rmSync(stale);
  const written: string[] = [];
  for (const f of files) {
    const full = join(outDir, f.path);
    if (existsSync(full) && readFileSync(full, 'utf8') === f.content) continue;
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, f.content);
    written.push(relative(outDir, full));
  }
  return written;
}
