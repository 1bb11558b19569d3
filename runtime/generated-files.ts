// Where the runtime finds its data files: the generated ones (discovery, OpenAPI, protobuf
// descriptors) and the hand-kept ones in data/ (the RBAC bootstrap policy).
// One place, one level below the project root, so the bundled server (dist/main.cjs, also one
// level down) finds them the same way as the sources do.
import { fileURLToPath } from 'node:url';

export function generatedPath(relative: string): string {
  return fileURLToPath(new URL(`../generated/${relative}`, import.meta.url));
}

/** Data files the runtime reads (the RBAC bootstrap policy), in the project's data/ folder. */
export function dataPath(relative: string): string {
  return fileURLToPath(new URL(`../data/${relative}`, import.meta.url));
}
