// Watch over the generic store. The resourceVersion semantics (upstream cacher.Watch: Get State
// and Start at Most Recent or Any, Start at Exact, WatchList's sendInitialEvents) are the resource
// storage's: see cacher/cacher-storage.ts; a store without watch caches (a registry made with
// watchCache false) is served by one storage watch per request (direct-storage.ts). Here: the
// request's options, and the deadline (timeoutSeconds) and the client's going away, which end it.

import { collectionPrefix } from './keys.js';
import { validateWatchOptions } from './list-options.js';
import { compilePredicate, type SelectionOptions } from './selection.js';
import type { Store } from './store.js';
import type { WatchStream } from './watch-stream.js';

export { WatchStream, toWatchEvent, type WatchEvent, type WatchEventType } from './watch-stream.js';

export interface WatchOptions extends SelectionOptions {
  resourceVersion?: string;
  resourceVersionMatch?: string;
  sendInitialEvents?: boolean;
  allowWatchBookmarks?: boolean;
  /** Ends the stream after this long, as `timeoutSeconds` asks. */
  timeoutSeconds?: number;
  /** Stops the watch when the client goes away. */
  signal?: AbortSignal;
  /** The WatchList feature gate (sendInitialEvents is refused without it). */
  watchListEnabled?: boolean;
  /** See WatchRequest.transient. */
  transient?: boolean;
}

export async function watchObjects(store: Store, namespace: string | undefined, options: WatchOptions = {}): Promise<WatchStream> {
  validateWatchOptions(options, options.watchListEnabled ?? false);
  const predicate = compilePredicate(store.strategies.main, options);
  // The deadline counts from the request, as kube-apiserver's watch context does.
  const deadline = options.timeoutSeconds !== undefined && options.timeoutSeconds > 0 ? Date.now() + options.timeoutSeconds * 1000 : undefined;
  const prefix = collectionPrefix(store.definition, store.definition.namespaced ? namespace : undefined);
  const stream = await store.storage.watch(prefix, {
    resourceVersion: options.resourceVersion,
    sendInitialEvents: options.sendInitialEvents,
    allowWatchBookmarks: options.allowWatchBookmarks,
    predicate,
    deadline,
    transient: options.transient,
  });
  bound(stream, options, deadline);
  return stream;
}

/** The deadline (timeoutSeconds) and the client's going away both end the stream. */
function bound(stream: WatchStream, options: WatchOptions, deadline: number | undefined): void {
  if (deadline !== undefined) {
    const timer = setTimeout(() => stream.stop(), Math.max(0, deadline - Date.now()));
    stream.onStop(() => clearTimeout(timer));
  }
  if (options.signal) {
    const signal = options.signal;
    if (signal.aborted) stream.stop();
    const abort = () => stream.stop();
    signal.addEventListener('abort', abort, { once: true });
    stream.onStop(() => signal.removeEventListener('abort', abort));
  }
}
