// apiextensions-apiserver's establishing controller (pkg/controller/establish), in process: once
// a CRD's names are accepted and it is not yet Established, it becomes Established True
// (`InitialNamesAccepted`), or stays False (`InvalidCABundle`) while its conversion webhook's CA
// bundle cannot be used. kube-apiserver's CRD handler queues the CRD when it sees it so; here the
// controller follows the CRDs itself. It writes through the status subresource.

import { isStatusError } from '../errors/status-error.js';
import { asObject, asString, deepClone, metaOf, type KubeObject } from '../machinery/object.js';
import type { Store } from '../registry/store.js';
import { isConditionTrue, setCondition } from '../registry/strategies/crd/conditions.js';
import { caBundleCauses } from '../registry/strategies/crd/webhook-config.js';
import { Informer } from './informer.js';
import type { KeyedQueue } from './keyed-queue.js';

const wantsEstablishing = (crd: KubeObject): boolean => isConditionTrue(crd, 'NamesAccepted') && !isConditionTrue(crd, 'Established');

export class CRDEstablishingController {
  private readonly informer: Informer;

  constructor(
    private readonly store: Store,
    private readonly queue: KeyedQueue,
  ) {
    const seen = (crd: KubeObject): void => {
      if (wantsEstablishing(crd)) this.enqueue(metaOf(crd).name ?? '');
    };
    this.informer = new Informer(store, { onList: (all) => all.forEach(seen), onAdd: seen, onUpdate: seen });
  }

  start(): Promise<void> {
    return this.informer.start();
  }

  close(): void {
    this.informer.close();
  }

  /** QueueCRD: looks at the CRD now, as kube's CRD handler asks once it sees the names accepted. */
  queueCRD(name: string): void {
    this.enqueue(name);
  }

  private enqueue(name: string): void {
    void this.queue.enqueue(`crd-establishing:${name}`, () => this.sync(name));
  }

  private async sync(name: string): Promise<void> {
    let crd: KubeObject;
    try {
      crd = deepClone(await this.store.get(undefined, name));
    } catch (e) {
      if (isStatusError(e) && e.code === 404) return;
      throw e;
    }
    if (!wantsEstablishing(crd)) return;
    const caBundle = asString(asObject(asObject(asObject(asObject(crd.spec).conversion).webhook).clientConfig).caBundle);
    if (caBundle && caBundleCauses(caBundle, '').length > 0) {
      setCondition(crd, { type: 'Established', status: 'False', reason: 'InvalidCABundle', message: 'The conversion webhook CABundle is invalid' });
    } else {
      setCondition(crd, { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' });
    }
    try {
      await this.store.update(undefined, name, crd, { subresource: 'status' });
    } catch (e) {
      // Gone or changed meanwhile: the informer's next event brings it back here.
      if (isStatusError(e) && (e.code === 404 || e.code === 409)) return;
      throw e;
    }
  }
}
