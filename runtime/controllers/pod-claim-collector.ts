// What the garbage collector does for ephemeral volume claims, and only for them: a claim whose
// controller reference names a pod goes once that pod is removed from storage (a pod merely
// marked with deletionTimestamp still owns it). This is not a general garbage collector: other
// kinds, other owner kinds, blockOwnerDeletion, foreground and orphan propagation are not here.
//
// Deletes are conditional on the claim's uid, so a claim re-made under the same name for a new
// pod is never taken; every replica over one etcd may do the same work, and NotFound or Conflict
// from another replica's delete is success.

import { isStatusError } from '../errors/status-error.js';
import { MATCH_EXACT } from '../registry/list-options.js';
import { listObjects } from '../registry/list.js';
import { asList, asObject, metaOf, type KubeObject } from '../machinery/object.js';
import type { Store } from '../registry/store.js';

export class PodClaimCollector {
  constructor(private readonly claims: Store) {}

  /** Deletes the pod's namespace's claims the pod controlled. */
  async podRemoved(pod: KubeObject): Promise<void> {
    const meta = metaOf(pod);
    const uid = meta.uid ?? '';
    const owned = (await this.claimsIn(meta.namespace)).filter((claim) => podControllers(claim).includes(uid));
    await this.deleteAll(owned);
  }

  /**
   * Deletes claims whose controlling pod is not among the pods listed at `revision` (removed
   * while this server was not watching). Claims are read at the same revision, so a pod and
   * claim made since by another replica are not mistaken for orphans.
   */
  async collectOrphans(pods: KubeObject[], revision: number): Promise<void> {
    const live = new Set(pods.map((p) => metaOf(p).uid ?? ''));
    const orphans = (await this.claimsIn(undefined, revision)).filter((claim) => podControllers(claim).some((uid) => !live.has(uid)));
    await this.deleteAll(orphans);
  }

  /** The claims as of `revision` (an Exact list), or the newest (Most Recent), through the registry as a client lists. */
  private async claimsIn(namespace: string | undefined, revision?: number): Promise<KubeObject[]> {
    const options = revision ? { resourceVersion: String(revision), resourceVersionMatch: MATCH_EXACT } : {};
    return (await listObjects(this.claims, namespace, options)).items;
  }

  private async deleteAll(claims: KubeObject[]): Promise<void> {
    for (const claim of claims) {
      const meta = metaOf(claim);
      try {
        await this.claims.delete(meta.namespace, meta.name ?? '', { preconditions: { uid: meta.uid } });
      } catch (e) {
        if (!(isStatusError(e) && (e.code === 404 || e.code === 409))) throw e;
      }
    }
  }
}

/** uids of the pods named by the claim's controller reference (at most one in a valid object). */
function podControllers(claim: KubeObject): string[] {
  return asList(metaOf(claim).ownerReferences)
    .map(asObject)
    .filter((r) => r.controller === true && r.kind === 'Pod' && r.apiVersion === 'v1' && typeof r.uid === 'string')
    .map((r) => r.uid as string);
}
