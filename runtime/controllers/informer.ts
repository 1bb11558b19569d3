// A controller's view of one kind, in the small, through the same list and watch the API serves
// (so from the registry's watch cache when it runs one, with no storage reads of its own): list,
// then watch from the list's resourceVersion, handing objects to the handlers. Like client-go's
// informer it lists again when the watch cannot continue (its history expired, the cache is
// re-initializing, the stream ended), and `onList` then sees the whole set, so handlers can catch
// up with deletions they missed. Objects may be shared with the cache: handlers only read them.

import type { KubeList, KubeObject } from '../machinery/object.js';
import { listObjects } from '../registry/list.js';
import type { Store } from '../registry/store.js';
import { watchObjects, type WatchStream } from '../registry/watch.js';

export interface InformerHandlers {
  /** Every object present at a (re)list, with the revision the list was read at. */
  onList?(objects: KubeObject[], revision: number): void;
  /** An object created after the list. */
  onAdd?(obj: KubeObject): void;
  /** An object changed after the list (its new state). */
  onUpdate?(obj: KubeObject): void;
  /** An object removed from storage (its last stored state). */
  onDelete?(obj: KubeObject): void;
}

/** How long to wait before listing again after a failure (the cache loading, storage away). */
const RELIST_DELAY_MS = 1000;

export class Informer {
  private stream?: WatchStream;
  private closed = false;
  private retry?: ReturnType<typeof setTimeout>;

  constructor(
    private readonly store: Store,
    private readonly handlers: InformerHandlers,
    /** Only the objects this field selector selects, as a client-go informer's ListOptions narrow it. */
    private readonly fieldSelector?: string,
    /** Handlers keep nothing of the objects: the watch cache need not keep them decoded for us. */
    private readonly transient = false,
  ) {}

  /**
   * Lists, then follows changes until closed; resolves once the first list was handed over (the
   * watch is set up after, so a caller waiting for the list never waits for the cache to load).
   */
  async start(): Promise<void> {
    if (this.closed) return;
    let list: KubeList;
    try {
      list = await this.consistentList();
    } catch {
      this.relistLater();
      return;
    }
    if (this.closed) return;
    this.handlers.onList?.(list.items, Number(list.metadata.resourceVersion));
    void this.watchFrom(list.metadata.resourceVersion);
  }

  /** The current state: a Most Recent list, which the storage answers while the watch cache still loads. */
  private consistentList(): Promise<KubeList> {
    return listObjects(this.store, undefined, { fieldSelector: this.fieldSelector, transient: this.transient });
  }

  private async watchFrom(resourceVersion: string): Promise<void> {
    try {
      this.stream = await watchObjects(this.store, undefined, { resourceVersion, fieldSelector: this.fieldSelector, transient: this.transient });
    } catch {
      this.relistLater();
      return;
    }
    if (this.closed) this.stream.stop();
    else void this.follow(this.stream);
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.retry);
    this.stream?.stop();
  }

  private async follow(stream: WatchStream): Promise<void> {
    for await (const event of stream) {
      if (event.type === 'ADDED') this.handlers.onAdd?.(event.object as KubeObject);
      else if (event.type === 'MODIFIED') this.handlers.onUpdate?.(event.object as KubeObject);
      else if (event.type === 'DELETED') this.handlers.onDelete?.(event.object as KubeObject);
      else if (event.type === 'ERROR') break;
    }
    stream.stop();
    if (!this.closed) void this.start();
  }

  private relistLater(): void {
    if (this.closed) return;
    this.retry = setTimeout(() => void this.start(), RELIST_DELAY_MS);
    this.retry.unref?.();
  }
}
