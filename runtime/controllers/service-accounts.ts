// kube-controller-manager's service account controller: every active namespace has a ServiceAccount
// named `default`, created when the namespace appears and again whenever it is deleted. A
// namespace being deleted is left alone (its creates are refused anyway).

import { metaOf, type KubeObject } from '../machinery/object.js';
import type { Store } from '../registry/store.js';
import { createIfMissing, getIfExists } from './get-if-exists.js';

export const DEFAULT_SERVICE_ACCOUNT = 'default';

export function isActiveNamespace(namespace: KubeObject | undefined): boolean {
  return !!namespace && !metaOf(namespace).deletionTimestamp && (namespace.status as { phase?: string } | undefined)?.phase !== 'Terminating';
}

export class ServiceAccountsController {
  constructor(
    private readonly namespaces: Store,
    private readonly serviceAccounts: Store,
  ) {}

  /** Creates `default` in the namespace unless it exists or the namespace is gone or going. */
  async sync(namespace: string): Promise<void> {
    if (!isActiveNamespace(await getIfExists(this.namespaces, undefined, namespace))) return;
    if (await getIfExists(this.serviceAccounts, namespace, DEFAULT_SERVICE_ACCOUNT)) return;
    await createIfMissing(this.serviceAccounts, namespace, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace } });
  }
}
