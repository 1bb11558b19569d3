// One Store per served resource over one Storage, wired together: namespaced stores look
// namespaces up for NamespaceLifecycle admission, every store asks the admission plugins
// (LimitRanger) about its writes, and the namespaces store drives the in-process namespace
// deleter. The runtime routes requests to `storeFor(group, version, plural)`. One
// cacher holds a watch cache per storage prefix for all of them; it starts loading at once, in
// the background, so that watches from versions written after start-up find them in its history.
// Kinds with a time to live (Events) get an expirer that deletes them once it has passed.

import { isStatusError } from '../errors/status-error.js';
import type { Storage } from '../storage/interface.js';
import type { AdmissionPlugin } from './admission/admission.js';
import { limitRanger } from './admission/limit-ranger.js';
import { serviceAccountAdmission } from './admission/service-account.js';
import { Cacher, type CacherOptions } from './cacher/cacher.js';
import { CacherStorage } from './cacher/cacher-storage.js';
import { decodeFromCache } from './cacher/serialization-cache.js';
import { Codec } from './codec.js';
import type { ResourceDefinition } from './definition.js';
import { ConvertingStorage } from './converting-storage.js';
import { ServingStorage } from './custom-resources/serving-storage.js';
import { DirectStorage } from './direct-storage.js';
import { collectionPrefix } from './keys.js';
import { ObjectExpirer } from './expirer.js';
import { listObjects } from './list.js';
import { NamespaceDeleter } from './namespace-deleter.js';
import type { NamespaceLookup } from './namespace-lifecycle.js';
import type { KubeObject } from '../machinery/object.js';
import type { ResourceStorage } from './resource-storage.js';
import { Store } from './store.js';
import { strategiesFor } from './strategies/index.js';
import { registerStoredViews } from './stored-form.js';
import { virtualResourceFor, type VirtualContext, type VirtualResource } from './virtual/index.js';

export interface ResourceRegistryOptions {
  /** Options of the watch caches; false serves every read and watch from the store. */
  watchCache?: CacherOptions | false;
  /**
   * Feature gates, for dropping gated fields from writes. Absent, or a gate the set does not
   * know: the field gate counts as off.
   */
  featureGates?: { enabled(gate: string): boolean; isKnown?(gate: string): boolean };
  /**
   * Hears of each disagreement between a declared rule and the hand-written check it shadows
   * (DeclarativeValidation), with kube's text: to be logged and counted.
   */
  onDeclarativeValidationMismatch?: (detail: string) => void;
  /** --event-ttl: Events (which declare it as their time to live) go this long after their last write. 0 or absent: never. */
  eventTTLMs?: number;
  /**
   * The ServiceAccount admission plugin (pods get a service account and its token volume). Off
   * for a bare registry, whose namespaces have no controller making their `default` account.
   */
  serviceAccountAdmission?: boolean;
  /** Admission plugins the API adds after the registry's own (RBAC escalation prevention). */
  admission?: readonly AdmissionPlugin[];
  /** What virtual views report on (ComponentStatus: the store); none for a bare registry. */
  virtualContext?: VirtualContext;
}

/** What changed in what the registry serves: resources added at run time, or taken away. */
export interface RegistryChange {
  added: readonly ResourceDefinition[];
  removed: readonly ResourceDefinition[];
}

export type RegistryListener = (change: RegistryChange) => void;

/** The resources one owner (a CustomResourceDefinition, by name) has the registry serve. */
interface DynamicResources {
  definitions: ResourceDefinition[];
  /** The registry keys this owner holds (a key a built-in or another owner held first is not one). */
  keys: string[];
  /** Their storages, whose watches end when the owner's serving is rebuilt or removed. */
  storages: ServingStorage[];
}

export interface ServeOptions {
  /**
   * Whether what the owner served before is torn down, ending the watches opened on it (kube
   * rebuilds a CRD's serving info when its spec or accepted names change); otherwise they go on.
   */
  endWatches?: boolean;
}

