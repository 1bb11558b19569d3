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

export function getObject(store: Store, namespace: string | undefined, name: string, options: GetOptions = {}): Promise<KubeObject> {
  return store.storage.get(store.key(namespace, name), { resourceVersion: options.resourceVersion, shared: options.shared });
}
