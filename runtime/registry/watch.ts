// Watch over the generic store: storage put/delete events become ADDED, MODIFIED and DELETED of
// API objects, filtered by the request's selectors the way kube-apiserver's cacher filters them
// (an object that stops matching is DELETED, one that starts matching is ADDED). A watch without
// a resourceVersion (or "0") first replays the current state as synthetic ADDED events.

import { StatusError, resourceExpired, type Status } from '../errors/status-error.js';
import { isStorageError, type StorageError, type StorageWatchEvent, type Watcher } from '../storage/interface.js';
import { collectionPrefix } from './keys.js';
import { listObjects, parseResourceVersion } from './list.js';
import { metaOf, type KubeObject } from './object.js';
import { compilePredicate, type Predicate, type SelectionOptions } from './selection.js';
import { interpretStorageError } from './storage-errors.js';
import type { Store } from './store.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject | Status;
}

export interface WatchOptions extends SelectionOptions {
  resourceVersion?: string;
  /** Ends the stream after this long, as `timeoutSeconds` asks. */
  timeoutSeconds?: number;
  /** Stops the watch when the client goes away. */
  signal?: AbortSignal;
}

/** A stream of watch events; iterate it, and call stop() (or abort the signal) to release the storage watcher. */
export class WatchStream implements AsyncIterable<WatchEvent> {
  private readonly queue: WatchEvent[] = [];
  private waiting?: (r: IteratorResult<WatchEvent>) => void;
  private done = false;
  private cleanups: (() => void)[] = [];

  push(event: WatchEvent): void {
    if (this.done) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
  }

  onStop(fn: () => void): void {
    if (this.done) fn();
    else this.cleanups.push(fn);
  }

  /** Ends the stream after the events already queued. Idempotent. */
  stop(): void {
    if (this.done) return;
    this.done = true;
    for (const fn of this.cleanups.splice(0)) fn();
    if (this.waiting && this.queue.length === 0) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: undefined, done: true });
    }
  }

  get stopped(): boolean {
    return this.done;
  }

  next(): Promise<IteratorResult<WatchEvent>> {
    const event = this.queue.shift();
    if (event) return Promise.resolve({ value: event, done: false });
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent> {
    return {
      next: () => this.next(),
      return: () => {
        this.stop();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

/** The event a storage change means for a watcher with this predicate, or undefined when none. */
export function toWatchEvent(store: Store, event: StorageWatchEvent, predicate: Predicate): WatchEvent | undefined {
  const prev = event.prevKv ? store.decode(event.prevKv.value, event.prevKv.modRevision) : undefined;
  const prevMatches = prev !== undefined && predicate.matches(prev);
  if (event.type === 'delete') {
    // kv holds the last state, stamped with the deletion's revision so clients can resume after it.
    const last = store.decode(event.kv.value, event.kv.modRevision);
    return predicate.matches(prev ?? last) ? { type: 'DELETED', object: last } : undefined;
  }
  const obj = store.decode(event.kv.value, event.kv.modRevision);
  const matches = predicate.matches(obj);
  if (event.created || prev === undefined) return matches ? { type: 'ADDED', object: obj } : undefined;
  if (matches) return { type: prevMatches ? 'MODIFIED' : 'ADDED', object: obj };
  if (!prevMatches) return undefined;
  const last = prev;
  metaOf(last).resourceVersion = String(event.kv.modRevision);
  return { type: 'DELETED', object: last };
}

function errorEvent(err: StatusError): WatchEvent {
  return { type: 'ERROR', object: err.toStatus() };
}

function compactedError(err: StorageError, requested: number): StatusError {
  const oldest = err.bound ?? requested + 1;
  return resourceExpired(`too old resource version: ${requested} (${oldest - 1})`);
}

export async function watchObjects(store: Store, namespace: string | undefined, options: WatchOptions = {}): Promise<WatchStream> {
  const predicate = compilePredicate(store.strategies.main, options);
  const requested = parseResourceVersion(options.resourceVersion);
  const stream = new WatchStream();
  let from = requested;
  if (requested === 0) {
    const initial = await listObjects(store, namespace, { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector });
    for (const item of initial.items) {
      stream.push({ type: 'ADDED', object: { apiVersion: store.apiVersion, kind: store.definition.kind, ...item } });
    }
    from = Number(initial.metadata.resourceVersion);
  } else {
    const oldest = await store.storage.oldestRevision();
    // Events after `requested` must all still be in history: the first needed is requested + 1.
    if (requested + 1 < oldest) {
      stream.push(errorEvent(resourceExpired(`too old resource version: ${requested} (${oldest - 1})`)));
      stream.stop();
      return stream;
    }
  }
  const prefix = collectionPrefix(store.definition, store.definition.namespaced ? namespace : undefined);
  let watcher: Watcher | undefined;
  try {
    watcher = store.storage.watch(prefix, { afterRevision: from, prefix: true }, {
      onEvent: (event) => {
        const out = toWatchEvent(store, event, predicate);
        if (out) stream.push(out);
      },
      onError: (err) => {
        stream.push(errorEvent(isStorageError(err, 'Compacted') ? compactedError(err, from) : interpretStorageError(err, 'watch', store.groupResource)));
        stream.stop();
      },
    });
  } catch (e) {
    const err = isStorageError(e, 'Compacted') ? compactedError(e, from) : interpretStorageError(e, 'watch', store.groupResource);
    stream.push(errorEvent(err));
    stream.stop();
    return stream;
  }
  const w = watcher;
  stream.onStop(() => w.stop());
  if (options.timeoutSeconds !== undefined && options.timeoutSeconds > 0) {
    const timer = setTimeout(() => stream.stop(), options.timeoutSeconds * 1000);
    stream.onStop(() => clearTimeout(timer));
  }
  if (options.signal) {
    const signal = options.signal;
    if (signal.aborted) stream.stop();
    const abort = () => stream.stop();
    signal.addEventListener('abort', abort, { once: true });
    stream.onStop(() => signal.removeEventListener('abort', abort));
  }
  return stream;
}
