// Which protobuf message carries a kind. The runtime normally takes this from the registry
// (ResourceDefinition.protobufType); this resolver derives it from Kubernetes' package layout
// for everything else (meta/v1 kinds, decoding request bodies before routing, tests).

import protobuf from 'protobufjs';
import { LazyRoot, type RootSource } from './descriptors.js';
import type { MessageNameFor } from './envelope.js';

const META_PACKAGE = 'k8s.io.apimachinery.pkg.apis.meta.v1';

/** `v1` -> core, `rbac.authorization.k8s.io/v1` -> rbac, `meta.k8s.io/v1` -> apimachinery meta, `apiextensions.k8s.io/v1` -> apiextensions-apiserver. */
export function packageFor(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  if (slash < 0) return `k8s.io.api.core.${apiVersion}`;
  const group = apiVersion.slice(0, slash);
  const version = apiVersion.slice(slash + 1);
  if (group === 'meta.k8s.io') return `k8s.io.apimachinery.pkg.apis.meta.${version}`;
  // CustomResourceDefinition's types live in apiextensions-apiserver's own Go module.
  if (group === 'apiextensions.k8s.io') return `k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.${version}`;
  return `k8s.io.api.${group.split('.')[0]}.${version}`;
}

/** A MessageNameFor over a descriptor root; kinds the root lacks resolve to undefined. */
export function messageNameResolver(root: RootSource): MessageNameFor {
  const isType = root instanceof LazyRoot ? (name: string) => root.hasType(name) : (name: string) => root.lookup(name) instanceof protobuf.Type;
  const known = new Map<string, string | undefined>();
  return (apiVersion, kind) => {
    if (!kind) return undefined;
    const key = `${apiVersion}/${kind}`;
    if (known.has(key)) return known.get(key);
    // Status and WatchEvent are meta/v1 types served under every group version.
    const candidates = [`${packageFor(apiVersion)}.${kind}`, `${META_PACKAGE}.${kind}`];
    const found = candidates.find(isType);
    known.set(key, found);
    return found;
  };
}
