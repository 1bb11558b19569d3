// Feeds the RBAC authorizer's in-memory policy from informers over the four RBAC kinds (kube's
// authorizer reads shared informers the same way), so an authorization decision never reads
// storage. A relist replaces a kind's whole set, so deletions missed while away are dropped.

import type { RuleResolver } from '../auth/rbac/rule-resolver.js';
import type { KubeObject } from '../machinery/object.js';
import type { ResourceRegistry } from '../registry/registry.js';
import { Informer } from './informer.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';

type Kind = 'clusterroles' | 'roles' | 'clusterrolebindings' | 'rolebindings';

export interface RbacPolicyWatch {
  /** Resolves once every kind's first list is in the policy. */
  ready: Promise<void>;
  close(): void;
}

export function watchRbacPolicy(registry: ResourceRegistry, resolver: RuleResolver): RbacPolicyWatch {
  const setters: Record<Kind, { set(o: KubeObject): void; remove(o: KubeObject): void }> = {
    clusterroles: { set: (o) => resolver.setClusterRole(o), remove: (o) => resolver.deleteClusterRole(o) },
    roles: { set: (o) => resolver.setRole(o), remove: (o) => resolver.deleteRole(o) },
    clusterrolebindings: { set: (o) => resolver.setClusterRoleBinding(o), remove: (o) => resolver.deleteClusterRoleBinding(o) },
    rolebindings: { set: (o) => resolver.setRoleBinding(o), remove: (o) => resolver.deleteRoleBinding(o) },
  };
  const informers: Informer[] = [];
  for (const kind of Object.keys(setters) as Kind[]) {
    const store = registry.storeFor(RBAC_GROUP, 'v1', kind);
    if (!store) continue;
    const { set, remove } = setters[kind];
    informers.push(
      new Informer(store, {
        onList: (all) => {
          resolver.clear(kind);
          for (const o of all) set(o);
        },
        onAdd: set,
        onUpdate: set,
        onDelete: remove,
      }),
    );
  }
  return {
    ready: Promise.all(informers.map((i) => i.start())).then(() => undefined),
    close: () => {
      for (const i of informers) i.close();
    },
  };
}
