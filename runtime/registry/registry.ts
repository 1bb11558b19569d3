// One Store per served resource over one Storage, wired together: namespaced stores look
// namespaces up for NamespaceLifecycle admission, and the namespaces store drives the in-process
// namespace deleter. The runtime routes requests to `storeFor(group, version, plural)`. One
// cacher holds a watch cache per storage prefix for all of them; it starts loading at once, in
// the background, so that watches from versions written after start-up find them in its history.

import type { Storage } from '../storage/interface.js';
import { Cacher, type CacherOptions } from './cacher/cacher.js';
import type { ResourceDefinition } from './definition.js';
import { collectionPrefix } from './keys.js';
import { NamespaceDeleter } from './namespace-deleter.js';
import type { KubeObject } from './object.js';
import { Store } from './store.js';
import { strategiesFor } from './strategies/index.js';
import { virtualResourceFor, type VirtualResource } from './virtual/index.js';

export interface ResourceRegistryOptions {
  /** Options of the watch caches; false serves every read and watch from the store. */
  watchCache?: CacherOptions | false;
  /**
   * Feature gates, for dropping gated fields from writes. Absent, or a gate the set does not
   * know: the field gate counts as off.
   */
  featureGates?: { enabled(gate: string): boolean; isKnown?(gate: string): boolean };
}

export class ResourceRegistry {
  private readonly stores = new Map<string, Store>();
  private readonly virtuals = new Map<string, VirtualResource>();
  readonly namespaceDeleter?: NamespaceDeleter;
  readonly cacher?: Cacher;

  constructor(
    readonly storage: Storage,
    readonly definitions: readonly ResourceDefinition[],
    options: ResourceRegistryOptions = {},
  ) {
    const nsDef = definitions.find((d) => d.group === '' && d.plural === 'namespaces');
    const lookup = nsDef
      ? async (name: string): Promise<KubeObject | undefined> => {
          const store = this.storeFor('', nsDef.version, 'namespaces');
          const kv = await storage.get(store!.key(undefined, name));
          return kv ? store!.decode(kv.value, kv.modRevision) : undefined;
        }
      : undefined;
    const gates = options.featureGates;
    const enabled = gates ? (gate: string): boolean => gates.isKnown?.(gate) !== false && gates.enabled(gate) : undefined;
    for (const def of definitions) {
      if (def.virtual) {
        this.virtuals.set(registryKey(def.group, def.version, def.plural), virtualResourceFor(def));
        continue;
      }
      const store = new Store({ storage, definition: def, strategies: strategiesFor(def, enabled), namespaces: lookup });
      this.stores.set(registryKey(def.group, def.version, def.plural), store);
    }
    if (options.watchCache !== false) {
      this.cacher = new Cacher(storage, definitions.filter((d) => !d.virtual).map((d) => collectionPrefix(d)), options.watchCache ?? {});
      for (const store of this.stores.values()) store.cacher = this.cacher;
      void this.cacher.start();
    }
    if (nsDef) {
      const nsStore = this.storeFor('', nsDef.version, 'namespaces')!;
      this.namespaceDeleter = new NamespaceDeleter(nsStore, () => this.namespacedStores());
      nsStore.hooks.onDeletionPending = (obj) => this.namespaceDeleter!.enqueue(obj);
    }
  }

  /** Stops the watch caches (their watchers end). The storage is the caller's to close. */
  close(): void {
    this.cacher?.close();
  }

  storeFor(group: string, version: string, plural: string): Store | undefined {
    return this.stores.get(registryKey(group, version, plural));
  }

  /** A virtual kind (nothing stored, create only) served at this group, version and plural. */
  virtualFor(group: string, version: string, plural: string): VirtualResource | undefined {
    return this.virtuals.get(registryKey(group, version, plural));
  }

  /** One store per storage prefix: several versions of a kind share their objects. */
  namespacedStores(): Store[] {
    const seen = new Set<string>();
    const out: Store[] = [];
    for (const store of this.stores.values()) {
      if (!store.definition.namespaced || seen.has(store.definition.storagePrefix)) continue;
      seen.add(store.definition.storagePrefix);
      out.push(store);
    }
    return out;
  }
}

function registryKey(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}
