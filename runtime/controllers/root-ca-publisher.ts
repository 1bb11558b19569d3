// kube-controller-manager's root CA publisher: every active namespace has a ConfigMap
// kube-root-ca.crt whose `ca.crt` is the CA that verifies this server, so pods (through the
// service account volume) can trust it. A deleted ConfigMap is put back at once, an edited one
// when the controllers next start.

import { annotationsOf, deepEqual, metaOf, type KubeObject } from '../machinery/object.js';
import type { Store } from '../registry/store.js';
import { createIfMissing, getIfExists } from './get-if-exists.js';
import { isActiveNamespace } from './service-accounts.js';

export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const DESCRIPTION_ANNOTATION = 'kubernetes.io/description';
const DESCRIPTION =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters.';

export class RootCAPublisher {
  private readonly data: Record<string, string>;

  constructor(
    private readonly namespaces: Store,
    private readonly configMaps: Store,
    rootCa: string,
  ) {
    this.data = { 'ca.crt': rootCa };
  }

  private current(configMap: KubeObject): boolean {
    return deepEqual(configMap.data, this.data) && annotationsOf(configMap)[DESCRIPTION_ANNOTATION] === DESCRIPTION && configMap.binaryData === undefined;
  }

  async sync(namespace: string): Promise<void> {
    if (!isActiveNamespace(await getIfExists(this.namespaces, undefined, namespace))) return;
    const existing = await getIfExists(this.configMaps, namespace, ROOT_CA_CONFIGMAP);
    if (!existing) {
      await createIfMissing(this.configMaps, namespace, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: ROOT_CA_CONFIGMAP, namespace, annotations: { [DESCRIPTION_ANNOTATION]: DESCRIPTION } },
        data: { ...this.data },
      });
      return;
    }
    if (this.current(existing)) return;
    await this.configMaps.guaranteedUpdate(namespace, ROOT_CA_CONFIGMAP, (cm) => {
      const meta = metaOf(cm);
      meta.annotations = { ...meta.annotations, [DESCRIPTION_ANNOTATION]: DESCRIPTION };
      cm.data = { ...this.data };
      delete cm.binaryData;
      return cm;
    });
  }
}
