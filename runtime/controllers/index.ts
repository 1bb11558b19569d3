// The in-process controllers, started over a registry once it serves: each follows its kinds
// through an Informer on the registry's list and watch and writes through the registry's Stores, so its
// writes are API writes. Every replica over one etcd runs them; their writes are idempotent.

import type { ServiceAccountTokenSigner } from '../auth/service-account-token.js';
import { listObjects } from '../registry/list.js';
import type { ResourceRegistry } from '../registry/registry.js';
import { metaOf, type KubeObject } from '../machinery/object.js';
import { ClusterRoleAggregator } from './clusterrole-aggregation.js';
import { EphemeralVolumeController, ephemeralVolumeNames } from './ephemeral-volume.js';
import { Informer } from './informer.js';
import { KeyedQueue } from './keyed-queue.js';
import { PodClaimCollector } from './pod-claim-collector.js';
import { RootCAPublisher, ROOT_CA_CONFIGMAP } from './root-ca-publisher.js';
import { DEFAULT_SERVICE_ACCOUNT, ServiceAccountsController } from './service-accounts.js';
import { isServiceAccountTokenSecret, TokensController } from './tokens.js';
import { enabledControllers, type ControllerName } from './controller-names.js';
import { BootstrapSigner } from './bootstrap-signer.js';
import { TokenCleaner } from './token-cleaner.js';
import type { Logger } from '../machinery/logger.js';
import { GarbageCollector } from './garbage-collector.js';
import { CRDNamingController } from './crd-naming.js';
import { CRDEstablishingController } from './crd-establishing.js';

export interface ControllerOptions {
  /** Which controllers run (--controllers); default all. */
  enabled?: ReadonlySet<ControllerName>;
  /** The service account controllers (default account, root CA ConfigMap, legacy token Secrets). */
  serviceAccounts?: { signer: ServiceAccountTokenSigner; rootCa: string };
  /**
   * The bootstrap token controllers (bootstrapsigner, tokencleaner, when enabled). The signer
   * starts once `cluster` (this server's URL and CA, for a missing cluster-info) is known, which
   * is after the server listens.
   */
  bootstrapTokens?: { logger: Logger; cluster: Promise<{ server: string; caPem: string }> };
}

export interface Controllers {
  /** Resolves once the work asked for so far is done (tests and shutdown wait on this). */
  idle(): Promise<void>;
  close(): void;
}

export function startControllers(registry: ResourceRegistry, options: ControllerOptions = {}): Controllers {
  const pods = registry.storeFor('', 'v1', 'pods');
  const claims = registry.storeFor('', 'v1', 'persistentvolumeclaims');
  const queue = new KeyedQueue();
  const informers: Informer[] = [];
  const enabled = options.enabled ?? enabledControllers();
  if (pods && claims && enabled.has('ephemeral-volume-controller')) {
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
  }
  if (options.serviceAccounts) informers.push(...serviceAccountInformers(registry, queue, options.serviceAccounts, enabled));
  const bootstrap = options.bootstrapTokens ? bootstrapTokenControllers(registry, queue, options.bootstrapTokens, enabled) : undefined;
  if (bootstrap) informers.push(...bootstrap.informers);
  // An informer that cannot list yet tries again by itself; start-up does not wait for it.
  for (const each of informers) void each.start();
  const clusterRoles = registry.storeFor('rbac.authorization.k8s.io', 'v1', 'clusterroles');
  const aggregator = clusterRoles && enabled.has('clusterrole-aggregation-controller') ? new ClusterRoleAggregator(clusterRoles, queue) : undefined;
  void aggregator?.start();
  const collector = enabled.has('garbage-collector-controller') ? new GarbageCollector(registry) : undefined;
  collector?.start();
  const crds = registry.storeFor('apiextensions.k8s.io', 'v1', 'customresourcedefinitions');
  const establishing = crds && enabled.has('crd-establishing-controller') ? new CRDEstablishingController(crds, queue) : undefined;
  // Names just accepted are worth establishing at once, not after the write's watch event comes back.
  const naming = crds && enabled.has('crd-naming-controller') ? new CRDNamingController(crds, queue, (name) => establishing?.queueCRD(name)) : undefined;
  void naming?.start();
  void establishing?.start();
  return {
    idle: async () => {
      await queue.idle();
      await collector?.idle();
    },
    close: () => {
      collector?.close();
      for (const informer of informers) informer.close();
      aggregator?.close();
      bootstrap?.close();
      naming?.close();
      establishing?.close();
    },
  };
}

