// List and delete-collection over the generic store. The resourceVersion semantics (the spec's
// tables; upstream's cacher delegator and etcd3 GetList) are the resource storage's: see
// cacher/cacher-storage.ts and direct-storage.ts. A limit is honoured everywhere and its continue
// token fixes the revision for the following pages.

import { StatusError } from '../errors/status-error.js';
import { withoutTypeMeta } from './cacher/serialization-cache.js';
import type { DeleteOptions } from './delete-options.js';
import { collectionPrefix } from './keys.js';
import { validateListOptions, type ListOptions } from './list-options.js';
import { metaOf, type KubeList } from '../machinery/object.js';
import { compilePredicate } from './selection.js';
import type { ListPage } from './resource-storage.js';
import type { Store } from './store.js';

export { parseResourceVersion, type ListOptions } from './list-options.js';

export async function listObjects(store: Store, namespace: string | undefined, options: ListOptions = {}): Promise<KubeList> {
  validateListOptions(options);
  const predicate = compilePredicate(store.strategies.main, options);
  const prefix = collectionPrefix(store.definition, store.definition.namespaced ? namespace : undefined);
  const limit = options.limit && options.limit > 0 ? options.limit : 0;
  const page = await store.storage.getList(prefix, {
    resourceVersion: options.resourceVersion,
    resourceVersionMatch: options.resourceVersionMatch,
    limit,
    continue: options.continue,
    predicate,
    transient: options.transient,
  });
  if (store.definition.unstructured) return unstructuredList(store, page);
  const metadata: KubeList['metadata'] = { resourceVersion: String(page.revision) };
  if (page.continue !== undefined) metadata.continue = page.continue;
  if (page.continue !== undefined && page.remainingItemCount !== undefined) metadata.remainingItemCount = page.remainingItemCount;
  return {
    kind: store.definition.listKind,
    apiVersion: store.apiVersion,
    metadata,
    // Items of a typed list carry no apiVersion/kind of their own, as kube-apiserver encodes them.
    items: page.items.map(withoutTypeMeta),
  };
}

/**
 * A list of custom resources as kube-apiserver writes an UnstructuredList: a Go map, so its keys
 * are sorted (apiVersion, items, kind, metadata) as are its metadata's, where the storage always
 * sets `continue`, empty on the last page; the items carry their apiVersion and kind, and keep
 * the sorted order their codec gave them.
 */
function unstructuredList(store: Store, page: ListPage): KubeList {
  const { kind } = store.definition;
  const remaining = page.continue !== undefined && page.remainingItemCount !== undefined ? { remainingItemCount: page.remainingItemCount } : {};
  const metadata: KubeList['metadata'] = { continue: page.continue ?? '', ...remaining, resourceVersion: String(page.revision) };
  return {
    apiVersion: store.apiVersion,
    items: page.items.map((item) => (item.apiVersion === store.apiVersion && item.kind === kind ? item : { apiVersion: store.apiVersion, kind, ...withoutTypeMeta(item) })),
    kind: store.definition.listKind,
    metadata,
  };
}

/**
 * Deletes every object the selectors match and returns them as a <Kind>List, as
 * kube-apiserver's DeleteCollection does. Objects gone meanwhile are skipped.
 */
export async function deleteCollection(
  store: Store,
  namespace: string | undefined,
  listOptions: ListOptions,
  deleteOptions: DeleteOptions = {},
): Promise<KubeList> {
  const { limit: _limit, continue: _continue, ...unpaged } = listOptions;
  const list = await listObjects(store, namespace, unpaged);
  for (const item of list.items) {
    const meta = metaOf(item);
    try {
      await store.delete(store.definition.namespaced ? meta.namespace : undefined, meta.name ?? '', deleteOptions);
    } catch (e) {
      if (!(e instanceof StatusError && e.code === 404)) throw e;
    }
  }
  return list;
}
