// The smallest useful informer: list, then watch from the list's resourceVersion, keeping a
// local cache keyed by namespace/name and telling handlers what changed. A 410 (or any watch
// failure) lists again and reconciles the cache against the new list, as client-go's reflector
// does with its Replace.

import type { KubeList, KubeObject } from './resource.js';
import type { ListOptions, WatchEvent, WatchOptions } from './options.js';
import { sleep } from './transport.js';

export interface ListWatch<T extends KubeObject> {
  list(options?: ListOptions): Promise<KubeList<T>>;
  watch(options?: WatchOptions): AsyncIterable<WatchEvent<T>>;
}

export interface InformerHandlers<T> {
  onAdd?(obj: T): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
  /** A failed list or watch; the informer tries again after a pause either way. */
  onError?(err: unknown): void;
}

export interface InformerOptions {
  labelSelector?: string;
  fieldSelector?: string;
  signal?: AbortSignal;
}

export interface Informer<T> {
  /** The objects as last seen, by `namespace/name` (or `name` when cluster-scoped). */
  readonly cache: ReadonlyMap<string, T>;
  /** Resolves once the first list is in the cache. */
  readonly synced: Promise<void>;
  stop(): void;
}

const RETRY_DELAY_MS = 1000;

export function keyOf(obj: KubeObject): string {
  const m = obj.metadata ?? {};
  return m.namespace ? `${m.namespace}/${m.name}` : `${m.name}`;
}

export function informer<T extends KubeObject>(source: ListWatch<T>, handlers: InformerHandlers<T>, options: InformerOptions = {}): Informer<T> {
  const cache = new Map<string, T>();
  const stopper = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, stopper.signal]) : stopper.signal;
  const selectors = { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector };
  let markSynced!: () => void;
  const synced = new Promise<void>((resolve) => (markSynced = resolve));

  /** The cache becomes the list; handlers hear of every difference. */
  function replace(items: T[]): void {
    const seen = new Set<string>();
    for (const item of items) {
      const key = keyOf(item);
      seen.add(key);
      const old = cache.get(key);
      cache.set(key, item);
      if (!old) handlers.onAdd?.(item);
      else if (old.metadata?.resourceVersion !== item.metadata?.resourceVersion) handlers.onUpdate?.(old, item);
    }
    for (const [key, old] of cache) {
      if (seen.has(key)) continue;
      cache.delete(key);
      handlers.onDelete?.(old);
    }
  }

  function apply(event: WatchEvent<T>): void {
    if (event.type === 'BOOKMARK') return;
    const key = keyOf(event.object);
    const old = cache.get(key);
    if (event.type === 'DELETED') {
      cache.delete(key);
      handlers.onDelete?.(event.object);
      return;
    }
    cache.set(key, event.object);
    if (old) handlers.onUpdate?.(old, event.object);
    else handlers.onAdd?.(event.object);
  }

  async function run(): Promise<void> {
    while (!signal.aborted) {
      try {
        const list = await source.list({ ...selectors, signal });
        replace(list.items);
        markSynced();
        for await (const event of source.watch({ ...selectors, resourceVersion: list.metadata?.resourceVersion, allowWatchBookmarks: true, signal })) apply(event);
      } catch (err) {
        if (signal.aborted) return;
        handlers.onError?.(err);
        // An ExpiredError needs only the relist below; anything else waits first.
        if ((err as { code?: number }).code !== 410) await sleep(RETRY_DELAY_MS, signal).catch(() => undefined);
      }
    }
  }

  void run();
  return { cache, synced, stop: () => stopper.abort() };
}
