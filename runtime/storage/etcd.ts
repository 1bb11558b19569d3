// The etcd backend: what kube-apiserver does with etcd, over the storage contract.
//
// Revisions are etcd's own (mod_revision, create_revision, the header revision), so several
// servers sharing one etcd cluster agree on every resourceVersion. Writes are single
// transactions that compare the key's create or mod revision, as kube-apiserver's etcd3 store
// does; reads at a revision, paging and counting are etcd ranges; watches are etcd watches.
//
// Two points where etcd and the contract differ are bridged here:
// - The contract forgets the compacted revision itself (oldest readable = compacted + 1); etcd
//   still serves reads at its compaction point. The store refuses reads at or below the
//   compaction it knows of before asking etcd.
// - etcd never says how far it has been compacted, only that a revision is gone. When a read or
//   a watch meets someone else's compaction, the store finds the point by probing (a range at
//   revision r fails exactly when r is below it) and remembers it.
// etcd's and the clients' failures become StorageError codes here (and in etcd-errors.ts) only;
// their detail (addresses, client classes) goes to the failure log, never into the StorageError.
//
// etcd is spoken to through the small gRPC client of etcd-client/ (node:http2, hand-encoded
// messages): a create is one Txn and one watch event, and through the etcd3 library
// (@grpc/grpc-js, protobufjs) those cost this process more CPU than etcd spends on the put.
//
// A write is never sent twice once it may have reached etcd: a retried create that had in fact
// committed would find its own key and answer AlreadyExists, a retried update Conflict. So
// call() retries what kube-apiserver's etcd client retries: reads while etcd is unavailable,
// writes only when they never left this process. With several endpoints the KV client moves to
// the next one when a connection cannot be had.

import type { SecureContext } from 'node:tls';
import { EtcdClient } from './etcd-client/client.js';
import type { Compare, RangeRequest, ResponseHeader, TxnResponse } from './etcd-client/client.js';
import { EtcdKeySpace, REGISTRY_KEY_ROOT } from './etcd-keys.js';
import { etcdFailure, failureDetail, isEtcdCompacted, isEtcdFutureRevision, neverSent, retryableRead } from './etcd-errors.js';
import { EtcdWatch } from './etcd-watch.js';
import type { EtcdWatchContext } from './etcd-watch.js';
import { DEFAULT_HISTORY_WINDOW_MS, HistoryWindow } from './history-window.js';
import { StorageError } from './interface.js';
import type { KeyValue, ListOptions, ListResult, Storage, WatchCallbacks, Watcher, WatchOptions } from './interface.js';
import { closedError } from './log.js';

export interface EtcdStorageOptions {
  /** etcd client URLs (`--etcd-servers`), e.g. `http://127.0.0.1:2379`. */
  endpoints: string[];
  /** Where the keys live in etcd (`--etcd-prefix`); default `/registry`. */
  prefix?: string;
  /** The storage-key root that maps onto `prefix`; default `/registry`, the registry's root. */
  keyRoot?: string;
  /** Compact etcd to the revision seen this long ago, periodically. Default 5 minutes (as kube-apiserver); 0: never. */
  historyWindowMs?: number;
  /** Deadline of each etcd request. Default 60 seconds. */
  requestTimeoutMs?: number;
  /** Told what a failed etcd request met (addresses and all), for the server log; clients are told less. */
  onFailure?: (detail: string) => void;
  /** The TLS of https endpoints, made by etcdSecureContext from the --etcd-* files. */
  secureContext?: SecureContext;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;
/**
 * How long a request may be tried again, about the time etcd takes to restart or elect a leader;
 * the pause between tries grows by a tenth of a second each time, up to half a second.
 */
const RETRY_BUDGET_MS = 3000;
const retryDelay = (attempt: number): number => Math.min(100 * attempt, 500);

interface CallOptions {
  /** The request changes etcd: retried only when it was never sent. */
  write?: boolean;
  /** The caller interprets etcd's failure itself (after retries). */
  raw?: boolean;
}

export class EtcdStorage implements Storage {
  private readonly kv: EtcdClient;
  private readonly onFailure: (detail: string) => void;
  private readonly keys: EtcdKeySpace;
  /** The etcd key a cheap range reads to learn the current revision (the prefix itself). */
  private readonly probeKey: Buffer;
  private readonly watches = new Set<EtcdWatch>();
  private readonly watchContext: EtcdWatchContext;
  private readonly window?: HistoryWindow;
  private closed = false;
  /** The newest revision seen in any etcd response. */
  private lastSeen = 0;
  /** The compaction point known to this store: reads at or below it fail with Compacted. */
  private compacted = 0;
  /** Whether etcd's compaction point has been looked up once (it may predate this store). */
  private compactionProbed = false;
  /** Requests wait for this first: the starting revisions of watches "from now" (see watch()). */
  private barrier: Promise<void> = Promise.resolve();
  /** Whether the barrier has settled: then a request has nothing to wait for and goes out at once. */
  private barrierSettled = true;