export class ResourceRegistry {
  private readonly stores = new Map<string, Store>();
  private readonly virtuals = new Map<string, VirtualResource>();
  readonly namespaceDeleter?: NamespaceDeleter;
  readonly cacher?: Cacher;
  readonly expirers: ObjectExpirer[] = [];
  private readonly builtIn: readonly ResourceDefinition[];
  private readonly dynamic = new Map<string, DynamicResources>();
  private served: readonly ResourceDefinition[];
  /** The API groups of `served` ('' for the core group), kept with it. */
  private groups: ReadonlySet<string>;
  private readonly listeners = new Set<RegistryListener>();
  private readonly lookupNamespace?: NamespaceLookup;
  private readonly admission: AdmissionPlugin[];
  private readonly gateEnabled?: (gate: string) => boolean;
  private readonly reportMismatch?: (detail: string) => void;
  /** serve and unserve calls run one at a time, in order. */
  private changing: Promise<unknown> = Promise.resolve();

  constructor(
    readonly storage: Storage,
    definitions: readonly ResourceDefinition[],
    options: ResourceRegistryOptions = {},
  ) {
    this.builtIn = definitions;
    this.served = definitions;
    this.groups = groupsOf(definitions);
    const nsDef = definitions.find((d) => d.group === '' && d.plural === 'namespaces');
    if (options.watchCache !== false) {
      this.cacher = new Cacher(storage, definitions.filter((d) => !d.virtual).map((d) => collectionPrefix(d)), options.watchCache ?? {});
    }
    // Every namespaced create looks its namespace up. Like kube-apiserver's NamespaceLifecycle,
    // which reads an informer's cache, read the watch cache first (its objects are decoded once
    // per version) and storage only on a miss (a namespace made an instant ago on another replica).
    const nsCache = nsDef && this.cacher?.cacheFor(collectionPrefix(nsDef));
    const lookup = nsDef
      ? (name: string): KubeObject | undefined | Promise<KubeObject | undefined> => {
          const store = this.storeFor('', nsDef.version, 'namespaces')!;
          const key = store.key(undefined, name);
          const cached = this.cacher?.ready ? nsCache?.get(key) : undefined;
          if (cached) return decodeFromCache(store.storage.codec, cached);
          return store.storage.get(key, { ignoreNotFound: true });
        }
      : undefined;
    this.lookupNamespace = lookup;
    registerStoredViews(definitions);
    const gates = options.featureGates;
    const enabled = gates ? (gate: string): boolean => gates.isKnown?.(gate) !== false && gates.enabled(gate) : undefined;
    this.gateEnabled = enabled;
    this.reportMismatch = options.onDeclarativeValidationMismatch;
    const admission = [...this.admissionPlugins(definitions, enabled, options.serviceAccountAdmission === true), ...(options.admission ?? [])];
    this.admission = admission;
    for (const def of definitions) {
      if (def.virtual) {
        this.virtuals.set(registryKey(def.group, def.version, def.plural), virtualResourceFor(def, options.virtualContext));
        continue;
      }
      const strategies = strategiesFor(def, enabled, options.onDeclarativeValidationMismatch);
      const resourceStorage = this.resourceStorage(storage, new Codec(def, strategies.defaultOnRead));
      const store = new Store({ storage: resourceStorage, definition: def, strategies, namespaces: lookup, admission });
      this.stores.set(registryKey(def.group, def.version, def.plural), store);
    }
    void this.cacher?.start();
    const ttls = { eventTTLMs: options.eventTTLMs ?? 0 };
    const expiring = new Map<string, number>();
    for (const store of this.stores.values()) {
      const ttlMs = store.strategies.timeToLive?.(ttls) ?? 0;
      if (ttlMs > 0) expiring.set(collectionPrefix(store.definition), ttlMs);
    }
    for (const [prefix, ttlMs] of expiring) {
      const expirer = new ObjectExpirer(storage, prefix, ttlMs);
      this.expirers.push(expirer);
      // A store that cannot be read now is retried by the next request's failure, not here.
      void expirer.start().catch(() => undefined);
    }
    if (nsDef) {
      const nsStore = this.storeFor('', nsDef.version, 'namespaces')!;
      this.namespaceDeleter = new NamespaceDeleter(nsStore, () => this.namespacedStores());
      nsStore.hooks.onDeletionPending = (obj) => this.namespaceDeleter!.enqueue(obj);
    }
  }

