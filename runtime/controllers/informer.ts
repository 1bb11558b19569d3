// A controller's view of one kind, in the small: list its storage prefix, then watch from the
// list's revision, handing decoded objects to the handlers. Like client-go's informer it lists
// again when the watch cannot continue (its history was compacted, the store restarted), and
// `onList` then sees the whole set, so handlers can catch up with deletions they missed.

import type { KeyValue, Storage, Watcher } from '../storage/interface.js';
import type { KubeObject } from '../registry/object.js';

export interface InformerHandlers {
  /** Every object present at a (re)list, with the revision the list was read at. */
  onList?(objects: KubeObject[], revision: number): void;
  /** An object created after the list. */
  onAdd?(obj: KubeObject): void;
  /** An object removed from storage (its last stored state). */
  onDelete?(obj: KubeObject): void;
}

export class Informer {
  private watcher?: Watcher;
  private closed = false;

  constructor(
    private readonly storage: Storage,
    private readonly prefix: string,
    private readonly decode: (kv: KeyValue) => KubeObject,
    private readonly handlers: InformerHandlers,
  ) {}

  /** Lists, then follows changes until closed. */
  async start(): Promise<void> {
    const page = await this.storage.list(this.prefix);
    if (this.closed) return;
    this.handlers.onList?.(page.items.map(this.decode), page.revision);
    this.watcher = this.storage.watch(this.prefix, { afterRevision: page.revision, prefix: true }, {
      onEvent: (event) => {
        if (event.type === 'delete') this.handlers.onDelete?.(this.decode(event.prevKv ?? event.kv));
        else if (event.created) this.handlers.onAdd?.(this.decode(event.kv));
      },
      onError: () => {
        if (!this.closed) void this.start().catch(() => undefined);
      },
    });
  }

  close(): void {
    this.closed = true;
    this.watcher?.stop();
  }
}
