// Storage keys follow kube-apiserver's etcd layout so that tools which read the store (and the
// etcd backend) see familiar paths: /registry/<prefix>/<namespace>/<name> or /registry/<prefix>/<name>.

import type { ResourceDefinition } from './definition.js';

export const REGISTRY_ROOT = '/registry';

/** The prefix holding every object of the kind, or of one namespace when given. Ends with '/'. */
export function collectionPrefix(def: ResourceDefinition, namespace?: string): string {
  const base = `${REGISTRY_ROOT}/${def.storagePrefix}/`;
  return def.namespaced && namespace ? `${base}${namespace}/` : base;
}

export function objectKey(def: ResourceDefinition, namespace: string | undefined, name: string): string {
  return def.namespaced ? `${collectionPrefix(def, namespace)}${name}` : `${collectionPrefix(def)}${name}`;
}

/** The name in an object's key (for messages): what follows the kind's prefix and, if namespaced, the namespace. */
export function nameOfKey(def: ResourceDefinition, key: string): string {
  const rest = key.slice(collectionPrefix(def).length);
  return def.namespaced ? rest.slice(rest.indexOf('/') + 1) : rest;
}
