// Finds the kubectl binaries the end-to-end tests drive. kubectl on PATH may be a wrapper; the
// versioned binaries (kubectl.1.27 ... kubectl.1.33) sit beside the real one. Without kubectl the
// tests skip with a message, unless REQUIRE_KUBECTL=1 (CI), where a missing kubectl is a failure.
import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const REQUIRED_KUBECTL_VERSIONS = ['1.27', '1.33'] as const;

function kubectlDir(): string | undefined {
  try {
    const onPath = execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim();
    return onPath ? dirname(realpathSync(onPath)) : undefined;
  } catch {
    return undefined;
  }
}

/** The path of kubectl.<version>, or undefined when absent. */
export function findKubectl(version: string): string | undefined {
  const dir = kubectlDir();
  if (!dir) return undefined;
  const path = join(dir, `kubectl.${version}`);
  return existsSync(path) ? path : undefined;
}

/** Resolves each required version; throws under REQUIRE_KUBECTL=1 when one is missing. */
export function kubectlVersions(): Array<{ version: string; path: string | undefined }> {
  const found = REQUIRED_KUBECTL_VERSIONS.map((version) => ({ version, path: findKubectl(version) }));
  const missing = found.filter((f) => !f.path).map((f) => f.version);
  if (missing.length > 0) {
    if (process.env.REQUIRE_KUBECTL === '1') {
      throw new Error(`REQUIRE_KUBECTL=1 but kubectl ${missing.join(', ')} not found beside kubectl on PATH`);
    }
    console.warn(`skipping kubectl ${missing.join(', ')} end-to-end tests: not found beside kubectl on PATH`);
  }
  return found;
}
