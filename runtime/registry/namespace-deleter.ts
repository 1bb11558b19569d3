// What kube-controller-manager's namespace controller does, in process and in small form: once a
// namespace is Terminating, delete everything in it, then remove the `kubernetes` finalizer
// (as PUT .../finalize would) and delete the namespace when no finalizer is left. Other
// spec.finalizers are left to whoever owns them; finalizing them later re-enters this step.
// Objects in the namespace that carry their own metadata.finalizers stay until those are removed;
// the namespace waits for them, and a later update or delete there triggers another pass.

import { isStatusError } from '../errors/status-error.js';
import { listObjects } from './list.js';
import { metaOf, type KubeObject } from '../machinery/object.js';
import type { Store } from './store.js';
import { FINALIZER_KUBERNETES, namespacePhase, specFinalizers } from './strategies/namespace.js';

export class NamespaceDeleter {
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly namespaces: Store,
    private readonly contentStores: () => Store[],
  ) {}

  /** Schedules a pass for a namespace marked for deletion; returns when that pass is done. */
  enqueue(ns: KubeObject): Promise<void> {
    const name = metaOf(ns).name ?? '';
    const previous = this.running.get(name) ?? Promise.resolve();
    const next = previous.then(() => this.sync(name)).catch(() => {
      // A failed pass leaves the namespace Terminating; the next delete or finalize retries it.
    });
    this.running.set(name, next);
    void next.finally(() => {
      if (this.running.get(name) === next) this.running.delete(name);
    });
    return next;
  }

  /** Resolves once every scheduled pass has finished (tests and shutdown wait on this). */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.all([...this.running.values()]);
  }

  private async sync(name: string): Promise<void> {
    let ns: KubeObject;
    try {
      ns = await this.namespaces.get(undefined, name);
    } catch (e) {
      if (isStatusError(e) && e.code === 404) return;
      throw e;
    }
    if (!metaOf(ns).deletionTimestamp || namespacePhase(ns) !== 'Terminating') return;
    const remaining = await this.deleteContent(name);
    if (remaining > 0) return;
    if (specFinalizers(ns).includes(FINALIZER_KUBERNETES)) {
      ns = await this.namespaces.guaranteedUpdate(
        undefined,
        name,
        (current) => {
          const spec = (current.spec ?? {}) as Record<string, unknown>;
          current.spec = { ...spec, finalizers: specFinalizers(current).filter((f) => f !== FINALIZER_KUBERNETES) };
          return current;
        },
        { subresource: 'finalize' },
      );
    }
    if (specFinalizers(ns).length === 0) {
      try {
        await this.namespaces.delete(undefined, name);
      } catch (e) {
        if (!(isStatusError(e) && e.code === 404)) throw e;
      }
    }
  }

  /** Deletes every object in the namespace; returns how many remain (held by their finalizers). */
  private async deleteContent(namespace: string): Promise<number> {
    let remaining = 0;
    for (const store of this.contentStores()) {
      // A consistent list (Most Recent), as the namespace controller's client would ask for.
      const { items } = await listObjects(store, namespace);
      for (const item of items) {
        const name = metaOf(item).name ?? '';
        try {
          // Background, as kube's namespace controller asks: a kind whose default is to orphan
          // (batch/v1 Job) must not wait on an orphan finalizer; the namespace goes as a whole.
          const result = await store.delete(namespace, name, { propagationPolicy: 'Background' });
          if (!result.deleted) remaining++;
        } catch (e) {
          if (!(isStatusError(e) && e.code === 404)) throw e;
        }
      }
    }
    return remaining;
  }
}