  constructor(options: EtcdStorageOptions) {
    if (options.endpoints.length === 0) throw new Error('etcd storage: no endpoints given');
    const timeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    this.onFailure = options.onFailure ?? (() => undefined);
    // Every call gets a deadline, so a silent etcd cannot hang a request forever.
    this.kv = new EtcdClient(options.endpoints, timeout, undefined, options.secureContext);
    this.keys = new EtcdKeySpace(options.prefix ?? REGISTRY_KEY_ROOT, options.keyRoot ?? REGISTRY_KEY_ROOT);
    this.probeKey = this.keys.key(options.keyRoot ?? REGISTRY_KEY_ROOT);
    this.watchContext = {
      client: this.kv,
      keys: this.keys,
      noteRevision: (revision) => this.noteRevision(revision),
      failure: (key, error) => this.failure(key, error),
      knownCompacted: () => this.compacted,
      compactedError: async (key, revision) => {
        if (revision <= 0 || (await this.readableAt(revision))) return undefined;
        const first = await this.firstReadable(revision + 1);
        this.noteCompacted(first);
        return new StorageError('Compacted', key, `required revision ${revision + 1} has been compacted (compacted ${first})`, undefined, revision, first + 1);
      },
      ended: (watch) => this.watches.delete(watch),
    };

    const windowMs = options.historyWindowMs ?? DEFAULT_HISTORY_WINDOW_MS;
    if (windowMs > 0) {
      // Each server sharing the etcd cluster may compact; a point someone already passed is a
      // no-op (compact() treats it as done), and a failed tick only delays forgetting.
      this.window = new HistoryWindow(
        windowMs,
        () => this.lastSeen,
        (revision) => {
          this.compact(revision).catch((error: unknown) => {
            if (!this.closed) process.emitWarning(`etcd storage compaction failed: ${error instanceof Error ? error.message : String(error)}`);
          });
        },
      );
    }
  }

  async currentRevision(): Promise<number> {
    const res = await this.call('', (kv) => kv.range({ key: this.probeKey, countOnly: true }));
    return res.header.revision;
  }

  async oldestRevision(): Promise<number> {
    this.ensureOpen('');
    if (!this.compactionProbed) {
      if (!(await this.readableAt(1))) this.noteCompacted(await this.firstReadable(2));
      this.compactionProbed = true;
    }
    return this.compacted + 1;
  }

  async get(key: string, revision?: number): Promise<KeyValue | undefined> {
    const res = await this.rangeAt(key, revision, { key: this.keys.key(key) });
    const kv = res.kvs[0];
    return kv ? this.keys.keyValue(kv) : undefined;
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const { start, end } = this.keys.range(prefix);
    const startKey = options.startKey !== undefined ? this.keys.key(options.startKey) : undefined;
    const from = startKey && Buffer.compare(startKey, start) > 0 ? startKey : start;
    const limit = options.limit && options.limit > 0 ? options.limit : 0;
    // etcd's count is every key in the range at that revision, whatever the limit: the rest of
    // the list is that count minus this page, with no second request.
    const res = await this.rangeAt(prefix, options.revision, { key: from, rangeEnd: end, limit });
    const items = res.kvs.map((kv) => this.keys.keyValue(kv));
    const remaining = res.count - items.length;
    return { items, revision: options.revision || res.header.revision, more: res.more, remaining: res.more ? remaining : 0 };
  }

  async count(prefix: string): Promise<number> {
    const { start, end } = this.keys.range(prefix);
    const res = await this.call(prefix, (kv) => kv.range({ key: start, rangeEnd: end, countOnly: true }));
    return res.count;
  }

