// The generated TypeScript must compile under the repo's tsconfig: both the committed generated/
// tree and what the emitters make of the fixture specs (which exercise keys, such as featureGate
// and field defaults, that the served specs may not). Checked with ts-morph over the real runtime
// sources, so a change to a runtime contract that generated code no longer fits fails here.

import { join, relative } from 'node:path';
import { Project, type Diagnostic, type SourceFile } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { generateFixture } from './harness.js';

const ROOT = join(import.meta.dirname, '..', '..');

function newProject(): Project {
  // Only the files under test (and what they import), not every file tsconfig.json includes.
  return new Project({ tsConfigFilePath: join(ROOT, 'tsconfig.json'), skipAddingFilesFromTsConfig: true });
}

/** Each diagnostic as `file:line: message`, so a failure names what to fix. */
function describeAll(files: SourceFile[]): string[] {
  return files.flatMap((file) =>
    file.getPreEmitDiagnostics().map((d: Diagnostic) => {
      const message = d.getMessageText();
      const text = typeof message === 'string' ? message : message.getMessageText();
      return `${relative(ROOT, file.getFilePath())}:${d.getLineNumber() ?? 0}: ${text}`;
    }),
  );
}

describe('generated TypeScript type-checks', () => {
  it('generated/**/*.ts has no diagnostics', () => {
    const project = newProject();
    const files = project.addSourceFilesAtPaths(join(ROOT, 'generated/**/*.ts'));
    const names = files.map((f) => relative(ROOT, f.getFilePath()));
    expect(names).toContain('generated/registry.ts');
    expect(names.some((n) => /^generated\/validators\/[^/]+\.ts$/.test(n) && !n.endsWith('.d.ts'))).toBe(true);
    expect(describeAll(files)).toEqual([]);
  }, 120_000);

  it('the fixture output has no diagnostics', async () => {
    const { files } = await generateFixture();
    const project = newProject();
    // Placed, in memory only, one level below the repo root like generated/, so its relative
    // imports of ../runtime resolve to the real runtime sources; nothing is written to disk.
    const dir = join(ROOT, '.typecheck-fixture-output');
    const sources = files
      .filter((f) => f.path.endsWith('.ts'))
      .map((f) => project.createSourceFile(join(dir, f.path), f.content, { overwrite: true }));
    expect(sources.map((s) => relative(dir, s.getFilePath()))).toEqual(
      expect.arrayContaining(['registry.ts', 'validators/demo.example.com.v1.ts', 'validators/demo.example.com.v1.schemas.d.ts']),
    );
    expect(describeAll(sources)).toEqual([]);
  }, 120_000);
});
