// kube-controller-manager's garbagecollector: follows every served kind through an informer,
// keeps the owner graph (owner-graph.ts) and works its two queues as attemptToDeleteItem and
// attemptToOrphan do. Whether an owner is gone is always confirmed by a live (Most Recent) read,
// never by the graph alone, so informers that start in any order cannot get an object collected
// early. Writes go through the registry's stores with the deleting object's uid and
// resourceVersion as preconditions; a conflict or a failure is retried after a back-off.

import { isStatusError } from '../errors/status-error.js';
import { getObject } from '../registry/get.js';
import type { ResourceRegistry } from '../registry/registry.js';
import type { Store } from '../registry/store.js';
import { metaOf, nowRFC3339, type KubeObject } from '../machinery/object.js';
import { CONTROLLER_MANAGER_USER_AGENT } from './ephemeral-volume.js';
import { GcQueue } from './gc-queue.js';
import { Informer } from './informer.js';
import { FINALIZER_FOREGROUND, FINALIZER_ORPHAN } from '../registry/gc-finalizers.js';
import { GraphNode, OwnerGraph, ownerReferencesOf, type Identity, type OwnerReference, type Work } from './owner-graph.js';

const USER_AGENT = CONTROLLER_MANAGER_USER_AGENT.replace(/kubernetes\/.*$/, 'kubernetes/garbage-collector');
/** kube's absentOwnerCache holds 500 owners; enough to spare a lookup per dependent of one owner. */
const ABSENT_OWNERS = 500;

type Outcome = 'done' | 'retry';

/** A reference to a kind this server does not serve: never resolved here, retried after a back-off. */
class UnknownKind extends Error {}

export class GarbageCollector {
  readonly graph: OwnerGraph;
  private readonly byKind = new Map<string, Store>();
  /** One informer per storage prefix followed. */
  private readonly informers = new Map<string, Informer>();
  private unsubscribe?: () => void;
  private readonly deletes: GcQueue<GraphNode>;
  private readonly orphans: GcQueue<GraphNode>;
  private readonly absentOwners = new Map<string, true>();

  constructor(private readonly registry: ResourceRegistry) {
    for (const store of registry.allStores()) this.byKind.set(`${store.apiVersion}/${store.definition.kind}`, store);
    this.graph = new OwnerGraph((apiVersion, kind) => {
      const store = this.byKind.get(`${apiVersion}/${kind}`);
      return store && { namespaced: store.definition.namespaced };
    });
    this.deletes = new GcQueue((node) => this.attemptToDelete(node));
    this.orphans = new GcQueue((node) => this.attemptToOrphan(node));
  }

  start(): void {
    for (const store of this.registry.allStores()) this.follow(store);
    // Custom resources join the graph when their CRD is served and leave it when it goes.
    this.unsubscribe = this.registry.onChange(({ added, removed }) => {
      for (const def of removed) {
        this.byKind.delete(`${def.group ? `${def.group}/` : ''}${def.version}/${def.kind}`);
        if (!this.registry.definitions.some((d) => d.storagePrefix === def.storagePrefix)) {
          this.informers.get(def.storagePrefix)?.close();
          this.informers.delete(def.storagePrefix);
        }
      }
      for (const def of added) {
        const store = this.registry.storeFor(def.group, def.version, def.plural);
        if (!store) continue;
        this.byKind.set(`${store.apiVersion}/${def.kind}`, store);
        this.follow(store);
      }
    });
  }

  /** Follows the objects of a store's storage prefix, once per prefix (every version of a kind shares them). */
  private follow(store: Store): void {
    if (this.informers.has(store.definition.storagePrefix)) return;
    const { apiVersion } = store;
    const kind = store.definition.kind;
    // Transient: the graph keeps identities and references, never objects, so following every
    // kind must not make the watch cache keep every object decoded.
    const informer = new Informer(store, {
      onList: (objects) => {
        const present = new Set(objects.map((o) => metaOf(o).uid));
        // Deletions missed while the watch was down are caught up here.
        for (const node of [...this.graph.nodes.values()]) {
          if (!node.virtual && node.identity.kind === kind && this.byKind.get(`${node.identity.apiVersion}/${kind}`)?.definition.storagePrefix === store.definition.storagePrefix && !present.has(node.identity.uid)) {
            this.schedule(this.graph.forget({ metadata: { uid: node.identity.uid } }));
          }
        }
        for (const obj of objects) this.schedule(this.graph.observe(obj, apiVersion, kind));
      },
      onAdd: (obj) => this.schedule(this.graph.observe(obj, apiVersion, kind)),
      onUpdate: (obj) => this.schedule(this.graph.observe(obj, apiVersion, kind)),
      onDelete: (obj) => this.schedule(this.graph.forget(obj)),
    }, undefined, true);
    this.informers.set(store.definition.storagePrefix, informer);
    void informer.start();
  }

  async idle(): Promise<void> {
    await Promise.all([this.deletes.idle(), this.orphans.idle()]);
  }