  /**
   * kube-apiserver's admission plugins that apply to what is served, in its order: LimitRanger
   * when LimitRanges are served, then ServiceAccount when asked for. LimitRanger reads a
   * namespace's LimitRanges as a consistent list through the watch cache, so a LimitRange is
   * enforced from the moment its create returns.
   */
  private admissionPlugins(
    definitions: readonly ResourceDefinition[],
    enabled: ((gate: string) => boolean) | undefined,
    serviceAccounts: boolean,
  ): AdmissionPlugin[] {
    const plugins: AdmissionPlugin[] = [];
    const lrDef = definitions.find((d) => d.group === '' && d.plural === 'limitranges' && !d.virtual);
    if (lrDef) {
      const list = async (namespace: string): Promise<readonly KubeObject[]> => {
        const store = this.storeFor('', lrDef.version, 'limitranges');
        return store ? (await listObjects(store, namespace)).items : [];
      };
      plugins.push(limitRanger({ list, featureEnabled: enabled }));
    }
    const saDef = definitions.find((d) => d.group === '' && d.plural === 'serviceaccounts' && !d.virtual);
    if (serviceAccounts && saDef) {
      const get = async (namespace: string, name: string): Promise<KubeObject | undefined> => {
        try {
          return await this.storeFor('', saDef.version, 'serviceaccounts')!.get(namespace, name);
        } catch (err) {
          if (isStatusError(err) && err.code === 404) return undefined;
          throw err;
        }
      };
      plugins.push(serviceAccountAdmission({ get }));
    }
    return plugins;
  }

  /** The resource's storage: the watch cache in front of the backend when the registry runs one. */
  private resourceStorage(storage: Storage, codec: Codec): ResourceStorage {
    const direct = new DirectStorage(storage, codec);
    const cache = this.cacher?.cacheFor(collectionPrefix(codec.definition));
    return this.cacher && cache ? new CacherStorage(direct, this.cacher, cache) : direct;
  }

  /** Every resource served now: the built-in ones, then those added at run time. */
  get definitions(): readonly ResourceDefinition[] {
    return this.served;
  }

  /** The resources added at run time (custom resources), in the order they were added. */
  get addedDefinitions(): readonly ResourceDefinition[] {
    return this.served.slice(this.builtIn.length);
  }

  /**
   * Whether a resource of `group` ('' the core group) is served now. kube-apiserver's router has a
   * web service for each served group, which answers every path below it; custom resources bring
   * their groups and take them away.
   */
  servesGroup(group: string): boolean {
    return this.groups.has(group);
  }