  async create(key: string, value: string): Promise<KeyValue> {
    const etcdKey = this.keys.key(key);
    // kube's etcd3 store compares ModRevision = 0; CreateRevision = 0 has the same outcomes.
    const res = await this.call(key, (kv) => kv.createTxn(etcdKey, value), { write: true });
    if (!res.succeeded) {
      const current = this.currentOf(res);
      throw new StorageError('KeyExists', key, `key ${key} already exists`, current);
    }
    const revision = res.header.revision;
    return { key, value, createRevision: revision, modRevision: revision };
  }

  async update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    const etcdKey = this.keys.key(key);
    const res = await this.call(key, (kv) =>
      kv.txn({
        compare: this.liveAt(etcdKey, expectedModRevision),
        success: [{ put: { key: etcdKey, value: Buffer.from(value, 'utf8'), prevKv: true } }],
        failure: [{ range: { key: etcdKey } }],
      }),
      { write: true },
    );
    if (!res.succeeded) throw this.writeRefused(key, res, expectedModRevision);
    const prev = res.responses[0]?.put?.prevKv;
    const revision = res.header.revision;
    return { key, value, createRevision: prev ? prev.createRevision : revision, modRevision: revision };
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    const etcdKey = this.keys.key(key);
    const res = await this.call(key, (kv) =>
      kv.txn({
        compare: this.liveAt(etcdKey, expectedModRevision),
        success: [{ deleteRange: { key: etcdKey, prevKv: true } }],
        failure: [{ range: { key: etcdKey } }],
      }),
      { write: true },
    );
    if (!res.succeeded) throw this.writeRefused(key, res, expectedModRevision);
    const prev = res.responses[0]?.deleteRange?.prevKvs[0];
    // The compare held, so the key was live when the delete ran and prev_kv is its last value.
    if (!prev) throw new StorageError('KeyNotFound', key, `key ${key} not found`);
    return { key, value: prev.value.toString('utf8'), createRevision: prev.createRevision, modRevision: res.header.revision };
  }

  watch(key: string, options: WatchOptions, callbacks: WatchCallbacks): Watcher {
    if (this.closed) {
      let stopped = false;
      queueMicrotask(() => stopped || callbacks.onError(closedError(key)));
      return { stop: () => void (stopped = true) };
    }
    let from: Promise<number> | undefined;
    if (options.afterRevision <= 0) {
      // "From now" is the revision etcd reports when asked, and this store's requests that
      // follow the call wait for that answer (the barrier), so none of its own later writes can
      // land before the watch's starting point.
      from = this.call(key, (kv) => kv.range({ key: this.probeKey, countOnly: true })).then((res) => res.header.revision);
      const previous = this.barrier;
      const barrier = Promise.all([previous, from.catch(() => undefined)]).then(() => {
        if (this.barrier === barrier) this.barrierSettled = true;
      });
      this.barrier = barrier;
      this.barrierSettled = false;
    }
    const watch = new EtcdWatch(this.watchContext, key, options, callbacks, from);
    this.watches.add(watch);
    return watch;
  }

  async compact(revision: number): Promise<void> {
    this.ensureOpen('');
    if (revision <= this.compacted) return;
    try {
      await this.call('', (kv) => kv.compact(revision), { raw: true });
      this.noteCompacted(revision);
    } catch (error) {
      if (isEtcdCompacted(error)) {
        // Someone (another server sharing etcd) compacted at or past this point already.
        this.noteCompacted(await this.firstReadable(revision));
        return;
      }
      if (isEtcdFutureRevision(error)) {
        const current = await this.currentRevision();
        throw new StorageError('FutureRevision', '', `cannot compact to future revision ${revision} (current ${current})`, undefined, revision, current);
      }
      throw this.failure('', error);
    }
  }

  async healthCheck(timeoutMs: number): Promise<void> {
    this.ensureOpen('');
    // One read of the storage root's own key, with no retry: the answer is whether etcd serves now.
    await this.kv.range({ key: this.probeKey, keysOnly: true }, timeoutMs);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.window?.stop();
    const open = [...this.watches];
    this.watches.clear();
    await Promise.all(open.map((w) => w.close(closedError(''))));
    this.kv.close();
  }

