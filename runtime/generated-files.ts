// Where the runtime finds the generated data files (discovery, OpenAPI, protobuf descriptors).
// One place, one level below the project root, so the bundled server (dist/main.mjs, also one
// level down) finds them the same way as the sources do.
import { fileURLToPath } from 'node:url';

export function generatedPath(relative: string): string {
  return fileURLToPath(new URL(`../generated/${relative}`, import.meta.url));
}
