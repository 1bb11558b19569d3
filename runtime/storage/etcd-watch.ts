// One storage watch carried by an etcd watch: a Watch stream of its own (etcd-client/), opened
// again after the connection is lost, from where it left off.
//
// Two details make it match the storage contract exactly:
// - The etcd watch starts AT the last revision already delivered (`delivered`), not one past
//   it, and drops events at or below it. etcd cancels a watch whose start revision is below its
//   compaction point, so starting at `delivered` makes etcd refuse exactly the watches the
//   contract calls compacted (afterRevision < compacted revision) and accept a watch from the
//   compaction point itself.
// - The resume point after a reconnect is `delivered`, never a response header's revision (a
//   header can run ahead of the events of a catching-up watch): the last event handed out, or
//   the revision of a progress notification (etcd sends those, with progress_notify, only once
//   every earlier event went out), so an idle watch stays current.

import { GRPC_UNAVAILABLE } from './etcd-client/client.js';
import type { EtcdClient, GrpcCallError, GrpcStream, WatchResponse } from './etcd-client/client.js';
import type { EtcdKeySpace } from './etcd-keys.js';
import { StorageError } from './interface.js';
import type { KeyValue, StorageWatchEvent, WatchCallbacks, Watcher, WatchOptions } from './interface.js';

/** What a watch needs from the store that opened it. */
export interface EtcdWatchContext {
  readonly client: EtcdClient;
  readonly keys: EtcdKeySpace;
  noteRevision(revision: number): void;
  /** The compacted revision the store knows of. */
  knownCompacted(): number;
  /** Why etcd may have canceled a watch that had delivered through `revision`: Compacted, or undefined. */
  compactedError(key: string, revision: number): Promise<StorageError | undefined>;
  /** The StorageError an etcd failure means (the store logs the detail). */
  failure(key: string, error: unknown): StorageError;
  /** The watch ended (stopped, failed or closed); the store forgets it. */
  ended(watch: EtcdWatch): void;
}

/** The pause before opening a lost watch stream again, growing by a tenth of a second per try up to one second. */
const reconnectDelay = (attempt: number): number => Math.min(100 * attempt, 1000);

export class EtcdWatch implements Watcher {
  private stream?: GrpcStream;
  private readonly range: { key: Buffer; rangeEnd?: Buffer };
  /** Tries to open the stream again since it last worked. */
  private attempt = 0;
  private retryTimer?: NodeJS.Timeout;
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
    // Mapped now, so a key outside the store's root fails the call rather than the watch.
    if (options.prefix) {
      const { start, end } = context.keys.range(key);
      this.range = { key: start, rangeEnd: end };
    } else {
      this.range = { key: context.keys.key(key) };
    }
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
    if (now === undefined) {
      this.start();
      return;
    }
    now.then(
      (revision) => {
        this.delivered = revision;
        this.start();
      },
      (error: unknown) => this.fail(context.failure(key, error)),
    );
  }

  private start(): void {
    if (this.done) return;
    this.stream = this.context.client.watch(
      { ...this.range, startRevision: this.delivered > 0 ? this.delivered : undefined, progressNotify: true, prevKv: true },
      (res) => this.onResponse(res),
      (error) => this.onStreamEnd(error),
    );
  }

  private onResponse(res: WatchResponse): void {
    if (this.done) return;
    if (res.canceled) {
      this.onCanceled(res.cancelReason || `watch canceled at compaction revision ${res.compactRevision}`);
      return;
    }
    if (res.created) this.onCreated(res);
    else this.onData(res);
  }

  /** The stream ended without etcd canceling the watch: the connection was lost, or etcd stopped. */
  private onStreamEnd(error: GrpcCallError | undefined): void {
    this.stream = undefined;
    if (this.done) return;
    this.attempt++;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.start();
    }, reconnectDelay(this.attempt));
    // A lost connection is etcd restarting or out of reach, which the reads and writes report;
    // anything else etcd said on ending the stream goes to the log.
    if (error && error.code !== GRPC_UNAVAILABLE) this.context.failure(this.key, error);
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

  private onCreated(res: WatchResponse): void {
    this.attempt = 0;
    this.context.noteRevision(res.header.revision);
    // Only on an empty etcd (revision 0 has no events) can a watch still lack a starting point.
    if (this.delivered === 0) this.delivered = res.header.revision;
  }

  private onData(res: WatchResponse): void {
    const revision = res.header.revision;
    for (const raw of res.events) {
      const kv = this.context.keys.keyValue(raw.kv);
      if (kv.modRevision <= this.delivered) continue;
      const prevKv = raw.prevKv ? this.context.keys.keyValue(raw.prevKv) : undefined;
      const event = this.toEvent(raw.type === 'delete', kv, prevKv);
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
  private onCanceled(reason: string): void {
    if (this.done) return;
    this.done = true;
    this.context.ended(this);
    this.cancel();
    const error = new Error(`etcd canceled the watch: ${reason}`);
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

  private cancel(): void {
    clearTimeout(this.retryTimer);
    if (!this.stream || this.cancelling) return;
    this.cancelling = this.stream.cancel();
  }
}
