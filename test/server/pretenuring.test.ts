// stopPretenuring (runtime/server/pretenuring.ts), and startServer, which calls it first: V8's
// allocation-site pretenuring is off for the rest of the process unless node's command line names
// it. Seen through V8's own trace of its pretenuring decisions, in a node of its own that keeps
// 300,000 objects made by one object literal, each surviving the young collections (so V8, when it
// decides at all, decides to pretenure that literal). A full collection asked for before the
// switch (its own line in V8's trace, reason "testing") takes whatever decisions the loading
// before it called for, so the decisions traced after that line are about the loop alone.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

const SCRIPT = `
const { stopPretenuring } = await import(${JSON.stringify(join(root, 'runtime/server/pretenuring.ts'))});
const starting = process.argv.includes('start');
const library = starting ? await import(${JSON.stringify(join(root, 'runtime/index.ts'))}) : undefined;
globalThis.gc();
if (process.argv.includes('stop')) stopPretenuring();
const server = starting ? await library.startServer({ storage: 'memory' }) : undefined;
const kept = [];
for (let i = 0; i < 300000; i++) kept.push({ n: i, s: 'x' });
await server?.close();
process.stdout.write('kept ' + kept.length + '\\n');
`;

/** V8's pretenuring decisions after the collection asked for before the switch. */
function decisions(nodeFlags: string[], mode: 'stop' | 'leave' | 'start'): number {
  const flags = ['--expose-gc', '--trace-gc', '--trace-pretenuring-statistics', ...nodeFlags];
  const run = spawnSync(process.execPath, [...flags, '--import', 'tsx', '--input-type=module', '-e', SCRIPT, mode], { cwd: root, encoding: 'utf8' });
  expect(run.status).toBe(0);
  expect(run.stdout).toContain('kept 300000');
  const lines = run.stdout.split('\n');
  const asked = lines.findIndex((line) => / ms: Mark-Compact .*testing/.test(line));
  expect(asked).toBeGreaterThanOrEqual(0);
  return lines.slice(asked + 1).filter((line) => line.includes('pretenuring: AllocationSite')).length;
}

describe('V8 allocation-site pretenuring', () => {
  it('decides about a literal whose objects all survive when left on (the trace shows it)', () => {
    expect(decisions([], 'leave')).toBeGreaterThan(0);
  }, 60_000);

  it('takes no decision once stopPretenuring has run', () => {
    expect(decisions([], 'stop')).toBe(0);
  }, 60_000);

  it('is left on when node\'s command line names it', () => {
    expect(decisions(['--allocation-site-pretenuring'], 'stop')).toBeGreaterThan(0);
  }, 60_000);

  it('is off once startServer has begun, as a library user\'s process runs it, and left on when the command line names it', () => {
    expect(decisions([], 'start')).toBe(0);
    expect(decisions(['--allocation-site-pretenuring'], 'start')).toBeGreaterThan(0);
  }, 60_000);
});
