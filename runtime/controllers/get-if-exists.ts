// A read where a missing object is an answer, not a failure (a lister's NotFound, in client-go's terms).

import { isStatusError } from '../errors/status-error.js';
import type { KubeObject } from '../machinery/object.js';
import type { Store } from '../registry/store.js';

export async function getIfExists(store: Store, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
  try {
    return await store.get(namespace, name);
  } catch (err) {
    if (isStatusError(err) && err.code === 404) return undefined;
    throw err;
  }
}

/** A create that someone else already made is done, not failed. */
export async function createIfMissing(store: Store, namespace: string | undefined, obj: KubeObject): Promise<void> {
  try {
    await store.create(namespace, obj);
  } catch (err) {
    if (isStatusError(err) && err.reason === 'AlreadyExists') return;
    throw err;
  }
}
