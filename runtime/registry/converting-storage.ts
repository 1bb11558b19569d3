// The storage of a version whose objects are converted by a call out (a CRD's conversion
// webhook): where kube-apiserver's storage codec converts between the storage version and the
// served one, this wrapper does, around the resource's storage. The inner storage decodes
// objects with the served apiVersion but the storage version's content (stored-form.ts relabels
// only); every object read is converted from the storage version (one call for a list page),
// and every object written is converted to it first. Selection (label and field selectors) runs
// on the stored form inside the inner storage. A failed conversion fails the request with its
// Status; a watch gets it as an ERROR event and ends.

import { isStatusError, internalError, type StatusError } from '../errors/status-error.js';
import { metaOf, type KubeObject } from '../machinery/object.js';
import type { Codec } from './codec.js';
import type { DeleteOutcome, GetOptions, ListPage, ListRequest, ResourceStorage, TryUpdate, ValidateDeletion, WatchRequest } from './resource-storage.js';
import { errorEvent, WatchStream, type WatchEvent } from './watch-stream.js';

/** Converts objects (each naming its apiVersion) to `toApiVersion`, in order; fails with a StatusError. */
export type ObjectConverter = (objects: KubeObject[], toApiVersion: string) => Promise<KubeObject[]>;

export interface StorageConversion {
  /** `group/version` objects are stored in. */
  storageApiVersion: string;
  convert: ObjectConverter;
}

export class ConvertingStorage implements ResourceStorage {
  private readonly servedApiVersion: string;

  constructor(
    private readonly inner: ResourceStorage,
    private readonly conversion: StorageConversion,
  ) {
    this.servedApiVersion = inner.codec.apiVersion;
  }

  get codec(): Codec {
    return this.inner.codec;
  }

  /** Objects as the inner storage decoded them (storage content) in the served version. */
  private async fromStorage(objects: KubeObject[]): Promise<KubeObject[]> {
    if (objects.length === 0) return objects;
    const stored = objects.map((o) => ({ ...o, apiVersion: this.conversion.storageApiVersion }));
    const converted = await this.conversion.convert(stored, this.servedApiVersion);
    // The converter keeps each object's metadata; the revision is the storage's.
    return converted.map((o, i) => ({ ...o, apiVersion: this.servedApiVersion, metadata: { ...metaOf(o), resourceVersion: metaOf(objects[i]).resourceVersion } }));
  }

  private async fromStorageOne(obj: KubeObject): Promise<KubeObject> {
    return (await this.fromStorage([obj]))[0];
  }

  /** A served object in the storage version's content, labelled as the inner codec expects. */
  private async toStorage(obj: KubeObject): Promise<KubeObject> {
    const [converted] = await this.conversion.convert([{ ...obj, apiVersion: this.servedApiVersion }], this.conversion.storageApiVersion);
    return { ...converted, apiVersion: this.servedApiVersion, metadata: { ...metaOf(converted), resourceVersion: metaOf(obj).resourceVersion } };
  }

  get(key: string, options: GetOptions & { ignoreNotFound: true }): Promise<KubeObject | undefined>;
  get(key: string, options?: GetOptions): Promise<KubeObject>;
  async get(key: string, options: GetOptions = {}): Promise<KubeObject | undefined> {
    // A converted object is a new one: the cache's shared decoding is never handed out.
    const obj = await this.inner.get(key, { ...options, shared: false });
    return obj === undefined ? undefined : this.fromStorageOne(obj);
  }

  async getList(prefix: string, request: ListRequest): Promise<ListPage> {
    const page = await this.inner.getList(prefix, request);
    return { ...page, items: await this.fromStorage(page.items) };
  }

  async watch(prefix: string, request: WatchRequest): Promise<WatchStream> {
    const inner = await this.inner.watch(prefix, request);
    const outer = new WatchStream();
    outer.onStop(() => inner.stop());
    void this.pump(inner, outer);
    return outer;
  }

  /** Converts each event's object in stream order; a failure is the stream's last event. */
  private async pump(inner: WatchStream, outer: WatchStream): Promise<void> {
    try {
      for await (const event of inner) {
        if (outer.stopped) break;
        outer.push(await this.convertEvent(event));
      }
    } catch (e) {
      const err: StatusError = isStatusError(e) ? e : internalError(e);
      outer.push(errorEvent(err));
    }
    outer.stop();
  }

  private async convertEvent(event: WatchEvent): Promise<WatchEvent> {
    if (event.type === 'ERROR' || event.type === 'BOOKMARK') return event;
    return { type: event.type, object: await this.fromStorageOne(event.object as KubeObject) };
  }

  async create(key: string, obj: KubeObject): Promise<KubeObject> {
    return this.fromStorageOne(await this.inner.create(key, await this.toStorage(obj)));
  }

  async guaranteedUpdate(key: string, tryUpdate: TryUpdate): Promise<KubeObject> {
    // An answer without a write is already in the served version; a written object is read back from storage.
    let unwritten: KubeObject | undefined;
    const out = await this.inner.guaranteedUpdate(key, async (existing) => {
      const decision = await tryUpdate(await this.fromStorageOne(existing));
      if (!decision.write) {
        unwritten = decision.object;
        return decision;
      }
      unwritten = undefined;
      return { object: await this.toStorage(decision.object), write: true };
    });
    return unwritten ?? this.fromStorageOne(out);
  }

  async delete(key: string, validateDeletion: ValidateDeletion): Promise<DeleteOutcome> {
    // Deciding a deletion reads metadata only, which conversion keeps as it is.
    const outcome = await this.inner.delete(key, validateDeletion);
    return { ...outcome, object: await this.fromStorageOne(outcome.object) };
  }
}
