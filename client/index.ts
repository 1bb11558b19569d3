// The typed client: createClient(config) gives client-go's clientset shape (client.coreV1
// .configMaps('ns').get('x')) over one HTTPS transport. The configuration (kubeconfig, in-cluster,
// credential plugins) comes from client/config/.

import type { ClientConfig } from './config/types.js';
import { Transport, type TransportOptions } from './core/transport.js';
import { clientset, type Clientset } from '../generated/client/index.js';

export interface Client extends Clientset {
  /** The transport every group version sends through (for requests the typed clients do not cover). */
  readonly transport: Transport;
  /** Closes pooled connections, so a process that is done can exit at once. */
  close(): void;
}

export function createClient(config: ClientConfig, options: TransportOptions = {}): Client {
  const transport = new Transport(config, options);
  return { ...clientset(transport), transport, close: () => transport.close() };
}

export { Transport } from './core/transport.js';
export type { TransportOptions, RequestSpec, Reply, Query } from './core/transport.js';
export { StatusError, ExpiredError } from './core/status-error.js';
export type { Status, StatusCause, StatusDetails } from './core/status-error.js';
export { ResourceClient, SubresourceClient, CreateSubresourceClient } from './core/resource.js';
export type { KubeObject, KubeList, ObjectMetaLike, ResourcePath } from './core/resource.js';
export type * from './core/options.js';
export { informer, keyOf } from './core/informer.js';
export type { Informer, InformerHandlers, InformerOptions, ListWatch } from './core/informer.js';
export { loadKubeConfig, loadInClusterConfig, KubeConfigError } from './config/index.js';
export type { LoadKubeConfigOptions, InClusterOptions, ExecOptions, ClientConfig, Credentials, CredentialSource, TlsOptions } from './config/index.js';
export type * from '../generated/client/index.js';
