// The options of startServer(): kube-apiserver's flags in camelCase, plus the seams the library
// offers (the API factory, extra authorizer modes, a logger).

import type { AuthorizationMode, AuthorizerFactory } from '../auth/authorization-modes.js';
import type { RetryBackoff } from '../auth/webhook-authorizer.js';
import type { ApiFactory, StorageKind } from './api-components.js';
import type { Logger } from './context.js';
import type { FeatureSpec } from './feature-gates.js';
import type { DeprecatedRequestLabels } from './filters/deprecation.js';

export interface StartServerOptions {
  /** --secure-port. 0 (the library default) picks a free port. */
  port?: number;
  /** --bind-address; default 127.0.0.1. */
  bindAddress?: string;
  /** --data-dir. The library default is a fresh temporary directory, removed on close(). */
  dataDir?: string;
  tokenAuthFile?: string;
  /**
   * How long a bearer token's successful authentication is reused (kube-apiserver's
   * TokenSuccessCacheTTL, which has no flag): default 10 s; 0 authenticates every request afresh.
   */
  tokenSuccessCacheTTLMs?: number;
  /** How long a rejected bearer token's answer is reused (TokenFailureCacheTTL): default 0, never. */
  tokenFailureCacheTTLMs?: number;
  /** --anonymous-auth: requests without credentials run as system:anonymous; default false (401), as k3s runs. */
  anonymousAuth?: boolean;
  /** --enable-bootstrap-token-auth: bearer tokens backed by bootstrap-token Secrets in kube-system. */
  enableBootstrapTokenAuth?: boolean;
  /** --service-account-issuer: the first is written into tokens, all are accepted; default https://kubernetes.default.svc.cluster.local. */
  serviceAccountIssuers?: string[];
  /** --service-account-signing-key-file; default a key made in the data dir on first start. */
  serviceAccountSigningKeyFile?: string;
  /** --service-account-key-file: PEM files of the keys that verify tokens; default the signing key. */
  serviceAccountKeyFiles?: string[];
  /** --service-account-max-token-expiration in milliseconds: between 1 hour and 2^32 seconds; default no limit. */
  serviceAccountMaxTokenExpirationMs?: number;
  /** --service-account-extend-token-expiration; default true. */
  serviceAccountExtendTokenExpiration?: boolean;
  /** --service-account-jwks-uri; default this server's /openid/v1/jwks. */
  serviceAccountJwksUri?: string;
  /** --api-audiences; default the service account issuers. */
  apiAudiences?: string[];
  clientCaFile?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
  /** --authorization-mode: `Node,RBAC` or a list; default Node,RBAC. */
  authorizationMode?: string | string[];
  /** --authorization-policy-file: the ABAC policy, one JSON object per line; needed by, and only with, mode ABAC. */
  authorizationPolicyFile?: string;
  /** --authorization-config: an AuthorizationConfiguration file, reloaded as it changes; excludes the mode and webhook flags. */
  authorizationConfig?: string;
  /** --authorization-webhook-config-file: kubeconfig of the webhook that --authorization-mode=Webhook asks. */
  authorizationWebhookConfigFile?: string;
  /** --authorization-webhook-version: v1 or v1beta1 (default v1beta1). */
  authorizationWebhookVersion?: string;
  /** --authorization-webhook-cache-authorized-ttl in ms (default 5 minutes). */
  authorizationWebhookCacheAuthorizedTtlMs?: number;
  /** --authorization-webhook-cache-unauthorized-ttl in ms (default 30 s). */
  authorizationWebhookCacheUnauthorizedTtlMs?: number;
  /** How often the --authorization-config file is also polled, in ms; default 1 minute as kube. */
  authorizationConfigReloadIntervalMs?: number;
  /** The webhooks' retry backoff on transient failures; default kube's 500 ms x1.5, 5 attempts. */
  authorizationWebhookRetryBackoff?: RetryBackoff;
  /** --feature-gates: `A=true,B=false` or a map. */
  featureGates?: string | Record<string, boolean>;
  /**
   * Called once per disagreement between a declared rule and its hand-written twin while
   * DeclarativeValidation is on (declarative_validation_mismatch_total); each is logged too.
   */
  onDeclarativeValidationMismatch?: () => void;
  /**
   * --runtime-config: `resource.k8s.io/v1beta2=true,api/alpha=false` or a map; which group versions
   * (and resources) are served. Default: stable versions only.
   */
  runtimeConfig?: string | Record<string, string | boolean>;
  /**
   * Called for each request to a served deprecated endpoint, with the labels of the
   * apiserver_requested_deprecated_apis gauge (which it sets to 1).
   */
  onDeprecatedRequest?: (labels: DeprecatedRequestLabels) => void;
  /** Gates to know besides Kubernetes' own (e.g. from the resource registry). */
  extraFeatureGates?: Record<string, FeatureSpec>;
  /** --storage; default sqlite, or etcd when etcdServers are given. */
  storage?: StorageKind;
  /** --etcd-servers: etcd client URLs; giving them switches storage to etcd. */
  etcdServers?: string[];
  /** --etcd-prefix; default /registry. */
  etcdPrefix?: string;
  /** --etcd-cafile: PEM bundle that verifies etcd's serving certificates (https endpoints). */
  etcdCaFile?: string;
  /** --etcd-certfile: client certificate presented to etcd; needs etcdKeyFile. */
  etcdCertFile?: string;
  /** --etcd-keyfile: the key of etcdCertFile. */
  etcdKeyFile?: string;
  /** --event-ttl in milliseconds: Events are deleted this long after their last write; default 1 hour, 0 never. */
  eventTTLMs?: number;
  /** --request-timeout in milliseconds; default 60s. */
  requestTimeoutMs?: number;
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
  /** --http2-max-streams-per-connection: streams per HTTP/2 connection; 0 (default) means kube-apiserver's 100. */
  http2MaxStreamsPerConnection?: number;
  /** How long history is kept for watches and continue tokens (store and watch cache), in ms; default 5 minutes. */
  historyWindowMs?: number;
  /** How often watches with allowWatchBookmarks=true get a BOOKMARK, in ms; default 1 minute as kube-apiserver. */
  watchBookmarkIntervalMs?: number;
  /** --min-request-timeout in seconds: a watch without timeoutSeconds ends after 1x to 2x this; default 1800. */
  minRequestTimeoutSeconds?: number;
  /**
   * --controllers, as kube-controller-manager takes it: `*` for every controller, `name` or
   * `-name` to turn one on or off (serviceaccount, serviceaccount-token, root-ca-cert-publisher,
   * ephemeral-volume, or their -controller names); default `*`.
   */
  controllers?: string[];
  /** Builds the API the server serves; without one every resource path is 404. */
  api?: ApiFactory;
  /** Extra authorizer modes besides those the API contributes. */
  authorizerFactories?: Partial<Record<AuthorizationMode, AuthorizerFactory>>;
  /**
   * --shutdown-delay-duration in ms: on close(), how long /readyz fails before the server stops
   * accepting connections; default 0.
   */
  shutdownDelayMs?: number;
  /** --shutdown-watch-termination-grace-period in ms: how long ended watches get to finish their streams; default 0. */
  shutdownWatchTerminationGracePeriodMs?: number;
  logger?: Logger;
  /**
   * false: no request metrics are recorded and /metrics is not served (kube-apiserver has no such
   * flag; this is for embedding and for measuring what recording costs). Default true.
   */
  metrics?: boolean;
  /** --show-hidden-metrics-for-version: the previous minor version, or omitted. */
  showHiddenMetricsForVersion?: string;
  /** --audit-policy-file: an audit.k8s.io/v1 Policy; auditing is on with it and --audit-log-path. */
  auditPolicyFile?: string;
  /** --audit-log-path; `-` is standard output. */
  auditLogPath?: string;
  /** --audit-log-maxage in days; default 0, backups are not removed by age. */
  auditLogMaxAge?: number;
  /** --audit-log-maxbackup; default 0, no limit on their number. */
  auditLogMaxBackup?: number;
  /** --audit-log-maxsize in megabytes; default 0, never rotated. */
  auditLogMaxSize?: number;
  /** --audit-log-format: json (default) or legacy. */
  auditLogFormat?: string;
  /** --audit-log-mode: blocking (default), blocking-strict or batch. */
  auditLogMode?: string;
  /** --audit-log-batch-buffer-size: events queued before new ones are dropped; default 10000. */
  auditLogBatchBufferSize?: number;
  /** Called for each audit event handed to the backend (apiserver_audit_event_total). */
  onAuditEvent?: () => void;
  /** Called for each audit event that could not be stored (apiserver_audit_error_total). */
  onAuditError?: () => void;
}
