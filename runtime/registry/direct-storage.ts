// The resource's storage directly over the backend, after k8s.io/apiserver's etcd3 store: every
// read goes to the backend. Lists honour limit and continue at one revision and page through the
// backend (kube-apiserver reads etcd in pages even without a limit); a version the backend has
// not reached is 504 Too large resource version; watches are one backend watch each.

import { StatusError, badRequest, notFound, resourceExpired, tooLargeResourceVersion, type GroupResource } from '../errors/status-error.js';
import { isStorageError, type KeyValue, type Storage, type StorageError, type Watcher } from '../storage/interface.js';
import { noteWritten, withoutTypeMeta } from './cacher/serialization-cache.js';
import type { Codec } from './codec.js';
import { decodeContinue, encodeContinue } from './continue-token.js';
import { MATCH_EXACT, parseResourceVersion } from './list-options.js';
import type { KubeObject } from '../machinery/object.js';
import { nameOfKey } from './keys.js';
import type { Predicate } from './selection.js';
import {
  type DeleteOutcome,
  type GetOptions,
  type ListPage,
  type ListRequest,
  type ResourceStorage,
  type TryUpdate,
  type ValidateDeletion,
  type WatchRequest,
} from './resource-storage.js';
import { ExpiredContinueError, LIST_TOO_OLD, interpretStorageError, type StorageOperation } from './storage-errors.js';
import { WatchStream, errorEvent, toWatchEvent } from './watch-stream.js';

/** Without a limit, kube-apiserver still reads the store in pages of this size. */
const PAGE = 500;

export class DirectStorage implements ResourceStorage {
  readonly groupResource: GroupResource;

  constructor(
    private readonly backend: Storage,
    readonly codec: Codec,
  ) {
    this.groupResource = { group: codec.definition.group, resource: codec.definition.plural };
  }

  /** The object's name in `key`, for messages. */
  nameOf(key: string): string {
    return nameOfKey(this.codec.definition, key);
  }

  /** Always the newest state; a version the backend has not reached is 504 (etcd3's validateMinimumResourceVersion). */
  get(key: string, options: GetOptions & { ignoreNotFound: true }): Promise<KubeObject | undefined>;
  get(key: string, options?: GetOptions): Promise<KubeObject>;
  async get(key: string, options: GetOptions = {}): Promise<KubeObject | undefined> {
    const requested = parseResourceVersion(options.resourceVersion);
    try {
      const kv = await this.backend.get(key);
      if (requested > 0) {
        const current = await this.backend.currentRevision();
        if (requested > current) throw tooLargeResourceVersion(requested, current);
      }
      if (!kv) {
        if (options.ignoreNotFound) return undefined;
        throw notFound(this.groupResource, this.nameOf(key));
      }
      return this.codec.decode(kv.value, kv.modRevision);
    } catch (e) {
      throw interpretStorageError(e, 'get', this.groupResource, this.nameOf(key));
    }
  }

  /** The backend's current revision when it knows it without a round trip (see Storage.localRevision). */
  localRevision(): number | undefined {
    return this.backend.localRevision?.();
  }

  /** The backend's current revision, or the operation's StatusError. */
  async currentRevision(op: StorageOperation): Promise<number> {
    try {
      return await this.backend.currentRevision();
    } catch (e) {
      throw interpretStorageError(e, op, this.groupResource);
    }
  }

  async getList(prefix: string, request: ListRequest): Promise<ListPage> {
    const { predicate, limit } = request;
    if (request.continue) {
      const token = decodeContinue(request.continue, prefix);
      if (request.resourceVersion && request.resourceVersion !== '0') {
        throw badRequest('specifying resource version is not allowed when using continue');
      }
      // A token of revision -1 (handed out with a 410) continues at the newest revision.
      const revision = token.revision > 0 ? token.revision : 0;
      return this.listAt(prefix, predicate, limit, revision, token.startKey);
    }
    const requested = parseResourceVersion(request.resourceVersion);
    const match = request.resourceVersionMatch;
    const exact = match === MATCH_EXACT || (!match && limit > 0 && requested > 0);
    if (requested > 0) await this.ensureReached(requested);
    return this.listAt(prefix, predicate, limit, exact ? requested : 0);
  }

  /** 504 Too large resource version when the backend has not reached `requested`. */
  private async ensureReached(requested: number): Promise<void> {
    const current = await this.currentRevision('list');
    if (requested <= current) return;
    throw tooLargeResourceVersion(requested, await this.currentRevision('list'));
  }

  /** A page read at `revision` (0: the newest), skipping what the predicate rejects. */
  private async listAt(prefix: string, predicate: Predicate, limit: number, revision: number, startKey?: string): Promise<ListPage> {
    const continuing = startKey !== undefined;
    const items: KubeObject[] = [];
    let lastKey = '';
    let at = revision;
    let from = startKey;
    try {
      for (;;) {
        const want = limit ? limit - items.length : PAGE;
        const page = await this.backend.list(prefix, { revision: at, limit: predicate.empty ? want : Math.max(want, PAGE), startKey: from });
        at = page.revision;
        for (let i = 0; i < page.items.length; i++) {
          const kv = page.items[i]!;
          lastKey = kv.key;
          const obj = this.codec.decode(kv.value, kv.modRevision);
          if (!predicate.matches(obj)) continue;
          items.push(obj);
          if (limit && items.length === limit) {
            const more = i < page.items.length - 1 || page.more;
            if (!more) return { items, revision: at };
            const remaining = predicate.empty ? page.remaining + (page.items.length - 1 - i) : undefined;
            return { items, revision: at, continue: encodeContinue(`${lastKey}\u0000`, prefix, at), remainingItemCount: remaining };
          }
        }
        if (!page.more) return { items, revision: at };
        from = `${lastKey}\u0000`;
      }
    } catch (e) {
      if (isStorageError(e, 'Compacted')) {
        if (continuing) throw new ExpiredContinueError(encodeContinue(startKey, prefix, -1));
        throw resourceExpired(LIST_TOO_OLD);
      }
      if (isStorageError(e, 'FutureRevision')) throw tooLargeResourceVersion(e.revision ?? revision, e.bound ?? 0);
      throw interpretStorageError(e, 'list', this.groupResource);
    }
  }