/** kube-controller-manager's serviceaccount, root-ca-cert-publisher and serviceaccount-token controllers. */
function serviceAccountInformers(
  registry: ResourceRegistry,
  queue: KeyedQueue,
  options: NonNullable<ControllerOptions['serviceAccounts']>,
  enabled: ReadonlySet<ControllerName>,
): Informer[] {
  const namespaces = registry.storeFor('', 'v1', 'namespaces');
  const serviceAccounts = registry.storeFor('', 'v1', 'serviceaccounts');
  const configMaps = registry.storeFor('', 'v1', 'configmaps');
  const secrets = registry.storeFor('', 'v1', 'secrets');
  if (!namespaces || !serviceAccounts) return [];
  const accounts = enabled.has('serviceaccount-controller') ? new ServiceAccountsController(namespaces, serviceAccounts) : undefined;
  const publisher = configMaps && enabled.has('root-ca-certificate-publisher-controller') ? new RootCAPublisher(namespaces, configMaps, options.rootCa) : undefined;
  const tokens = secrets && enabled.has('serviceaccount-token-controller') ? new TokensController(serviceAccounts, secrets, options.signer, options.rootCa) : undefined;
  const syncNamespace = (ns: KubeObject) => {
    const name = metaOf(ns).name ?? '';
    if (accounts) void queue.enqueue(`serviceaccount:${name}`, () => accounts.sync(name));
    if (publisher) void queue.enqueue(`rootca:${name}`, () => publisher.sync(name));
  };
  const informers: Informer[] = [];
  if (accounts || publisher) informers.push(new Informer(namespaces, { onList: (all) => all.forEach(syncNamespace), onAdd: syncNamespace, onUpdate: syncNamespace }));
  if (accounts || tokens) {
    informers.push(
      new Informer(serviceAccounts, {
        onDelete: (sa) => {
          const { namespace = '', name = '' } = metaOf(sa);
          if (accounts && name === DEFAULT_SERVICE_ACCOUNT) void queue.enqueue(`serviceaccount:${namespace}`, () => accounts.sync(namespace));
          if (tokens && secrets) {
            void queue.enqueue(`tokens-of:${namespace}/${name}`, async () => tokens.serviceAccountDeleted(sa, (await listObjects(secrets, namespace)).items));
          }
        },
      }),
    );
  }
  if (publisher && configMaps) {
    const resync = (cm: KubeObject) => {
      const namespace = metaOf(cm).namespace ?? '';
      void queue.enqueue(`rootca:${namespace}`, () => publisher.sync(namespace));
    };
    informers.push(
      // Edits are put right at the next start (the namespace list), not at once: without leader
      // election every replica publishes, and replicas with different CAs would rewrite each other.
      // Only the published ConfigMaps are watched: the watch cache then never decodes (and keeps
      // decoded) every other ConfigMap just to show it to this informer.
      new Informer(configMaps, { onDelete: (cm) => metaOf(cm).name === ROOT_CA_CONFIGMAP && resync(cm) }, `metadata.name=${ROOT_CA_CONFIGMAP}`),
    );
  }
  if (tokens && secrets) {
    const syncSecret = (secret: KubeObject) => {
      if (!isServiceAccountTokenSecret(secret)) return;
      const { namespace = '', name = '' } = metaOf(secret);
      void queue.enqueue(`token:${namespace}/${name}`, () => tokens.syncSecret(namespace, name));
    };
    informers.push(new Informer(secrets, { onList: (all) => all.forEach(syncSecret), onAdd: syncSecret, onUpdate: syncSecret }));
  }
  return informers;
}

/** kube-controller-manager's bootstrapsigner and tokencleaner, both following the token Secrets. */
function bootstrapTokenControllers(
  registry: ResourceRegistry,
  queue: KeyedQueue,
  options: NonNullable<ControllerOptions['bootstrapTokens']>,
  enabled: ReadonlySet<ControllerName>,
): { informers: Informer[]; close(): void } {
  const secrets = registry.storeFor('', 'v1', 'secrets');
  const configMaps = registry.storeFor('', 'v1', 'configmaps');
  const informers: Informer[] = [];
  let closed = false;
  const cleaner = secrets && enabled.has('token-cleaner-controller') ? new TokenCleaner(secrets, queue, options.logger) : undefined;
  if (cleaner && secrets) {
    informers.push(
      new Informer(secrets, {
        onList: (all) => all.forEach((s) => cleaner.observe(s)),
        onAdd: (s) => cleaner.observe(s),
        onUpdate: (s) => cleaner.observe(s),
        onDelete: (s) => cleaner.forget(s),
      }),
    );
  }
  let signer: BootstrapSigner | undefined;
  const signerInformers: Informer[] = [];
  if (secrets && configMaps && enabled.has('bootstrap-signer-controller')) {
    void options.cluster.then((cluster) => {
      if (closed) return;
      const created = new BootstrapSigner({
        configMaps,
        roles: registry.storeFor('rbac.authorization.k8s.io', 'v1', 'roles'),
        roleBindings: registry.storeFor('rbac.authorization.k8s.io', 'v1', 'rolebindings'),
        queue,
        logger: options.logger,
        cluster,
      });
      signer = created;
      void queue.enqueue('bootstrapsigner:reader', () => created.ensureAnonymousReader());
      signerInformers.push(
        new Informer(secrets, {
          onList: (all) => created.listed(all),
          onAdd: (s) => created.observe(s),
          onUpdate: (s) => created.observe(s),
          onDelete: (s) => created.forget(s),
        }),
        new Informer(configMaps, {
          onList: () => created.resync(),
          onAdd: (cm) => created.configMapChanged(cm),
          onUpdate: (cm) => created.configMapChanged(cm),
          onDelete: (cm) => created.configMapChanged(cm),
        }),
      );
      for (const each of signerInformers) void each.start();
    });
  }
  return {
    informers,
    close: () => {
      closed = true;
      cleaner?.close();
      signer?.close();
      for (const each of signerInformers) each.close();
    },
  };
}
