// Objects that live for a fixed time after their last write, as kube-apiserver stores Events with
// an etcd lease of --event-ttl (default 1h), renewed by every write. Our Storage contract has no
// leases, so the expirer does the same above it for any backend: it lists and then watches the
// kind's prefix, notes when each key was last written, and deletes a key whose time is up with a
// delete conditional on the revision it saw (a write in between renews it instead). Every server
// replica over one etcd sees the same writes through its watch and may sweep; the condition keeps
// them from deleting a renewed object.
//
// A difference to leases: the clock of objects that exist at start-up starts then, so after a
// restart they live up to one more TTL.

import { isStorageError, type Storage, type Watcher } from '../storage/interface.js';

export interface ExpirerOptions {
  /** How often expired keys are looked for; default a tenth of the TTL, between 100 ms and 30 s. */
  sweepIntervalMs?: number;
  /** The clock, for tests. */
  now?: () => number;
}

const LIST_PAGE = 1000;

export class ObjectExpirer {
  /** key -> revision of its last write and when we saw it. */
  private readonly written = new Map<string, { revision: number; at: number }>();
  private watcher?: Watcher;
  private timer?: NodeJS.Timeout;
  private closed = false;
  private sweeping = false;
  private readonly now: () => number;
  private readonly sweepIntervalMs: number;

  constructor(
    private readonly storage: Storage,
    private readonly prefix: string,
    private readonly ttlMs: number,
    options: ExpirerOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.sweepIntervalMs = options.sweepIntervalMs ?? Math.min(30_000, Math.max(100, Math.floor(ttlMs / 10)));
  }

  /** Lists the prefix, then follows its changes; sweeps on a timer until closed. */
  async start(): Promise<void> {
    await this.follow();
    if (this.closed) return;
    this.timer = setInterval(() => void this.sweep(), this.sweepIntervalMs);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    this.watcher?.stop();
    if (this.timer) clearInterval(this.timer);
  }

  /** How many keys are being timed (for tests and metrics). */
  get size(): number {
    return this.written.size;
  }

  private async follow(): Promise<void> {
    this.written.clear();
    const at = this.now();
    let startKey: string | undefined;
    let revision = 0;
    for (;;) {
      const page = await this.storage.list(this.prefix, { revision, limit: LIST_PAGE, startKey });
      revision = page.revision;
      for (const kv of page.items) this.written.set(kv.key, { revision: kv.modRevision, at });
      if (!page.more || page.items.length === 0) break;
      startKey = `${page.items[page.items.length - 1]!.key}\u0000`;
    }
    if (this.closed) return;
    this.watcher = this.storage.watch(this.prefix, { afterRevision: revision, prefix: true }, {
      onEvent: (event) => {
        if (event.type === 'delete') this.written.delete(event.kv.key);
        else this.written.set(event.kv.key, { revision: event.kv.modRevision, at: this.now() });
      },
      // The history we followed is gone (compaction, the store restarting): start over.
      onError: () => {
        if (!this.closed) void this.follow().catch(() => undefined);
      },
    });
  }

  /** Deletes every key not written for the TTL; returns how many it deleted. */
  async sweep(): Promise<number> {
    if (this.sweeping || this.closed) return 0;
    this.sweeping = true;
    let deleted = 0;
    try {
      const deadline = this.now() - this.ttlMs;
      for (const [key, seen] of [...this.written]) {
        if (seen.at > deadline) continue;
        try {
          await this.storage.delete(key, seen.revision);
          this.written.delete(key);
          deleted++;
        } catch (e) {
          // Written again (the watch brings the new time) or already gone: nothing to do.
          if (isStorageError(e, 'KeyNotFound')) this.written.delete(key);
          else if (!isStorageError(e, 'Conflict')) throw e;
        }
      }
    } finally {
      this.sweeping = false;
    }
    return deleted;
  }
}