  close(): void {
    this.unsubscribe?.();
    for (const informer of this.informers.values()) informer.close();
    this.deletes.close();
    this.orphans.close();
  }

  private schedule(work: Work[]): void {
    for (const item of work) {
      if (item.queue === 'delete') this.deletes.add(item.node.identity.uid, item.node);
      else if (item.queue === 'orphan') this.orphans.add(item.node.identity.uid, item.node);
      else if (item.queue === 'invalidNamespace') void this.reportInvalidNamespace(item.node, item.owner);
    }
  }

  private storeOf(identity: { apiVersion: string; kind: string }): Store {
    const store = this.byKind.get(`${identity.apiVersion}/${identity.kind}`);
    if (!store) throw new UnknownKind(`${identity.apiVersion}, Kind=${identity.kind}`);
    return store;
  }

  /** The object now, or undefined when it is gone (or another object holds its name). */
  private async live(identity: Identity, store: Store): Promise<KubeObject | undefined> {
    try {
      const obj = await getObject(store, store.definition.namespaced ? identity.namespace : undefined, identity.name);
      return metaOf(obj).uid === identity.uid ? obj : undefined;
    } catch (e) {
      if (isStatusError(e) && e.code === 404) return undefined;
      throw e;
    }
  }

  private async attemptToDelete(node: GraphNode): Promise<Outcome> {
    // A node replaced or forgotten since it was queued has nothing left to do.
    if (this.graph.nodes.get(node.identity.uid) !== node) return 'done';
    if (node.beingDeleted && !node.deletingDependents) return 'done';
    const store = this.storeOf(node.identity);
    // A namespaced owner named by a cluster-scoped dependent has no namespace to be looked up in.
    if (node.virtual && store.definition.namespaced && !node.identity.namespace) return 'done';
    const latest = await this.live(node.identity, store);
    if (!latest) {
      if (node.virtual) this.absentOwners.set(absentKey(node.identity), true);
      this.schedule(this.graph.absent(node));
      return 'done';
    }
    if (node.virtual) {
      // The owner exists: from now on the graph knows it from its live state.
      this.schedule(this.graph.observe(latest, node.identity.apiVersion, node.identity.kind));
      return 'done';
    }
    if (node.deletingDependents) return this.processDeletingDependents(node, store);
    const refs = ownerReferencesOf(latest);
    if (refs.length === 0) return 'done';
    const classes = await this.classify(node, refs);
    if (classes === 'invalid') return 'done';
    const { solid, dangling, waiting } = classes;
    if (solid.length > 0) {
      if (dangling.length === 0 && waiting.length === 0) return 'done';
      // Waiting owners are dropped too: else they would wait for this dependent forever.
      const gone = new Set([...dangling, ...waiting].map((r) => r.uid));
      return this.patchOwnerReferences(node, store, (r) => (gone.has(r.uid) ? undefined : r));
    }
    const meta = metaOf(latest);
    if (waiting.length > 0 && node.dependents.size > 0) {
      // An owner and a dependent both deleting in the foreground may be a cycle: this one stops
      // blocking its owners, then goes in the foreground itself.
      if ([...node.dependents].some((d) => d.deletingDependents)) {
        const unblocked = await this.patchOwnerReferences(node, store, (r) => (r.blockOwnerDeletion ? { ...r, blockOwnerDeletion: false } : r));
        if (unblocked === 'retry') return 'retry';
      }
      return this.deleteObject(node, store, meta.resourceVersion, 'Foreground');
    }
    const finalizers = meta.finalizers ?? [];
    const policy = finalizers.includes(FINALIZER_ORPHAN) ? 'Orphan' : finalizers.includes(FINALIZER_FOREGROUND) ? 'Foreground' : 'Background';
    return this.deleteObject(node, store, meta.resourceVersion, policy);
  }

  private async classify(node: GraphNode, refs: OwnerReference[]): Promise<{ solid: OwnerReference[]; dangling: OwnerReference[]; waiting: OwnerReference[] } | 'invalid'> {
    const solid: OwnerReference[] = [];
    const dangling: OwnerReference[] = [];
    const waiting: OwnerReference[] = [];
    for (const ref of refs) {
      const store = this.storeOf(ref);
      const namespaced = store.definition.namespaced;
      // A cluster-scoped object cannot be owned by a namespaced one: kube leaves it alone for good.
      if (namespaced && !node.identity.namespace) return 'invalid';
      if (this.absentOwners.has(absentKey({ ...ref, namespace: namespaced ? node.identity.namespace : '' }))) {
        dangling.push(ref);
        continue;
      }
      const identity = { ...ref, namespace: namespaced ? node.identity.namespace : '' };
      const owner = await this.live(identity, store);
      if (!owner) {
        this.rememberAbsent(absentKey(identity));
        dangling.push(ref);
      } else if (metaOf(owner).deletionTimestamp && (metaOf(owner).finalizers ?? []).includes(FINALIZER_FOREGROUND)) {
        waiting.push(ref);
      } else {
        solid.push(ref);
      }
    }
    return { solid, dangling, waiting };
  }

