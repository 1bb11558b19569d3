// Shared helpers of the generator tests: run the generator over a directory of spec files.

import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { generate } from '../../generator/main.js';

export const FIXTURES = join(import.meta.dirname, 'fixtures');

/** Writes `files` (path -> text) under a fresh temporary `api-specs/` and returns its cwd. */
export function specTree(files: Record<string, string>): string {
  const cwd = mkdtempSync(join(tmpdir(), 'specs-'));
  for (const [path, text] of Object.entries(files)) {
    const full = join(cwd, 'api-specs', path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text);
  }
  return cwd;
}

/** Generates from the fixture specs, with paths shown relative to the fixtures folder. */
export function generateFixture() {
  return generate(join(FIXTURES, 'specs'), FIXTURES);
}

export function generateIn(cwd: string) {
  return generate(join(cwd, 'api-specs'), cwd);
}
