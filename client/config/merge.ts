// Several kubeconfig files as kubectl merges the KUBECONFIG list (clientcmd's loader.go): the
// first file to set a cluster, user or context name wins, and that entry is taken whole, never
// mixed field by field with a later file's entry of the same name; current-context comes from the
// first file that sets it.

import type { Kubeconfig } from './kubeconfig-file.js';

export function mergeKubeconfigs(configs: Kubeconfig[]): Kubeconfig {
  const merged: Kubeconfig = { clusters: new Map(), users: new Map(), contexts: new Map() };
  for (const config of configs) {
    addMissing(merged.clusters, config.clusters);
    addMissing(merged.users, config.users);
    addMissing(merged.contexts, config.contexts);
    merged.currentContext ??= config.currentContext;
  }
  return merged;
}

function addMissing<T>(into: Map<string, T>, from: Map<string, T>): void {
  for (const [name, value] of from) if (!into.has(name)) into.set(name, value);
}
