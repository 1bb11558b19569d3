// Shared helpers of the generator tests: run the generator over a directory of spec files.

import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'vitest';
import { generate } from '../../generator/main.js';
import { SpecErrors } from '../../generator/spec-error.js';

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

/** The smallest meta/v1 a test group version's kinds can refer to: ObjectMeta and ListMeta with one field each. */
export const MINIMAL_META = `protoPackage: k8s.io.apimachinery.pkg.apis.meta.v1
openAPIPrefix: io.k8s.apimachinery.pkg.apis.meta.v1
types:
  ObjectMeta:
    fields:
      name: {type: string, tag: 1}
  ListMeta:
    fields:
      resourceVersion: {type: string, tag: 2}
`;

/** Generates from `specs` (path under api-specs/ -> text) with MINIMAL_META as meta/v1.yaml. */
export function generateWithMeta(specs: Record<string, string>) {
  return generateIn(specTree({ 'meta/v1.yaml': MINIMAL_META, ...specs }));
}

/** The messages of the SpecErrors that generating `specs` (as generateWithMeta) must fail with. */
export async function specErrorsOf(specs: Record<string, string>): Promise<string[]> {
  const err = await generateWithMeta(specs).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SpecErrors);
  return (err as SpecErrors).errors.map((e) => e.message);
}
