// The stream a watch hands to the HTTP layer, and the one rule that turns a storage change into a
// watch event for a client's selectors, the way kube-apiserver's cacheWatcher does: an object that
// stops matching is DELETED (with its last matching state), one that starts matching is ADDED.

import type { Status, StatusError } from '../errors/status-error.js';
import type { StorageWatchEvent } from '../storage/interface.js';
import { decodeFromCache } from './cacher/serialization-cache.js';
import type { Codec } from './codec.js';
import { metaOf, type KubeObject } from '../machinery/object.js';
import { keyMayMatch, type Predicate } from './selection.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject | Status;
}

/** The ERROR event that carries a failure to the client in a 200 stream, as kube-apiserver sends it. */
export const errorEvent = (err: StatusError): WatchEvent => ({ type: 'ERROR', object: err.toStatus() });

/**
 * A stream of watch events; iterate it, and call stop() (or abort the signal) to release the storage watcher.
 *
 * The queue is unbounded while its reader keeps up (the initial state, a replay from an old
 * resourceVersion or one turn's burst all wait here at once), but a reader that stops taking data
 * may be given a limit (limitQueue): one event past it ends the stream at once, its queue dropped,
 * as kube-apiserver's cacher closes a watcher whose buffer stays full ("unresponsive"); a BOOKMARK
 * past it is left out instead, as the cacher never waits to hand one over.
 */
export class WatchStream implements AsyncIterable<WatchEvent> {
  private readonly queue: WatchEvent[] = [];
  /** Past this many waiting events the stream ends as unresponsive; set by limitQueue. */
  private capacity = Infinity;
  /** How many events waited when the stream ended as unresponsive; 0 otherwise. */
  private droppedEvents = 0;
  private waiting?: (r: IteratorResult<WatchEvent>) => void;
  /** Set by consume(): told when events wait to be taken, in place of next(). */
  private readable?: () => void;
  private done = false;
  private cleanups: (() => void)[] = [];

  push(event: WatchEvent): void {
    if (this.done) return;
    if (this.waiting) {
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve({ value: event, done: false });
      return;
    }
    this.queue.push(event);
    if (this.queue.length > this.capacity) {
      // As kube's cacher offers a bookmark without waiting: a watcher with no room goes without it.
      if (event.type === 'BOOKMARK') this.queue.pop();
      else this.dropUnresponsive();
      return;
    }
    if (this.queue.length === 1) this.readable?.();
  }

  /**
   * The reader stopped taking events: from now until it has taken every one, at most `extra`
   * more than wait now may wait. A limit already set stays, so a reader that takes a little now
   * and then but falls further behind still reaches it.
   */
  limitQueue(extra: number): void {
    if (this.capacity === Infinity) this.capacity = this.queue.length + extra;
  }

  /** The reader has taken every event: no limit until it stops again. */
  unlimitQueue(): void {
    this.capacity = Infinity;
  }

  /** How many events were dropped when the stream ended as unresponsive (0: it did not). */
  get unresponsive(): number {
    return this.droppedEvents;
  }

  /** Ends the stream without the events waiting, which its reader was not taking. */
  private dropUnresponsive(): void {
    this.droppedEvents = this.queue.length;
    this.queue.length = 0;
    this.stop();
  }

  /**
   * For the HTTP layer's watch writer, in place of next(): `readable` is called whenever events
   * start waiting (and once the stream stops), and the writer takes them with take(). No promise
   * per event, and the writer chooses when to write.
   */
  consume(readable: () => void): void {
    this.readable = readable;
    if (this.queue.length > 0 || this.done) readable();
  }

  /** The next queued event, if any (see consume). */
  take(): WatchEvent | undefined {
    return this.queue.shift();
  }

  /** Stopped, and every event taken. */
  get drained(): boolean {
    return this.done && this.queue.length === 0;
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
    this.readable?.();
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
export function toWatchEvent(codec: Codec, event: StorageWatchEvent, predicate: Predicate, remember = true): WatchEvent | undefined {
  // Neither state of another name can match: nothing to decode.
  if (!keyMayMatch(predicate, event.kv.key)) return undefined;
  // Decoded with their origin: every watcher of the change sends the same bytes (cachingObject).
  const prev = event.prevKv ? decodeFromCache(codec, event.prevKv, remember) : undefined;
  const prevMatches = prev !== undefined && predicate.matches(prev);
  if (event.type === 'delete') {
    // kv holds the last state, stamped with the deletion's revision so clients can resume after it.
    const last = decodeFromCache(codec, event.kv, remember);
    return predicate.matches(prev ?? last) ? { type: 'DELETED', object: last } : undefined;
  }
  const obj = decodeFromCache(codec, event.kv, remember);
  const matches = predicate.matches(obj);
  if (event.created || prev === undefined) return matches ? { type: 'ADDED', object: obj } : undefined;
  if (matches) return { type: prevMatches ? 'MODIFIED' : 'ADDED', object: obj };
  if (!prevMatches) return undefined;
  // The cache's objects are shared and frozen: the stamped one is a copy.
  const last = { ...prev, metadata: { ...metaOf(prev), resourceVersion: String(event.kv.modRevision) } };
  return { type: 'DELETED', object: last };
}
