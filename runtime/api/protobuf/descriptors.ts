// Loads the generator's protobufjs JSON descriptors (generated/protobuf/descriptors.json) into
// a Root, once per file. The server takes them as a LazyRoot: which message types exist is known
// from the start (negotiation asks it of every request), but the Root, some 40 ms and several MB
// to build, is built by the first request that speaks protobuf.

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

/** The fully qualified names of the message types in a descriptor namespace, nested ones included. */
function collectTypeNames(ns: protobuf.INamespace, prefix: string, into: Set<string>): Set<string> {
  for (const [name, nested] of Object.entries(ns.nested ?? {})) {
    const full = prefix ? `${prefix}.${name}` : name;
    if ('fields' in nested) into.add(full);
    collectTypeNames(nested as protobuf.INamespace, full, into);
  }
  return into;
}

/** A descriptor file whose Root is built on first use; its type names are read when first asked for. */
export class LazyRoot {
  private typeNames?: Set<string>;

  constructor(private readonly path: string) {}

  /** Whether `name` (fully qualified, no leading dot) is a message type of the file. */
  hasType(name: string): boolean {
    this.typeNames ??= collectTypeNames(JSON.parse(readFileSync(this.path, 'utf8')) as protobuf.INamespace, '', new Set());
    return this.typeNames.has(name);
  }

  get root(): protobuf.Root {
    return loadDescriptorRoot(this.path);
  }
}

/** A Root, or one to be built on first use. */
export type RootSource = protobuf.Root | LazyRoot;

export const rootOf = (source: RootSource): protobuf.Root => (source instanceof LazyRoot ? source.root : source);
