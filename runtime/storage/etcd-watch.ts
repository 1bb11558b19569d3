// One storage watch carried by an etcd watch (etcd3's Watcher, which reconnects on its own).
//
// Two details make it match the storage contract exactly:
// - The etcd watch starts AT the last revision already delivered (`delivered`), not one past
//   it, and drops events at or below it. etcd cancels a watch whose start revision is below its
//   compaction point, so starting at `delivered` makes etcd refuse exactly the watches the
//   contract calls compacted (afterRevision < compacted revision) and accept a watch from the
//   compaction point itself.
// - The resume point after a reconnect is ours, not etcd3's: etcd3 resumes from the newest
//   header revision it saw, and a header can run ahead of the events of a catching-up watch.
//   After every response this watch pins the request's start revision to `delivered`: the last
//   event handed out, or the revision of a progress notification (etcd sends those, with
//   progress_notify, only once every earlier event went out), so an idle watch stays current.

import type { Etcd3, IKeyValue, IWatchResponse, Watcher as EtcdWatcher } from 'etcd3';
import type { EtcdKeySpace } from './etcd-keys.js';
import { StorageError } from './interface.js';
import type { KeyValue, StorageWatchEvent, WatchCallbacks, Watcher, WatchOptions } from './interface.js';

/** What a watch needs from the store that opened it. */
export interface EtcdWatchContext {
  /** The client, once etcd3 is loaded (see etcd.ts). */
  readonly client: Promise<Etcd3>;
  readonly keys: EtcdKeySpace;
  noteRevision(revision: number): void;
  /** The compacted revision the store knows of. */
  knownCompacted(): number;
  /** Why etcd may have canceled a watch that had delivered through `revision`: Compacted, or undefined. */
  compactedError(key: string, revision: number): Promise<StorageError | undefined>;
  /** The StorageError an etcd3 failure means (the store logs the detail). */
  failure(key: string, error: unknown): StorageError;
  /** The watch ended (stopped, failed or closed); the store forgets it. */
  ended(watch: EtcdWatch): void;
}

export class EtcdWatch implements Watcher {
  private etcdWatcher?: EtcdWatcher;
  /** Every event at or below this revision has been delivered (or precedes the watch). */
  private delivered: number;
  private done = false;
  private cancelling?: Promise<void>;

  constructor(
    private readonly context: EtcdWatchContext,
    private readonly key: string,
    options: WatchOptions,
    private readonly callbacks: WatchCallbacks,
    /** For a watch "from now" (afterRevision 0): the current revision, which the store looks up. */
    now?: Promise<number>,
  ) {
    const compacted = context.knownCompacted();
    this.delivered = options.afterRevision > 0 ? options.afterRevision : 0;
    if (options.afterRevision > 0 && options.afterRevision < compacted) {
      const error = new StorageError(
        'Compacted',
        key,
        `required revision ${options.afterRevision + 1} has been compacted (compacted ${compacted})`,
        undefined,
        options.afterRevision,
        compacted + 1,
      );
      this.done = true;
      // Reported after the caller holds the handle, like every other watch outcome.
      queueMicrotask(() => this.report(error));
      return;
    }
    // Mapped now, so a key outside the store's root fails the call rather than the watch.
    const range = options.prefix ? context.keys.range(key) : context.keys.key(key);
    Promise.all([context.client, now]).then(
      ([client, revision]) => {
        if (revision !== undefined) this.delivered = revision;
        this.start(client, range);
      },
      (error: unknown) => this.fail(context.failure(key, error)),
    );
  }

  private start(client: Etcd3, range: Buffer | { start: Buffer; end: Buffer }): void {
    if (this.done) return;
    const builder = client.watch().withPreviousKV();
    if (Buffer.isBuffer(range)) builder.key(range);
    else builder.inRange(range);
    if (this.delivered > 0) builder.startRevision(String(this.delivered));
    const watcher = builder.watcher();
    this.etcdWatcher = watcher;
    // These listeners run after etcd3's own (registered in its constructor), so pin() has the
    // last word on the resume revision.
    watcher.on('connected', (res) => this.onConnected(res));
    watcher.on('data', (res) => this.onData(res));
    watcher.on('error', (error) => this.onCanceled(error));
  }

