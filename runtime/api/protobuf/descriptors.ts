// Loads the generator's protobufjs JSON descriptors (generated/protobuf/descriptors.json) into
// a Root, once per file.

import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';

const roots = new Map<string, protobuf.Root>();

export function loadDescriptorRoot(path: string): protobuf.Root {
  let root = roots.get(path);
  if (!root) {
    root = protobuf.Root.fromJSON(JSON.parse(readFileSync(path, 'utf8')) as protobuf.INamespace);
    root.resolveAll();
    roots.set(path, root);
  }
  return root;
}
