// kube-controller-manager's ephemeral volume controller, in process: for every volume of a pod
// with an `ephemeral` source, a PersistentVolumeClaim named <pod name>-<volume name> in the pod's
// namespace, made from the volume's claim template and controlled by the pod. Claims are created
// through the Store, as the controller's client would create them through the API: validation,
// defaults, managedFields (manager kube-controller-manager) and watch events all happen.
//
// As upstream: pods being deleted are left alone; a claim of that name the pod does not control is
// never touched, the pod gets a Warning event (reason FailedBinding) and its later volumes wait,
// as they do when the API refuses the claim; a claim that already exists for the pod (another
// replica made it first) is success. A claim deleted while its pod lives is made again.

import { isStatusError } from '../errors/status-error.js';
import { listObjects } from '../registry/list.js';
import { asList, asObject, deepClone, metaOf, nowRFC3339, type KubeObject } from '../machinery/object.js';
import type { Store } from '../registry/store.js';

/** The product part of the controller manager's User-Agent names the field manager of its writes. */
export const CONTROLLER_MANAGER_USER_AGENT = 'kube-controller-manager/v1.33.0 (linux/amd64) kubernetes/ephemeral-volume-controller';

/** The recorder's source component, as upstream registers it. */
const EVENT_SOURCE = 'ephemeral_volume';

/** k8s.io/component-helpers/storage/ephemeral.VolumeClaimName. */
export function volumeClaimName(podName: string, volumeName: string): string {
  return `${podName}-${volumeName}`;
}

/** metav1.IsControlledBy: the controller reference (controller: true) names this uid. */
export function isControlledBy(obj: KubeObject, ownerUID: string): boolean {
  const refs = asList(metaOf(obj).ownerReferences);
  return refs.some((r) => asObject(r).controller === true && asObject(r).uid === ownerUID);
}

export function ephemeralVolumeNames(pod: KubeObject): string[] {
  return asList(asObject(pod.spec).volumes)
    .map(asObject)
    .filter((v) => v.ephemeral !== undefined)
    .map((v) => String(v.name));
}

export class EphemeralVolumeController {
  constructor(
    private readonly pods: Store,
    private readonly claims: Store,
    private readonly events: Store | undefined,
  ) {}

  /** Whether the pod is one this controller acts on (upstream's enqueuePod filter). */
  wants(pod: KubeObject): boolean {
    if (metaOf(pod).deletionTimestamp) return false;
    return ephemeralVolumeNames(pod).length > 0;
  }

  /**
   * Names of the pods in the claim's namespace that want a claim of its name: upstream's
   * onPVCDelete re-syncs them, so a claim deleted by hand comes back while its pod lives, and a
   * pod that was waiting for someone else's claim of that name gets its own.
   */
  async podsWanting(claim: KubeObject): Promise<string[]> {
    const meta = metaOf(claim);
    // From the watch cache as it is (resourceVersion 0): a pod is read afresh before it is synced.
    const { items } = await listObjects(this.pods, meta.namespace, { resourceVersion: '0' });
    return items
      .filter((pod) => this.wants(pod) && ephemeralVolumeNames(pod).some((v) => volumeClaimName(metaOf(pod).name ?? '', v) === meta.name))
      .map((pod) => metaOf(pod).name ?? '');
  }

  /** Makes the pod's missing claims, reading the pod afresh as the workqueue's sync does. */
  async sync(namespace: string, name: string): Promise<void> {
    let pod: KubeObject;
    try {
      pod = await this.pods.get(namespace, name);
    } catch (e) {
      if (isStatusError(e) && e.code === 404) return;
      throw e;
    }
    if (!this.wants(pod)) return;
    for (const volume of asList(asObject(pod.spec).volumes)) {
      const conflict = await this.ensureClaim(pod, asObject(volume));
      if (conflict) {
        await this.recordWarning(pod, `ephemeral volume ${String(asObject(volume).name)}: ${conflict}`);
        return;
      }
    }
  }

  /** Returns why the claim cannot serve the pod, or undefined once it exists for it. */
  private async ensureClaim(pod: KubeObject, volume: Record<string, unknown>): Promise<string | undefined> {
    if (volume.ephemeral === undefined) return undefined;
    const podMeta = metaOf(pod);
    const namespace = podMeta.namespace ?? '';
    const claimName = volumeClaimName(podMeta.name ?? '', String(volume.name));
    const existing = await this.claims.get(namespace, claimName).catch((e) => {
      if (isStatusError(e) && e.code === 404) return undefined;
      throw e;
    });
    if (existing) return this.ownership(pod, existing);
    const template = asObject(asObject(volume.ephemeral).volumeClaimTemplate);
    const templateMeta = asObject(template.metadata);
    const claim: KubeObject = {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: {
        name: claimName,
        namespace,
        ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: podMeta.name, uid: podMeta.uid, controller: true, blockOwnerDeletion: true }],
        ...(templateMeta.annotations ? { annotations: deepClone(templateMeta.annotations as Record<string, string>) } : {}),
        ...(templateMeta.labels ? { labels: deepClone(templateMeta.labels as Record<string, string>) } : {}),
      },
      spec: deepClone(asObject(template.spec)),
    };
    try {
      await this.claims.create(namespace, claim, { userAgent: CONTROLLER_MANAGER_USER_AGENT });
      return undefined;
    } catch (e) {
      if (!isStatusError(e)) throw e;
      // Refused (a template the claim rules reject, a namespace being deleted): upstream reports
      // the API's message on the pod.
      if (e.reason !== 'AlreadyExists') return `create PVC ${claimName}: ${e.message}`;
    }
    // Made meanwhile, by another replica for this pod or by someone else.
    return this.ownership(pod, await this.claims.get(namespace, claimName));
  }

  /** ephemeral.VolumeIsForPod. */
  private ownership(pod: KubeObject, claim: KubeObject): string | undefined {
    const podMeta = metaOf(pod);
    const claimMeta = metaOf(claim);
    if (claimMeta.namespace === podMeta.namespace && isControlledBy(claim, podMeta.uid ?? '')) return undefined;
    return `PVC ${claimMeta.namespace}/${claimMeta.name} was not created for pod ${podMeta.namespace}/${podMeta.name} (pod is not owner)`;
  }

  /** A core/v1 Event about the pod, shaped as client-go's event recorder makes one. */
  private async recordWarning(pod: KubeObject, message: string): Promise<void> {
    if (!this.events) return;
    const meta = metaOf(pod);
    const now = nowRFC3339();
    const event: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: `${meta.name}.${(BigInt(Date.now()) * 1_000_000n).toString(16)}`, namespace: meta.namespace },
      involvedObject: { kind: 'Pod', namespace: meta.namespace, name: meta.name, uid: meta.uid, apiVersion: 'v1', resourceVersion: meta.resourceVersion },
      reason: 'FailedBinding',
      message,
      source: { component: EVENT_SOURCE },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      type: 'Warning',
      reportingComponent: EVENT_SOURCE,
      reportingInstance: '',
    };
    try {
      await this.events.create(meta.namespace, event, { userAgent: CONTROLLER_MANAGER_USER_AGENT });
    } catch (e) {
      // Upstream's recorder drops events it cannot write; so do we.
      if (!isStatusError(e)) throw e;
    }
  }
}