  /** A range at `revision` (current when absent), with Compacted and FutureRevision as the contract words them. */
  private async rangeAt(key: string, revision: number | undefined, request: RangeRequest) {
    if (revision && revision <= this.compacted) throw this.compactedRead(key, revision);
    try {
      return await this.call(key, (kv) => kv.range({ ...request, revision: revision || 0 }), { raw: true });
    } catch (error) {
      if (!revision) throw this.failure(key, error);
      if (isEtcdCompacted(error)) {
        this.noteCompacted(await this.firstReadable(revision + 1));
        throw this.compactedRead(key, revision);
      }
      if (isEtcdFutureRevision(error)) {
        const current = await this.currentRevision();
        throw new StorageError('FutureRevision', key, `required revision ${revision} is a future revision (current ${current})`, undefined, revision, current);
      }
      throw this.failure(key, error);
    }
  }

  private compactedRead(key: string, revision: number): StorageError {
    return new StorageError('Compacted', key, `required revision ${revision} has been compacted (compacted ${this.compacted})`, undefined, revision, this.compacted + 1);
  }

  /** True when etcd still serves reads at `revision` (a range there fails exactly below its compaction point). */
  private async readableAt(revision: number): Promise<boolean> {
    try {
      await this.call('', (kv) => kv.range({ key: this.probeKey, countOnly: true, revision }), { raw: true });
      return true;
    } catch (error) {
      if (isEtcdCompacted(error)) return false;
      if (isEtcdFutureRevision(error)) return true;
      throw this.failure('', error);
    }
  }

  /** etcd's compaction point: the first readable revision, known to be at least `from`. */
  private async firstReadable(from: number): Promise<number> {
    let lo = from;
    let hi = Math.max(await this.currentRevision(), lo);
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (await this.readableAt(mid)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  private noteCompacted(revision: number): void {
    if (revision > this.compacted) this.compacted = revision;
  }

  private noteRevision(revision: number): void {
    if (revision > this.lastSeen) this.lastSeen = revision;
  }

  /** The compare of a conditional write: the key is live, and at the expected mod revision when one is given. */
  private liveAt(etcdKey: Buffer, expectedModRevision: number | undefined): Compare[] {
    const live: Compare = { key: etcdKey, target: 'Version', result: 'Greater', value: 0 };
    return expectedModRevision === undefined ? [live] : [live, { key: etcdKey, target: 'Mod', result: 'Equal', value: expectedModRevision }];
  }

  /** The current value a failed transaction read in its failure branch. */
  private currentOf(res: TxnResponse): KeyValue | undefined {
    const kv = res.responses[0]?.range?.kvs[0];
    return kv ? this.keys.keyValue(kv) : undefined;
  }

  private writeRefused(key: string, res: TxnResponse, expected: number | undefined): StorageError {
    const current = this.currentOf(res);
    if (!current) return new StorageError('KeyNotFound', key, `key ${key} not found`);
    return new StorageError('Conflict', key, `key ${key} has mod revision ${current.modRevision}, expected ${expected}`, current);
  }

  /**
   * Runs one etcd request: refuses once closed, retries what may be retried (see the top of this
   * file), notes the revision it saw, and turns the failure into a StorageError, unless `raw`,
   * where the caller interprets etcd's answer.
   */
  private async call<T extends { header: ResponseHeader }>(key: string, request: (kv: EtcdClient) => Promise<T>, options: CallOptions = {}): Promise<T> {
    this.ensureOpen(key);
    const retryable = options.write ? neverSent : retryableRead;
    const started = Date.now();
    // The barrier as it stood when the request was made: a retry must not wait for watches
    // started after it (the request may be the one such a watch waits for).
    const barrier = this.barrierSettled ? undefined : this.barrier;
    for (let attempt = 1; ; attempt++) {
      let res: T;
      try {
        if (barrier) await barrier;
        res = await request(this.kv);
      } catch (error) {
        if (this.closed) throw closedError(key);
        const wait = retryDelay(attempt);
        if (retryable(error) && Date.now() - started + wait < RETRY_BUDGET_MS) {
          await new Promise((resolve) => setTimeout(resolve, wait));
          continue;
        }
        if (options.raw) throw error;
        throw this.failure(key, error, options.write);
      }
      this.noteRevision(res.header.revision);
      return res;
    }
  }

  /** The StorageError an etcd failure means; what it was in detail goes to the failure log. */
  private failure(key: string, error: unknown, write = false): StorageError {
    if (error instanceof StorageError) return error;
    if (!this.closed) this.onFailure(`etcd request for ${key || 'the store'} failed: ${failureDetail(error)}`);
    return etcdFailure(key, error, write);
  }

  private ensureOpen(key: string): void {
    if (this.closed) throw closedError(key);
  }
}
