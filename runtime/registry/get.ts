// GET of one object with kube-apiserver's resourceVersion semantics (upstream cacher.Get):
// unset reads the store (Most Recent); "0" takes whatever the watch cache holds (Any); another
// version waits, briefly, for the cache to reach it (Not older than) and is a 504 Too large
// resource version when it does not.

import { notFound, tooLargeResourceVersion } from '../errors/status-error.js';
import { parseResourceVersion } from './list-options.js';
import type { KubeObject } from './object.js';
import { interpretStorageError } from './storage-errors.js';
import type { Store } from './store.js';

export interface GetOptions {
  resourceVersion?: string;
}

export async function getObject(store: Store, namespace: string | undefined, name: string, options: GetOptions = {}): Promise<KubeObject> {
  const requested = parseResourceVersion(options.resourceVersion);
  const cacher = store.cacher;
  const cache = store.watchCache;
  if (!options.resourceVersion || !cacher || !cache) return store.get(namespace, name);
  if (requested === 0) {
    if (!cacher.ready) return store.get(namespace, name);
  } else if (!(await cacher.waitUntilFresh(requested))) {
    let current = cacher.progress;
    if (!cacher.ready) {
      try {
        current = await store.storage.currentRevision();
      } catch (e) {
        throw interpretStorageError(e, 'get', store.groupResource, name);
      }
    }
    throw tooLargeResourceVersion(requested, current);
  }
  const kv = cache.get(store.key(namespace, name));
  if (!kv) throw notFound(store.groupResource, name);
  return store.decode(kv.value, kv.modRevision);
}
