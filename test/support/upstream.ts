// Where the upstream test data lives: ../shared/upstream beside the project, never copied in.
// Without it, tests that need it skip with a message; under CI=true its absence is a failure.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const UPSTREAM_DIR = fileURLToPath(new URL('../../../shared/upstream', import.meta.url));

/** True when the upstream data can be read; throws under CI=true when it cannot. */
export function upstreamAvailable(): boolean {
  const ok = existsSync(join(UPSTREAM_DIR, 'proto-fields.json'));
  if (!ok && process.env.CI === 'true') throw new Error(`upstream test data missing at ${UPSTREAM_DIR}`);
  if (!ok) console.warn(`skipping: upstream test data not found at ${UPSTREAM_DIR}`);
  return ok;
}
