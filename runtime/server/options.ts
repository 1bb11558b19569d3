// The options of startServer(): kube-apiserver's flags in camelCase, plus the seams the library
// offers (the API factory, extra authorizer modes, a logger).

import type { AuthorizationMode, AuthorizerFactory } from '../auth/authorization-modes.js';
import type { ApiFactory, StorageKind } from './api-components.js';
import type { Logger } from './context.js';
import type { FeatureSpec } from './feature-gates.js';

export interface StartServerOptions {
  /** --secure-port. 0 (the library default) picks a free port. */
  port?: number;
  /** --bind-address; default 127.0.0.1. */
  bindAddress?: string;
  /** --data-dir. The library default is a fresh temporary directory, removed on close(). */
  dataDir?: string;
  tokenAuthFile?: string;
  /** --enable-bootstrap-token-auth: bearer tokens backed by bootstrap-token Secrets in kube-system. */
  enableBootstrapTokenAuth?: boolean;
  clientCaFile?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** --authorization-mode: `RBAC,AlwaysDeny` or a list; default RBAC. */
  authorizationMode?: string | string[];
  /** --feature-gates: `A=true,B=false` or a map. */
  featureGates?: string | Record<string, boolean>;
  /**
   * --runtime-config: `resource.k8s.io/v1beta2=true,api/alpha=false` or a map; which group versions
   * (and resources) are served. Default: stable versions only.
   */
  runtimeConfig?: string | Record<string, string | boolean>;
  /** Gates to know besides Kubernetes' own (e.g. from the resource registry). */
  extraFeatureGates?: Record<string, FeatureSpec>;
  /** --api-domain; default k8s.io. */
  apiDomain?: string;
  /** --storage; default sqlite, or etcd when etcdServers are given. */
  storage?: StorageKind;
  /** --etcd-servers: etcd client URLs; giving them switches storage to etcd. */
  etcdServers?: string[];
  /** --etcd-prefix; default /registry. */
  etcdPrefix?: string;
  /** --event-ttl in milliseconds: Events are deleted this long after their last write; default 1 hour, 0 never. */
  eventTTLMs?: number;
  /** --request-timeout in milliseconds; default 60s. */
  requestTimeoutMs?: number;
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
  /** How long history is kept for watches and continue tokens (store and watch cache), in ms; default 5 minutes. */
  historyWindowMs?: number;
  /** How often watches with allowWatchBookmarks=true get a BOOKMARK, in ms; default 1 minute as kube-apiserver. */
  watchBookmarkIntervalMs?: number;
  /** --min-request-timeout in seconds: a watch without timeoutSeconds ends after 1x to 2x this; default 1800. */
  minRequestTimeoutSeconds?: number;
  /** Builds the API the server serves; without one every resource path is 404. */
  api?: ApiFactory;
  /** Extra authorizer modes besides those the API contributes. */
  authorizerFactories?: Partial<Record<AuthorizationMode, AuthorizerFactory>>;
  logger?: Logger;
}