  /** Where the watch resumes after a reconnect: every event up to this revision has been delivered. */
  get deliveredRevision(): number {
    return this.delivered;
  }

  stop(): void {
    if (this.done) return;
    this.done = true;
    this.context.ended(this);
    this.cancel();
  }

  /** Ends the watch with `error` (the store is closing); resolves once etcd dropped it. */
  close(error: StorageError): Promise<void> {
    if (!this.done) {
      this.done = true;
      this.cancel();
      this.report(error);
    }
    return this.cancelling ?? Promise.resolve();
  }

  private onConnected(res: IWatchResponse): void {
    const revision = Number(res.header.revision);
    this.context.noteRevision(revision);
    // Only on an empty etcd (revision 0 has no events) can a watch still lack a starting point.
    if (this.delivered === 0) this.delivered = revision;
    this.pin();
  }

  private onData(res: IWatchResponse): void {
    if (this.done) return;
    const revision = Number(res.header.revision);
    for (const raw of res.events) {
      const kv = this.keyValue(raw.kv);
      if (kv.modRevision <= this.delivered) continue;
      const prevKv = raw.prev_kv ? this.keyValue(raw.prev_kv) : undefined;
      const event = this.toEvent(raw.type === 'Delete', kv, prevKv);
      try {
        this.callbacks.onEvent(event);
      } catch (cause) {
        // A consumer that throws has lost its place in the stream: end the watch loudly rather
        // than carry on with a gap.
        const message = cause instanceof Error ? cause.message : String(cause);
        this.fail(new StorageError('Unavailable', this.key, `watch consumer failed: ${message}`));
        return;
      }
      this.delivered = kv.modRevision;
      if (this.done) return;
    }
    // No events and not canceled: a progress notification, everything up to it went out.
    if (res.events.length === 0 && revision > this.delivered) this.delivered = revision;
    this.context.noteRevision(revision);
    this.pin();
  }

  /** etcd3's key-value (revisions as decimal strings) as the storage contract has it. */
  private keyValue(kv: IKeyValue): KeyValue {
    return this.context.keys.keyValue({ key: kv.key, value: kv.value, createRevision: Number(kv.create_revision), modRevision: Number(kv.mod_revision) });
  }

  private toEvent(deleted: boolean, kv: KeyValue, prevKv: KeyValue | undefined): StorageWatchEvent {
    if (deleted) {
      // etcd's delete event carries only the key and the deletion's revision; the contract
      // wants the last value there, which prev_kv holds.
      const last: KeyValue = { key: kv.key, value: prevKv?.value ?? '', createRevision: prevKv?.createRevision ?? 0, modRevision: kv.modRevision };
      return prevKv ? { type: 'delete', kv: last, prevKv, created: false } : { type: 'delete', kv: last, created: false };
    }
    const created = kv.createRevision === kv.modRevision;
    return !created && prevKv ? { type: 'put', kv, prevKv, created } : { type: 'put', kv, created };
  }

  /** etcd canceled the watch: find out whether compaction is why, then report it. */
  private onCanceled(error: Error): void {
    if (this.done) return;
    this.done = true;
    this.context.ended(this);
    const through = this.delivered;
    this.context.compactedError(this.key, through).then(
      (compacted) => this.report(compacted ?? this.context.failure(this.key, error)),
      (probeError: unknown) => this.report(this.context.failure(this.key, probeError)),
    );
  }

  private fail(error: StorageError): void {
    if (this.done) return;
    this.done = true;
    this.context.ended(this);
    this.cancel();
    this.report(error);
  }

  private report(error: StorageError): void {
    this.callbacks.onError(error);
  }

  private pin(): void {
    if (this.etcdWatcher && this.delivered > 0) this.etcdWatcher.request.start_revision = this.delivered;
  }

  private cancel(): void {
    if (!this.etcdWatcher || this.cancelling) return;
    // The stream may already be gone (closing client, lost connection); nothing is left to cancel then.
    this.cancelling = this.etcdWatcher.cancel().catch(() => undefined);
  }
}