  /** Hears of every change of what is served (discovery, OpenAPI, the garbage collector); returns the unsubscribe. */
  onChange(listener: RegistryListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Serves `definitions` for `owner` from now on, in place of what it served before (kube's
   * crdHandler swapping a CRD's storage on change). Each resource's watch cache is loaded before
   * its store is visible, so the first request already reads from it. A resource a built-in kind
   * or another owner serves stays theirs, as kube-apiserver's own routes win over a CRD's.
   */
  serve(owner: string, definitions: readonly ResourceDefinition[], options: ServeOptions = {}): Promise<void> {
    return this.serially(() => this.replace(owner, definitions, options.endWatches ?? false));
  }

  /** Stops serving what `owner` served: its paths are 404 and open watches on them end. */
  unserve(owner: string): Promise<void> {
    return this.serially(() => this.replace(owner, [], true));
  }

  private serially(change: () => Promise<void>): Promise<void> {
    const next = this.changing.then(change, change);
    this.changing = next.catch(() => undefined);
    return next;
  }

  private async replace(owner: string, definitions: readonly ResourceDefinition[], endWatches: boolean): Promise<void> {
    const before = this.dynamic.get(owner);
    if (!before && definitions.length === 0) return;
    const ownKeys = new Set(before?.keys ?? []);
    // kube-apiserver's own web service for a group version answers every path below it, so a
    // CRD's resource in a group version a built-in kind serves is never reached there.
    const builtInGroupVersions = new Set(this.builtIn.map((d) => `${d.group}/${d.version}`));
    const admitted = definitions.filter((def) => {
      const key = registryKey(def.group, def.version, def.plural);
      if (builtInGroupVersions.has(`${def.group}/${def.version}`)) return false;
      return !this.virtuals.has(key) && (!this.stores.has(key) || ownKeys.has(key));
    });
    // Its web service for a group answers every path below /apis/<group> too: a CRD version new to
    // a built-in group is listed in discovery (its definition is served) but has no store.
    const builtInGroups = new Set(this.builtIn.map((d) => d.group));
    const reached = admitted.filter((def) => !builtInGroups.has(def.group));
    if (this.cacher) for (const prefix of new Set(reached.map((d) => collectionPrefix(d)))) await this.cacher.addPrefix(prefix);
    const keys: string[] = [];
    const storages: ServingStorage[] = [];
    for (const def of reached) {
      const key = registryKey(def.group, def.version, def.plural);
      registerStoredViews([def]);
      const strategies = strategiesFor(def, this.gateEnabled, this.reportMismatch);
      const plain = this.resourceStorage(this.storage, new Codec(def, strategies.defaultOnRead));
      const serving = new ServingStorage(def.conversion ? new ConvertingStorage(plain, def.conversion) : plain);
      this.stores.set(key, new Store({ storage: serving, definition: def, strategies, namespaces: this.lookupNamespace, admission: this.admission }));
      keys.push(key);
      storages.push(serving);
    }
    const kept = new Set(keys);
    for (const key of ownKeys) if (!kept.has(key)) this.stores.delete(key);
    // Watches kept across the change now belong to the new generation, whose teardown ends them.
    if (!endWatches && before) storages.push(...before.storages);
    if (admitted.length > 0) this.dynamic.set(owner, { definitions: admitted, keys, storages });
    else this.dynamic.delete(owner);
    this.served = [...this.builtIn, ...[...this.dynamic.values()].flatMap((d) => d.definitions)];
    this.groups = groupsOf(this.served);
    if (this.cacher) {
      const inUse = new Set(this.served.filter((d) => !d.virtual).map((d) => collectionPrefix(d)));
      for (const def of before?.definitions ?? []) {
        const prefix = collectionPrefix(def);
        if (!inUse.has(prefix)) this.cacher.removePrefix(prefix);
      }
    }
    if (endWatches) for (const storage of before?.storages ?? []) storage.tearDown();
    const change = { added: admitted, removed: before?.definitions ?? [] };
    for (const listener of this.listeners) listener(change);
  }

  /** Ends the watches served from the watch caches cleanly; the caches keep running. */
  terminateWatches(): void {
    this.cacher?.terminateWatchers();
  }

  /** Stops the watch caches (their watchers end). The storage is the caller's to close. */
  close(): void {
    this.cacher?.close();
    for (const expirer of this.expirers) expirer.close();
  }

  /** Whether built-in kinds serve `group`: then kube-apiserver's web service for it claims every path below /apis/<group>. */
  servesBuiltInGroup(group: string): boolean {
    return this.builtIn.some((d) => d.group === group);
  }

  storeFor(group: string, version: string, plural: string): Store | undefined {
    return this.stores.get(registryKey(group, version, plural));
  }

  /** A virtual kind (nothing stored: an operation or a view) served at this group, version and plural. */
  virtualFor(group: string, version: string, plural: string): VirtualResource | undefined {
    return this.virtuals.get(registryKey(group, version, plural));
  }

  /** Every served resource's store (each version of a kind has its own). */
  allStores(): Store[] {
    return [...this.stores.values()];
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

  /**
   * Objects per stored resource as the watch caches hold them (apiserver_storage_objects, labelled
   * as kube labels it: `configmaps`, `roles.rbac.authorization.k8s.io`); none before a cache is ready.
   */
  *objectCounts(): Iterable<[string, number]> {
    const cacher = this.cacher;
    if (!cacher?.ready) return;
    const seen = new Set<string>();
    for (const def of this.definitions) {
      if (def.virtual) continue;
      const prefix = collectionPrefix(def);
      if (seen.has(prefix)) continue;
      seen.add(prefix);
      const cache = cacher.cacheFor(prefix);
      if (cache) yield [def.group ? `${def.plural}.${def.group}` : def.plural, cache.size];
    }
  }
}

function groupsOf(definitions: readonly ResourceDefinition[]): ReadonlySet<string> {
  return new Set(definitions.map((d) => d.group));
}

function registryKey(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}
