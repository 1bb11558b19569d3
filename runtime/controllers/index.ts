// The in-process controllers, started over a registry once it serves: each follows its kinds
// through an Informer on the registry's list and watch and writes through the registry's Stores, so its
// writes are API writes. Every replica over one etcd runs them; their writes are idempotent.

import type { ResourceRegistry } from '../registry/registry.js';
import { metaOf, type KubeObject } from '../registry/object.js';
import { ClusterRoleAggregator } from './clusterrole-aggregation.js';
import { EphemeralVolumeController, ephemeralVolumeNames } from './ephemeral-volume.js';
import { Informer } from './informer.js';
import { KeyedQueue } from './keyed-queue.js';
import { PodClaimCollector } from './pod-claim-collector.js';

export interface Controllers {
  /** Resolves once the work asked for so far is done (tests and shutdown wait on this). */
  idle(): Promise<void>;
  close(): void;
}

export function startControllers(registry: ResourceRegistry): Controllers {
  const pods = registry.storeFor('', 'v1', 'pods');
  const claims = registry.storeFor('', 'v1', 'persistentvolumeclaims');
  const queue = new KeyedQueue();
  const informers: Informer[] = [];
  if (pods && claims) {
    const ephemeral = new EphemeralVolumeController(pods, claims, registry.storeFor('', 'v1', 'events'));
    const collector = new PodClaimCollector(claims);
    const key = (ns: string | undefined, name: string | undefined) => `${ns}/${name}`;
    const syncIfWanted = (pod: KubeObject) => {
      const meta = metaOf(pod);
      if (ephemeral.wants(pod)) void queue.enqueue(key(meta.namespace, meta.name), () => ephemeral.sync(meta.namespace ?? '', meta.name ?? ''));
    };
    const informer = new Informer(pods, {
      onList: (all, revision) => {
        for (const pod of all) syncIfWanted(pod);
        void queue.enqueue('', () => collector.collectOrphans(all, revision));
      },
      onAdd: syncIfWanted,
      onDelete: (pod) => {
        // Only a pod with ephemeral volumes controls claims of ours; other deletions cost nothing.
        if (ephemeralVolumeNames(pod).length === 0) return;
        const meta = metaOf(pod);
        void queue.enqueue(key(meta.namespace, meta.name), () => collector.podRemoved(pod));
      },
    });
    const claimInformer = new Informer(claims, {
      onDelete: (claim) => {
        const namespace = metaOf(claim).namespace ?? '';
        void queue.enqueue(`claim:${namespace}/${metaOf(claim).name}`, async () => {
          for (const name of await ephemeral.podsWanting(claim)) void queue.enqueue(key(namespace, name), () => ephemeral.sync(namespace, name));
        });
      },
    });
    informers.push(informer, claimInformer);
    // An informer that cannot list yet tries again by itself; start-up does not wait for it.
    for (const each of informers) void each.start();
  }
  const clusterRoles = registry.storeFor('rbac.authorization.k8s.io', 'v1', 'clusterroles');
  const aggregator = clusterRoles ? new ClusterRoleAggregator(clusterRoles, queue) : undefined;
  void aggregator?.start();
  return {
    idle: () => queue.idle(),
    close: () => {
      for (const informer of informers) informer.close();
      aggregator?.close();
    },
  };
}
