// The storage of one served version of a CRD, as one generation of kube's crdHandler serving
// info holds it. When the CRD's spec or accepted names change, kube builds new serving info and
// tears the old one down: its cacher is destroyed, so every watch served from it ends (the
// stream just ends, no ERROR event) and the client relists under the new rules. kube waits a
// second first, so that requests already holding the old info (a watch on its way) are ended
// too, then for the other requests in flight on it. Here the watch cache is shared by the
// generations (it holds the same objects), so tearing down ends only the watches opened through
// this generation within that second; reads and writes in flight are not disturbed, as the
// objects they touch are the same, and need no waiting for. A holder of the old generation that
// watches again after that (an in-process informer) is not ended again, so it cannot spin.

import type { Codec } from '../codec.js';
import type { DeleteOutcome, GetOptions, ListPage, ListRequest, ResourceStorage, TryUpdate, ValidateDeletion, WatchRequest } from '../resource-storage.js';
import type { KubeObject } from '../../machinery/object.js';
import type { WatchStream } from '../watch-stream.js';

export class ServingStorage implements ResourceStorage {
  /** How long kube lets requests holding the old serving info register before it tears it down. */
  static readonly GRACE_MS = 1000;

  /** The watches to end at teardown; undefined once torn down (later ones are not tracked). */
  private watches: Set<WatchStream> | undefined = new Set();
  private tearingDown = false;

  constructor(private readonly inner: ResourceStorage) {}

  get codec(): Codec {
    return this.inner.codec;
  }

  /** Ends the watches opened through this storage before the grace period is over. */
  tearDown(): void {
    if (this.tearingDown) return;
    this.tearingDown = true;
    const timer = setTimeout(() => {
      const watches = this.watches;
      this.watches = undefined;
      for (const stream of watches ?? []) stream.stop();
    }, ServingStorage.GRACE_MS);
    timer.unref?.();
  }

  async watch(prefix: string, request: WatchRequest): Promise<WatchStream> {
    const stream = await this.inner.watch(prefix, request);
    const watches = this.watches;
    if (watches) {
      watches.add(stream);
      stream.onStop(() => watches.delete(stream));
    }
    return stream;
  }

  get(key: string, options: GetOptions & { ignoreNotFound: true }): Promise<KubeObject | undefined>;
  get(key: string, options?: GetOptions): Promise<KubeObject>;
  get(key: string, options?: GetOptions): Promise<KubeObject | undefined> {
    return this.inner.get(key, options);
  }

  getList(prefix: string, request: ListRequest): Promise<ListPage> {
    return this.inner.getList(prefix, request);
  }

  create(key: string, obj: KubeObject): Promise<KubeObject> {
    return this.inner.create(key, obj);
  }

  guaranteedUpdate(key: string, tryUpdate: TryUpdate, cachedExisting?: KubeObject): Promise<KubeObject> {
    return this.inner.guaranteedUpdate(key, tryUpdate, cachedExisting);
  }

  delete(key: string, validateDeletion: ValidateDeletion, cachedExisting?: KubeObject): Promise<DeleteOutcome> {
    return this.inner.delete(key, validateDeletion, cachedExisting);
  }
}
