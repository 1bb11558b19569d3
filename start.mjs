// `npm start`: runs the server bundle (dist/main.mjs), building it first only when a file it was
// built from changed since. The check is a stat of each recorded file, a few milliseconds, where
// the build costs a second; the server then runs in this same process, so there is one Node start.

import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(fileURLToPath(import.meta.url));
/** Written by esbuild.config.mjs after each build: every file read or written, with size and mtime. */
const BUILD_RECORD = join(root, 'dist/build-record.json');

function upToDate() {
  let record;
  try {
    record = JSON.parse(readFileSync(BUILD_RECORD, 'utf8'));
  } catch {
    return false;
  }
  // Some 750 files: path.join's normalizing would cost more than the stats themselves.
  const prefix = `${root}/`;
  for (const [file, seen] of Object.entries(record)) {
    const s = statSync(prefix + file, { throwIfNoEntry: false });
    if (seen === null ? s !== undefined : !s || s.size !== seen[0] || s.mtimeMs !== seen[1]) return false;
  }
  return true;
}

// The build runs in a child process so that esbuild stays out of the server's memory.
if (!upToDate()) execFileSync(process.execPath, [join(root, 'esbuild.config.mjs')], { stdio: 'inherit' });
await import(pathToFileURL(join(root, 'dist/main.mjs')).href);
