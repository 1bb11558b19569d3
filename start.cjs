// `npm start`: runs the server bundle (dist/main.cjs), building it first only when a file it was
// built from changed since. The check is a stat of each recorded file, a few milliseconds, where
// the build costs a second; the server then runs in this same process, so there is one Node start.
// CommonJS, as is the launcher: an ES module as the entry point makes Node set up its ES module
// loader as well, about 12 ms of CPU at every start.
'use strict';

// First the built-in modules the server loads, while node's code cache of them is still accepted
// (launch.cjs says why).
try {
  for (const name of JSON.parse(require('node:fs').readFileSync(`${__dirname}/dist/builtins.json`, 'utf8'))) require(`node:${name}`);
} catch {
  // no build yet: they load later, compiled from source
}

// V8's compilers to machine code wait until the server's start has settled (launch.cjs says why,
// and turns them back on then), from here: the build check's stats below were the start's first
// code hot enough for V8 to optimize (node's own Stats dates, 3,000 calls).
const COMPILERS_CHOSEN = /(^|\s)--(no-)?(opt|turbofan|sparkplug|jitless|max-opt)\b/;
if (!COMPILERS_CHOSEN.test(`${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`)) require('node:v8').setFlagsFromString('--no-turbofan --no-sparkplug');

const { readFileSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = __dirname;
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
if (!upToDate()) require('node:child_process').execFileSync(process.execPath, [join(root, 'esbuild.config.mjs')], { stdio: 'inherit' });
require(join(root, 'dist/main.cjs'));