  private rememberAbsent(key: string): void {
    this.absentOwners.delete(key);
    this.absentOwners.set(key, true);
    if (this.absentOwners.size > ABSENT_OWNERS) this.absentOwners.delete(this.absentOwners.keys().next().value as string);
  }

  private async processDeletingDependents(node: GraphNode, store: Store): Promise<Outcome> {
    const blocking = node.blockingDependents();
    if (blocking.length === 0) return this.removeFinalizer(node, store, FINALIZER_FOREGROUND);
    for (const dependent of blocking) if (!dependent.deletingDependents) this.deletes.add(dependent.identity.uid, dependent);
    return 'done';
  }

  private async attemptToOrphan(owner: GraphNode): Promise<Outcome> {
    const results = await Promise.all(
      [...owner.dependents].filter((d) => d !== owner).map(async (dependent) => {
        try {
          return await this.patchOwnerReferences(dependent, this.storeOf(dependent.identity), (r) => (r.uid === owner.identity.uid ? undefined : r));
        } catch {
          return 'retry' as const;
        }
      }),
    );
    if (results.includes('retry')) return 'retry';
    return this.removeFinalizer(owner, this.storeOf(owner.identity), FINALIZER_ORPHAN);
  }

  private async deleteObject(node: GraphNode, store: Store, resourceVersion: string | undefined, propagationPolicy: string): Promise<Outcome> {
    const { namespace, name, uid } = node.identity;
    try {
      await store.delete(store.definition.namespaced ? namespace : undefined, name, { propagationPolicy, preconditions: { uid, resourceVersion } });
      return 'done';
    } catch (e) {
      if (isStatusError(e) && e.code === 404) return 'done';
      if (isStatusError(e) && e.code === 409) return 'retry';
      throw e;
    }
  }

  /** Rewrites the object's ownerReferences (each kept, changed, or dropped when `edit` says undefined). */
  private async patchOwnerReferences(node: GraphNode, store: Store, edit: (ref: OwnerReference) => OwnerReference | undefined): Promise<Outcome> {
    return this.update(node, store, (obj) => {
      const meta = metaOf(obj);
      const refs = ownerReferencesOf(obj).flatMap((r) => edit(r) ?? []);
      if (refs.length) meta.ownerReferences = refs;
      else delete meta.ownerReferences;
    });
  }

  private removeFinalizer(node: GraphNode, store: Store, finalizer: string): Promise<Outcome> {
    return this.update(node, store, (obj) => {
      const meta = metaOf(obj);
      const rest = (meta.finalizers ?? []).filter((f) => f !== finalizer);
      if (rest.length) meta.finalizers = rest;
      else delete meta.finalizers;
    });
  }

  /** A write to the object the node stands for, and no other (a namesake with another uid is left alone). */
  private async update(node: GraphNode, store: Store, change: (obj: KubeObject) => void): Promise<Outcome> {
    const { namespace, name, uid } = node.identity;
    try {
      await store.guaranteedUpdate(
        store.definition.namespaced ? namespace : undefined,
        name,
        (current) => {
          if (metaOf(current).uid !== uid) throw new StaleObject();
          change(current);
          return current;
        },
        { userAgent: USER_AGENT },
      );
      return 'done';
    } catch (e) {
      if (e instanceof StaleObject || (isStatusError(e) && e.code === 404)) return 'done';
      if (isStatusError(e) && e.code === 409) return 'retry';
      throw e;
    }
  }

  /** The Warning event kube's graph builder records on a dependent whose owner lives in another namespace. */
  private async reportInvalidNamespace(node: GraphNode, owner: OwnerReference): Promise<void> {
    const events = this.registry.storeFor('', 'v1', 'events');
    const { apiVersion, kind, namespace, name, uid } = node.identity;
    if (!events || !namespace) return;
    const now = nowRFC3339();
    const ownerText = `[${owner.apiVersion}/${owner.kind}, namespace: ${namespace}, name: ${owner.name}, uid: ${owner.uid}]`;
    try {
      await events.create(
        namespace,
        {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name: `${name}.${(BigInt(Date.now()) * 1_000_000n).toString(16)}`, namespace },
          involvedObject: { kind, namespace, name, uid, apiVersion },
          reason: 'OwnerRefInvalidNamespace',
          message: `ownerRef ${ownerText} does not exist in namespace ${JSON.stringify(namespace)}`,
          source: { component: 'garbage-collector-controller' },
          firstTimestamp: now,
          lastTimestamp: now,
          count: 1,
          type: 'Warning',
          reportingComponent: 'garbage-collector-controller',
          reportingInstance: '',
        },
        { userAgent: USER_AGENT },
      );
    } catch (e) {
      // As client-go's recorder, an event that cannot be written is dropped.
      if (!isStatusError(e)) throw e;
    }
  }
}

class StaleObject extends Error {}

function absentKey(ref: { apiVersion: string; kind: string; namespace: string; name: string; uid: string }): string {
  return `${ref.apiVersion}|${ref.kind}|${ref.namespace}|${ref.name}|${ref.uid}`;
}
