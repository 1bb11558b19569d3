// One Store per served resource over one Storage, wired together: namespaced stores look
// namespaces up for NamespaceLifecycle admission, and the namespaces store drives the in-process
// namespace deleter. The runtime routes requests to `storeFor(group, version, plural)`.

import type { Storage } from '../storage/interface.js';
import type { ResourceDefinition } from './definition.js';
import { NamespaceDeleter } from './namespace-deleter.js';
import type { KubeObject } from './object.js';
import { Store } from './store.js';
import { strategiesFor } from './strategies/index.js';

export class ResourceRegistry {
  private readonly stores = new Map<string, Store>();
  readonly namespaceDeleter?: NamespaceDeleter;

  constructor(
    readonly storage: Storage,
    readonly definitions: readonly ResourceDefinition[],
  ) {
    const nsDef = definitions.find((d) => d.group === '' && d.plural === 'namespaces');
    const lookup = nsDef
      ? async (name: string): Promise<KubeObject | undefined> => {
          const store = this.storeFor('', nsDef.version, 'namespaces');
          const kv = await storage.get(store!.key(undefined, name));
          return kv ? store!.decode(kv.value, kv.modRevision) : undefined;
        }
      : undefined;
    for (const def of definitions) {
      const store = new Store({ storage, definition: def, strategies: strategiesFor(def), namespaces: lookup });
      this.stores.set(registryKey(def.group, def.version, def.plural), store);
    }
    if (nsDef) {
      const nsStore = this.storeFor('', nsDef.version, 'namespaces')!;
      this.namespaceDeleter = new NamespaceDeleter(nsStore, () => this.namespacedStores());
      nsStore.hooks.onDeletionPending = (obj) => this.namespaceDeleter!.enqueue(obj);
    }
  }

  storeFor(group: string, version: string, plural: string): Store | undefined {
    return this.stores.get(registryKey(group, version, plural));
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
