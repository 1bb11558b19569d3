// The seam between the server shell and the API (runtime/api, runtime/registry): at start the
// shell calls an ApiFactory once, and the API hands back its request handler plus whatever it
// contributes to the shell (authorizer modes that read API objects such as RBAC, token
// authenticators such as bootstrap tokens, health checks, an error encoder).

import type { Authenticator } from '../auth/authenticator.js';
import type { AuthorizationMode, AuthorizerFactory } from '../auth/authorization-modes.js';
import type { Authorizer } from '../auth/authorizer.js';
import type { TokenAuthenticator } from '../auth/token-file.js';
import type { ApiHandler } from './app.js';
import type { Logger } from './context.js';
import type { DeprecatedResources } from './filters/deprecation.js';
import type { FeatureGates } from './feature-gates.js';
import type { HealthChecks } from './health.js';
import type { SecureContext } from 'node:tls';
import type { StatusWriter } from './status-response.js';
import type { StorageKind } from '../storage/index.js';
import type { ApiMetrics } from '../machinery/metrics.js';

export type { StorageKind };

export interface ApiContext {
  storage: StorageKind;
  /** Where the sqlite database (and anything else persistent) lives. */
  dataDir: string;
  /** --etcd-servers: client URLs, when storage is etcd. */
  etcdServers: string[];
  /** --etcd-prefix: where keys live in etcd. */
  etcdPrefix: string;
  /** The TLS of https etcd endpoints, from --etcd-cafile, --etcd-certfile and --etcd-keyfile. */
  etcdSecureContext?: SecureContext;
  featureGates: FeatureGates;
  /** --runtime-config entries (key to value, '' when the flag gave no value), resolved by the API. */
  runtimeConfig: Record<string, string>;
  logger: Logger;
  /** Counts one declarative_validation_mismatch_total; the mismatch itself is logged by the API. */
  onDeclarativeValidationMismatch?: () => void;
  /** PEM of the CA that verifies the serving certificate (what pods get as the cluster's root CA). */
  rootCa?: string;
  /** Where watches and deprecated API requests are recorded for /metrics. */
  metrics?: ApiMetrics;
}

export interface ApiComponents {
  handler: ApiHandler;
  /** Served deprecated endpoints, for the deprecation filter. */
  deprecatedResources?: DeprecatedResources;
  writeStatus?: StatusWriter;
  authorizerFactories?: Partial<Record<AuthorizationMode, AuthorizerFactory>>;
  /** Tried after --token-auth-file, in order. */
  tokenAuthenticators?: TokenAuthenticator[];
  healthChecks?: Partial<HealthChecks>;
  /** Receives the server's authorizer chain once built (the access reviews ask it, and RBAC escalation checks about `bind` and `escalate`). */
  useAuthorizer?(authorizer: Authorizer): void;
  /** Receives the server's authenticator chain and --api-audiences once built (TokenReview asks it). */
  useAuthenticator?(authenticator: Authenticator, apiAudiences: string[]): void;
  /** Called once the server listens, with the URL its clients use (cluster-info is made with it). */
  serving?(url: string): void;
  /**
   * Called on shutdown when the server stops accepting requests (where kube-apiserver cancels its
   * post-start hooks' context): stops the in-process controllers and informers, before
   * terminateWatches, so that the end of their watches does not make them list again.
   */
  stopControllers?(): void;
  /** Called on shutdown once the requests in flight are done: ends the open watches cleanly. */
  terminateWatches?(): void;
  /** Stored objects per resource, read when /metrics is scraped. */
  objectCounts?(): Iterable<[string, number]>;
  /** Whether group/version/resource is served: only served resources get request metric series. */
  serves?(group: string, version: string, resource: string): boolean;
  /** Called once on shutdown, after the listener has stopped. */
  close?(): Promise<void>;
}

export type ApiFactory = (context: ApiContext) => ApiComponents | Promise<ApiComponents>;
