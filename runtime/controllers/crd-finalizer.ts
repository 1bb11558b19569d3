// kube's CRD finalizer (apiextensions-apiserver pkg/controller/finalizer/crd_finalizer.go): a CRD
// being deleted that still has the `customresourcecleanup.apiextensions.k8s.io` finalizer is
// marked Terminating (creates of its resources are refused from then on), every instance is
// deleted through the registry as a client's delete would be, and once none is left the
// condition says so and the finalizer is removed, which lets the CRD go. Instances held by
// finalizers of their own keep the CRD waiting; it is checked again after a while.

import { isStatusError } from '../errors/status-error.js';
import { deepClone, metaOf, nowRFC3339, type KubeObject } from '../machinery/object.js';
import { CRD_CLEANUP_FINALIZER, CRD_GROUP, CRD_PLURAL, isConditionTrue, servedNames, specOf, storageVersionOf, type CRDCondition } from '../registry/custom-resources/crd.js';
import { deleteCollection, listObjects } from '../registry/list.js';
import type { ResourceRegistry } from '../registry/registry.js';
import type { Store } from '../registry/store.js';
import { Informer } from './informer.js';
import { KeyedQueue } from './keyed-queue.js';

/** How long to wait for deleted instances to be gone before saying so and trying again. */
const INSTANCES_GONE_WAIT_MS = 60_000;
const POLL_MS = 200;
const RETRY_MS = 5_000;
const SERVING_WAIT_MS = 250;

function setCondition(crd: KubeObject, condition: CRDCondition): void {
  const status = (crd.status ??= {}) as { conditions?: CRDCondition[] };
  const conditions = status.conditions ?? [];
  const existing = conditions.find((c) => c.type === condition.type);
  const lastTransitionTime = existing && existing.status === condition.status ? existing.lastTransitionTime : nowRFC3339();
  const next = { ...condition, lastTransitionTime };
  status.conditions = existing ? conditions.map((c) => (c === existing ? next : c)) : [...conditions, next];
}

const INSTANCES_DELETED: CRDCondition = { type: 'Terminating', status: 'False', reason: 'InstancesDeleted', message: 'instances were deleted' };

export class CRDFinalizer {
  private informer?: Informer;
  private readonly queue = new KeyedQueue();
  private readonly retries = new Map<string, ReturnType<typeof setTimeout>>();
  private closed = false;

  constructor(private readonly registry: ResourceRegistry) {}

  start(): void {
    const crds = this.registry.storeFor(CRD_GROUP, 'v1', CRD_PLURAL);
    if (!crds) return;
    const consider = (crd: KubeObject) => {
      const meta = metaOf(crd);
      if (!meta.deletionTimestamp || !(meta.finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) return;
      const name = meta.name ?? '';
      void this.queue.enqueue(name, () => this.finalize(crds, name));
    };
    this.informer = new Informer(crds, { onList: (all) => all.forEach(consider), onAdd: consider, onUpdate: consider });
    void this.informer.start();
  }

  idle(): Promise<void> {
    return this.queue.idle();
  }

  close(): void {
    this.closed = true;
    this.informer?.close();
    for (const timer of this.retries.values()) clearTimeout(timer);
  }

  private async finalize(crds: Store, name: string): Promise<void> {
    if (this.closed) return;
    let crd = await this.current(crds, name);
    if (!crd || !metaOf(crd).deletionTimestamp || !(metaOf(crd).finalizers ?? []).includes(CRD_CLEANUP_FINALIZER)) return;
    crd = await this.writeCondition(crds, crd, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' });
    let outcome: CRDCondition;
    if (isConditionTrue(crd, 'Established')) {
      const store = this.instanceStore(crd);
      // A CRD in a group built-in kinds serve is never reached (no store), so it has no instances.
      if (!store && !this.registry.servesBuiltInGroup(specOf(crd).group)) {
        // Established but not served here yet: the serving controller catches up first.
        this.retryLater(crds, name, SERVING_WAIT_MS);
        return;
      }
      outcome = store ? await this.deleteInstances(store) : INSTANCES_DELETED;
      if (outcome.status === 'True') {
        await this.writeCondition(crds, crd, outcome);
        this.retryLater(crds, name);
        return;
      }
    } else {
      outcome = { type: 'Terminating', status: 'False', reason: 'NeverEstablished', message: 'resource was never established' };
    }
    crd = await this.writeCondition(crds, crd, outcome);
    await crds.guaranteedUpdate(undefined, name, (current) => {
      const meta = metaOf(current);
      meta.finalizers = (meta.finalizers ?? []).filter((f) => f !== CRD_CLEANUP_FINALIZER);
      if (meta.finalizers.length === 0) delete meta.finalizers;
      return current;
    });
  }

  /** The store of the CRD's storage version, through which its instances are deleted. */
  private instanceStore(crd: KubeObject): Store | undefined {
    const version = storageVersionOf(crd);
    return version ? this.registry.storeFor(specOf(crd).group, version, servedNames(crd).plural) : undefined;
  }

  private async deleteInstances(store: Store): Promise<CRDCondition> {
    try {
      await deleteCollection(store, undefined, {});
    } catch (err) {
      return { type: 'Terminating', status: 'True', reason: 'InstanceDeletionFailed', message: `could not issue all deletes: ${errorText(err)}` };
    }
    const deadline = Date.now() + INSTANCES_GONE_WAIT_MS;
    for (;;) {
      try {
        if ((await listObjects(store, undefined, { limit: 1 })).items.length === 0) break;
      } catch (err) {
        return { type: 'Terminating', status: 'True', reason: 'InstanceDeletionCheck', message: `could not confirm zero CustomResources remaining: ${errorText(err)}` };
      }
      if (this.closed || Date.now() > deadline) {
        return { type: 'Terminating', status: 'True', reason: 'InstanceDeletionCheck', message: 'could not confirm zero CustomResources remaining: timed out waiting for the condition' };
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    return INSTANCES_DELETED;
  }

  private async writeCondition(crds: Store, crd: KubeObject, condition: CRDCondition): Promise<KubeObject> {
    const subresource = crds.strategies.subresources.status ? 'status' : undefined;
    return crds.guaranteedUpdate(undefined, metaOf(crd).name ?? '', (current) => {
      const next = deepClone(current);
      setCondition(next, condition);
      return next;
    }, subresource ? { subresource } : {});
  }

  private async current(crds: Store, name: string): Promise<KubeObject | undefined> {
    try {
      return await crds.get(undefined, name);
    } catch (err) {
      if (isStatusError(err) && err.code === 404) return undefined;
      throw err;
    }
  }

  private retryLater(crds: Store, name: string, delayMs = RETRY_MS): void {
    if (this.closed) return;
    clearTimeout(this.retries.get(name));
    const timer = setTimeout(() => {
      this.retries.delete(name);
      void this.queue.enqueue(name, () => this.finalize(crds, name));
    }, delayMs);
    timer.unref?.();
    this.retries.set(name, timer);
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
