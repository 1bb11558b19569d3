// List and delete-collection over the generic store: consistent reads at one revision, label and
// field selection, and paging with kube-apiserver's `continue` tokens. resourceVersion semantics
// follow the spec's table: unset or "0" read the newest state; another version with a limit is
// an Exact read at that revision, without a limit a not-older-than read.

import { StatusError, badRequest, tooLargeResourceVersion } from '../errors/status-error.js';
import { isStorageError } from '../storage/interface.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import type { DeleteOptions } from './delete-options.js';
import { invalidOptions } from './delete-options.js';
import { collectionPrefix } from './keys.js';
import { metaOf, type KubeList, type KubeObject } from './object.js';
import { compilePredicate, type SelectionOptions } from './selection.js';
import { CONTINUE_TOO_OLD, interpretStorageError } from './storage-errors.js';
import type { Store } from './store.js';

export interface ListOptions extends SelectionOptions {
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

/** Parses a resourceVersion parameter; "" and "0" mean "any/newest" (0). */
export function parseResourceVersion(rv: string | undefined): number {
  if (rv === undefined || rv === '' || rv === '0') return 0;
  if (!/^\d+$/.test(rv)) {
    throw badRequest(`invalid resource version: metadata.resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: invalid syntax`);
  }
  return Number(rv);
}

function validateListOptions(options: ListOptions): void {
  const match = options.resourceVersionMatch;
  if (!match) return;
  const causes = [];
  const forbidden = (why: string) => ({ reason: 'FieldValueForbidden', message: `Forbidden: ${why}`, field: 'resourceVersionMatch' });
  if (!options.resourceVersion) causes.push(forbidden('resourceVersionMatch is forbidden unless resourceVersion is provided'));
  if (options.continue) causes.push(forbidden('resourceVersionMatch is forbidden when continue is provided'));
  if (match !== 'Exact' && match !== 'NotOlderThan') {
    causes.push({ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(match)}: supported values: "Exact", "NotOlderThan", ""`, field: 'resourceVersionMatch' });
  }
  if (match === 'Exact' && options.resourceVersion === '0') causes.push(forbidden('resourceVersionMatch "exact" is forbidden for resourceVersion "0"'));
  if (causes.length) throw invalidOptions('ListOptions', causes);
}

/** Without a limit, kube-apiserver still reads the store in pages of this size. */
const PAGE = 500;

export async function listObjects(store: Store, namespace: string | undefined, options: ListOptions = {}): Promise<KubeList> {
  validateListOptions(options);
  const predicate = compilePredicate(store.strategies.main, options);
  const prefix = collectionPrefix(store.definition, store.definition.namespaced ? namespace : undefined);
  const limit = options.limit && options.limit > 0 ? options.limit : 0;
  let revision = 0;
  let startKey: string | undefined;
  const continuing = Boolean(options.continue);
  if (options.continue) {
    const token = decodeContinue(options.continue, prefix);
    if (options.resourceVersion && options.resourceVersion !== '0') {
      throw badRequest('specifying resource version is not allowed when using continue');
    }
    revision = token.revision;
    startKey = token.startKey;
  } else {
    const requested = parseResourceVersion(options.resourceVersion);
    if (requested > 0) {
      const current = await store.storage.currentRevision();
      if (requested > current) throw tooLargeResourceVersion(requested, current);
      const exact = options.resourceVersionMatch === 'Exact' || (limit > 0 && options.resourceVersionMatch !== 'NotOlderThan');
      if (exact) revision = requested;
    }
  }

  const items: KubeObject[] = [];
  let more = false;
  let lastKey = '';
  let remaining: number | undefined;
  try {
    for (;;) {
      const want = limit ? limit - items.length : PAGE;
      const page = await store.storage.list(prefix, { revision, limit: predicate.empty ? want : Math.max(want, PAGE), startKey });
      revision = page.revision;
      let stoppedEarly = false;
      for (let i = 0; i < page.items.length; i++) {
        const kv = page.items[i];
        lastKey = kv.key;
        const obj = store.decode(kv.value, kv.modRevision);
        if (!predicate.matches(obj)) continue;
        items.push(obj);
        if (limit && items.length === limit) {
          stoppedEarly = i < page.items.length - 1;
          break;
        }
      }
      if (limit && items.length === limit) {
        more = stoppedEarly || page.more;
        if (more && predicate.empty) remaining = page.remaining;
        break;
      }
      if (!page.more) break;
      startKey = `${lastKey}\u0000`;
    }
  } catch (e) {
    if (continuing && isStorageError(e, 'Compacted')) throw new StatusError(410, 'Expired', CONTINUE_TOO_OLD);
    throw interpretStorageError(e, 'list', store.groupResource);
  }

  const metadata: KubeList['metadata'] = { resourceVersion: String(revision) };
  if (more) metadata.continue = encodeContinue(`${lastKey}\u0000`, prefix, revision);
  if (more && remaining !== undefined) metadata.remainingItemCount = remaining;
  return {
    kind: store.definition.listKind,
    apiVersion: store.apiVersion,
    metadata,
    // Items of a typed list carry no apiVersion/kind of their own, as kube-apiserver encodes them.
    items: items.map(({ apiVersion: _a, kind: _k, ...rest }) => rest),
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
