// GET of one object with kube-apiserver's resourceVersion semantics: unset is Most Recent, "0"
// Any, another version Not older than; the resource's storage decides how to answer each (see
// cacher/cacher-storage.ts).

import type { KubeObject } from '../machinery/object.js';
import type { Store } from './store.js';

export interface GetOptions {
  resourceVersion?: string;
  /** The object is only read and encoded: it may be the cache's shared, frozen one. */
  shared?: boolean;
}

/**
 * The object, at once (no promise) when the watch cache holds what the resourceVersion asks for.
 * Failures, a 404 found in the cache included, are always a rejected promise.
 */
export function getObject(store: Store, namespace: string | undefined, name: string, options: GetOptions = {}): KubeObject | Promise<KubeObject> {
  const key = store.key(namespace, name);
  const storage = store.storage;
  const readOptions = { resourceVersion: options.resourceVersion, shared: options.shared };
  try {
    const cached = storage.getCached?.(key, readOptions);
    if (cached) return cached;
  } catch (err) {
    return Promise.reject(err);
  }
  return storage.get(key, readOptions);
}
