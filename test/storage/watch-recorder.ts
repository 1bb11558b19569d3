// Records what a storage watch delivers, so tests can wait for a number of events (bounded by
// the test timeout, never by a sleep) and then assert on exactly what arrived.

import type { Storage, StorageError, StorageWatchEvent, Watcher, WatchOptions } from '../../runtime/storage/interface.js';

export interface WatchRecorder {
  readonly events: StorageWatchEvent[];
  readonly errors: StorageError[];
  readonly watcher: Watcher;
  /** Resolves once at least `n` events arrived (rejects if the watch fails first). */
  untilEvents(n: number): Promise<StorageWatchEvent[]>;
  /** Resolves with the first error the watch reports. */
  untilError(): Promise<StorageError>;
}

export const recordWatch = (store: Storage, key: string, options: WatchOptions): WatchRecorder => {
  const events: StorageWatchEvent[] = [];
  const errors: StorageError[] = [];
  let wake = (): void => {};
  const changed = (): Promise<void> => new Promise((resolve) => (wake = resolve));
  const watcher = store.watch(key, options, {
    onEvent: (event) => {
      events.push(event);
      wake();
    },
    onError: (error) => {
      errors.push(error);
      wake();
    },
  });
  return {
    events,
    errors,
    watcher,
    async untilEvents(n) {
      while (events.length < n) {
        if (errors.length > 0) throw errors[0];
        await changed();
      }
      return events.slice(0, n);
    },
    async untilError() {
      while (errors.length === 0) await changed();
      return errors[0]!;
    },
  };
};