  /** A backend watch per request: the state first (unless a version or sendInitialEvents=false says otherwise), then changes. */
  async watch(prefix: string, request: WatchRequest): Promise<WatchStream> {
    const { predicate } = request;
    const requested = parseResourceVersion(request.resourceVersion);
    const stream = new WatchStream();
    let from = requested;
    try {
      if (requested === 0 && request.sendInitialEvents !== false) {
        const initial = await this.getList(prefix, { limit: 0, predicate });
        for (const item of initial.items) {
          stream.push({ type: 'ADDED', object: { apiVersion: this.codec.apiVersion, kind: this.codec.kind, ...withoutTypeMeta(item) } });
        }
        from = initial.revision;
      }
    } catch (e) {
      stream.stop();
      throw e;
    }
    let watcher: Watcher;
    try {
      watcher = this.backend.watch(prefix, { afterRevision: from, prefix: true }, {
        onEvent: (event) => {
          const out = toWatchEvent(this.codec, event, predicate);
          if (out) stream.push(out);
        },
        onError: (err) => {
          stream.push(errorEvent(this.watchError(err, from)));
          stream.stop();
        },
      });
    } catch (e) {
      stream.push(errorEvent(this.watchError(e, from)));
      stream.stop();
      return stream;
    }
    stream.onStop(() => watcher.stop());
    return stream;
  }

  private watchError(err: unknown, from: number): StatusError {
    return isStorageError(err, 'Compacted') ? compactedError(err, from) : interpretStorageError(err, 'watch', this.groupResource);
  }

  async create(key: string, obj: KubeObject): Promise<KubeObject> {
    try {
      const encoded = this.codec.encodeWrite(obj);
      noteWritten(this.codec, key, encoded.value, obj);
      const kv = await this.backend.create(key, encoded.value);
      return this.codec.answer(encoded, kv.modRevision);
    } catch (e) {
      throw interpretStorageError(e, 'create', this.groupResource, this.nameOf(key));
    }
  }

  async guaranteedUpdate(key: string, tryUpdate: TryUpdate, cachedExisting?: KubeObject): Promise<KubeObject> {
    let cached = cachedExisting;
    for (;;) {
      const [existing, revision] = cached ? [cached, revisionOf(cached)] : await this.read(key, 'get');
      cached = undefined;
      const decision = await tryUpdate(existing);
      if (!decision.write) return decision.object;
      try {
        const encoded = this.codec.encodeWrite(decision.object);
        noteWritten(this.codec, key, encoded.value, decision.object);
        const written = await this.backend.update(key, encoded.value, revision);
        // What was just written, without parsing the bytes made from it (as create answers).
        return this.codec.answer(encoded, written.modRevision);
      } catch (e) {
        if (isStorageError(e, 'Conflict')) continue;
        throw interpretStorageError(e, 'update', this.groupResource, this.nameOf(key));
      }
    }
  }

  async delete(key: string, validateDeletion: ValidateDeletion, cachedExisting?: KubeObject): Promise<DeleteOutcome> {
    let cached = cachedExisting;
    for (;;) {
      const [existing, revision] = cached ? [cached, revisionOf(cached)] : await this.read(key, 'delete');
      cached = undefined;
      const decision = validateDeletion(existing);
      if (decision.action === 'none') return { object: decision.object, deleted: decision.deleted, updated: false };
      try {
        if (decision.action === 'update') {
          const written = await this.backend.update(key, this.codec.encode(decision.object), revision);
          return { object: this.codec.decode(written.value, written.modRevision), deleted: false, updated: true };
        }
        const gone = await this.backend.delete(key, revision);
        return { object: this.codec.decode(gone.value, gone.modRevision), deleted: true, updated: false };
      } catch (e) {
        if (isStorageError(e, 'Conflict')) continue;
        throw interpretStorageError(e, 'delete', this.groupResource, this.nameOf(key));
      }
    }
  }

  /** The stored object and its revision; 404 when there is none, read failures worded for `op`. */
  private async read(key: string, op: StorageOperation): Promise<[KubeObject, number]> {
    let kv: KeyValue | undefined;
    try {
      kv = await this.backend.get(key);
    } catch (e) {
      throw interpretStorageError(e, op, this.groupResource, this.nameOf(key));
    }
    if (!kv) throw notFound(this.groupResource, this.nameOf(key));
    return [this.codec.decode(kv.value, kv.modRevision), kv.modRevision];
  }
}

function revisionOf(obj: KubeObject): number {
  return Number((obj.metadata as { resourceVersion?: string } | undefined)?.resourceVersion ?? 0);
}

export function compactedError(err: StorageError, requested: number): StatusError {
  const oldest = err.bound ?? requested + 1;
  return resourceExpired(`too old resource version: ${requested} (${oldest - 1})`);
}
