// The library entry: startServer() runs the whole server in-process (for this project's tests
// and for users' vitest suites) and resolves once it accepts connections, with the URL and an
// admin kubeconfig. runtime/main.ts is the same thing behind command-line flags.

import { startAudit, type RunningAudit } from './server/audit/setup.js';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { SecureContext } from 'node:tls';
import { AnonymousAuthenticator } from './auth/anonymous.js';
import { DEFAULT_SERVICE_ACCOUNT_ISSUER } from './auth/service-account-token.js';
import { authenticatedGroupAdder, failOnErrorAuthenticator, unionAuthenticator } from './auth/authenticator.js';
import { DEFAULT_AUTHORIZATION_MODES, splitModeFlag } from './auth/authorization-modes.js';
import { planAuthorization, startAuthorization, type AuthorizationPlan } from './auth/authorization-setup.js';
import { BearerTokenAuthenticator } from './auth/bearer-token.js';
import { DEFAULT_TOKEN_FAILURE_CACHE_TTL_MS, DEFAULT_TOKEN_SUCCESS_CACHE_TTL_MS } from './auth/token-cache.js';
import { buildKubeconfig, serverUrl, writeKubeconfig } from './auth/kubeconfig.js';
import { ensurePki } from './auth/pki.js';
import { userKubeconfig, type AddUserOptions } from './auth/user-kubeconfig.js';
import { StaticTokenAuthenticator, type TokenAuthenticator } from './auth/token-file.js';
import { X509Authenticator } from './auth/x509.js';
import type { StartServerOptions } from './server/options.js';
import { createApp, DEFAULT_REQUEST_TIMEOUT_MS } from './server/app.js';
import { quietLogger } from './server/context.js';
import type { Logger } from './machinery/logger.js';
import { FeatureGates, parseFeatureGatesFlag } from './server/feature-gates.js';
import { parseRuntimeConfigFlag, RuntimeConfigError } from './server/runtime-config.js';
import { DEFAULT_IN_FLIGHT_LIMITS, InFlightWatermark } from './server/filters/max-in-flight.js';
import { ServerMetrics } from './server/metrics/server-metrics.js';
import { validateShowHiddenMetricsVersion } from './server/metrics/stability.js';
import { shutdownCheck } from './server/health.js';
import { RequestDrain } from './server/filters/request-drain.js';
import { logAt } from './machinery/logger.js';
import { serveSecurely } from './server/https-server.js';
import { createApi } from './create-api.js';
import { etcdSecureContext } from './storage/etcd-tls.js';
import { enabledControllers } from './controllers/controller-names.js';
import { stopPretenuring } from './server/pretenuring.js';

export type { ApiComponents, ApiContext, ApiFactory, StorageKind } from './server/api-components.js';
export type { StartServerOptions } from './server/options.js';
export type { ApiHandler } from './server/app.js';
export type { KubeContext, KubeEnv } from './server/context.js';
export type { RequestInfo } from './machinery/request-info.js';
export type { UserInfo } from './auth/user.js';
export type { AddUserOptions } from './auth/user-kubeconfig.js';
export type { Authorizer, Attributes, AuthorizationResult } from './auth/authorizer.js';

export interface RunningServer {
  /** https://127.0.0.1:<port> */
  url: string;
  port: number;
  /** The admin kubeconfig's YAML text. */
  kubeconfig: string;
  kubeconfigPath: string;
  /** PEM of the CA that verifies the serving certificate. */
  caCert: string;
  dataDir: string;
  featureGates: FeatureGates;
  /** True when the admin certificate in the kubeconfig is accepted (the client CA includes our CA). */
  adminTrusted: boolean;
  /**
   * A kubeconfig (YAML text) for another user: a client certificate from the server's CA with
   * CN = name and one O per group, so RBAC applies to it as to any non-admin user.
   */
  addUser(user: AddUserOptions): Promise<string>;
  /** Stops accepting connections, ends watches and open requests, closes storage; resolves when done. */
  close(): Promise<void>;
}

export class ConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigurationError';
  }
}

function flagError(flag: string, value: string, why: string): ConfigurationError {
  return new ConfigurationError(`invalid argument ${JSON.stringify(value)} for "--${flag}" flag: ${why}`);
}

/** Gates that need another gate, checked with the options as kube-apiserver's Validate checks them. */
function featureGateDependencyErrors(gates: FeatureGates): string[] {
  if (gates.enabled('AuthorizeNodeWithSelectors') && !gates.enabled('AuthorizeWithSelectors')) {
    return ['AuthorizeNodeWithSelectors feature requires AuthorizeWithSelectors feature to be enabled'];
  }
  return [];
}

function buildFeatureGates(options: StartServerOptions, logger: Logger): FeatureGates {
  const gates = new FeatureGates().add(options.extraFeatureGates ?? {});
  const raw = options.featureGates;
  if (raw === undefined) return gates;
  const text = typeof raw === 'string' ? raw : Object.entries(raw).map(([k, v]) => `${k}=${v}`).join(',');
  try {
    const warn = (message: string) => (logger.warn ?? logger.info).call(logger, message);
    gates.set(typeof raw === 'string' ? parseFeatureGatesFlag(raw) : raw, warn);
  } catch (err) {
    throw flagError('feature-gates', text, (err as Error).message);
  }
  return gates;
}

/** The TLS of the etcd connections, checked at start; the files mean nothing to another storage. */
function etcdTls(storage: string, options: StartServerOptions): SecureContext | undefined {
  const files = { caFile: options.etcdCaFile, certFile: options.etcdCertFile, keyFile: options.etcdKeyFile };
  if (!files.caFile && !files.certFile && !files.keyFile) return undefined;
  if (storage !== 'etcd') throw new ConfigurationError(`--etcd-cafile, --etcd-certfile and --etcd-keyfile need etcd storage, not ${storage}`);
  try {
    return etcdSecureContext(files);
  } catch (err) {
    throw new ConfigurationError((err as Error).message);
  }
}

export async function startServer(options: StartServerOptions = {}): Promise<RunningServer> {
  stopPretenuring();
  const logger = options.logger ?? quietLogger;
  const bindAddress = options.bindAddress ?? '127.0.0.1';
  if (!isIP(bindAddress)) throw flagError('bind-address', bindAddress, `failed to parse IP: ${JSON.stringify(bindAddress)}`);
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw flagError('secure-port', String(port), 'must be between 0 and 65535');
  const etcdServers = (options.etcdServers ?? []).map((s) => s.trim()).filter((s) => s !== '');
  const etcdPrefix = options.etcdPrefix ?? '/registry';
  const storage = options.storage ?? (etcdServers.length > 0 ? 'etcd' : 'sqlite');
  if (storage !== 'memory' && storage !== 'sqlite' && storage !== 'etcd') {
    throw flagError('storage', String(storage), 'must be one of memory, sqlite, etcd');
  }
  if (storage === 'etcd' && etcdServers.length === 0) throw new ConfigurationError('--etcd-servers must be specified');
  const etcdSecureContext = etcdTls(storage, options);
  // Feature gates are flags: kube-apiserver has them before it validates the options.
  const featureGates = buildFeatureGates(options, logger);
  let authorizationPlan: AuthorizationPlan;
  try {
    authorizationPlan = planAuthorization({
      configFile: options.authorizationConfig,
      modes: options.authorizationMode === undefined ? undefined : splitModeFlag(options.authorizationMode),
      defaultModes: DEFAULT_AUTHORIZATION_MODES,
      policyFile: options.authorizationPolicyFile,
      webhook: {
        configFile: options.authorizationWebhookConfigFile,
        version: options.authorizationWebhookVersion,
        authorizedTTLMs: options.authorizationWebhookCacheAuthorizedTtlMs,
        unauthorizedTTLMs: options.authorizationWebhookCacheUnauthorizedTtlMs,
      },
      otherErrors: featureGateDependencyErrors(featureGates),
    });
  } catch (err) {
    throw new ConfigurationError((err as Error).message);
  }
  let audit: RunningAudit | undefined;
  // The audit backend counts into /metrics, which is made further down.
  let countAuditEvent: (() => void) | undefined;
  try {
    audit = startAudit({ ...options, onAuditEvent: () => { countAuditEvent?.(); options.onAuditEvent?.(); } }, logger);
  } catch (err) {
    throw new ConfigurationError((err as Error).message);
  }
  const hiddenMetricsError = validateShowHiddenMetricsVersion(options.showHiddenMetricsForVersion ?? '');
  if (hiddenMetricsError) throw new ConfigurationError(hiddenMetricsError);
  const runtimeConfig =
    typeof options.runtimeConfig === 'string'
      ? parseRuntimeConfigFlag(options.runtimeConfig)
      : Object.fromEntries(Object.entries(options.runtimeConfig ?? {}).map(([k, v]) => [k, String(v)]));

  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'kube-lite-'));
  const cleanups: (() => Promise<void> | void)[] = [];
  if (ownDataDir) cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  // Closed after serving stops, so the last requests' events are written.
  if (audit) cleanups.push(() => audit.close());
  const runCleanups = async () => {
    for (const fn of cleanups.reverse()) await fn();
    cleanups.length = 0;
  };

  try {
    const specificBind = bindAddress !== '0.0.0.0' && bindAddress !== '::';
    const pki = await ensurePki({
      dataDir,
      servingNames: specificBind ? [bindAddress] : [],
      clientCaFile: options.clientCaFile,
      tlsCertFile: options.tlsCertFile,
      tlsPrivateKeyFile: options.tlsPrivateKeyFile,
    });
    if (!pki.adminTrusted) logger.info('warning: --client-ca-file does not include the generated CA; admin.kubeconfig will not authenticate');

    // --api-audiences, by default the service account issuers, as kube-apiserver defaults it: what
    // tokens not tied to an audience count as meant for, and what a TokenReview without audiences asks about.
    const issuers = options.serviceAccountIssuers?.length ? options.serviceAccountIssuers : [DEFAULT_SERVICE_ACCOUNT_ISSUER];
    const apiAudiences: string[] = options.apiAudiences?.length ? options.apiAudiences : issuers;
    const tokenAuthenticators: TokenAuthenticator[] = [];
    if (options.tokenAuthFile) tokenAuthenticators.push(StaticTokenAuthenticator.fromFile(options.tokenAuthFile));

    const maxExpirationMs = options.serviceAccountMaxTokenExpirationMs ?? 0;
    if (maxExpirationMs !== 0 && (maxExpirationMs < 3600_000 || maxExpirationMs > 2 ** 32 * 1000)) {
      throw new ConfigurationError('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
    }
    try {
      enabledControllers(options.controllers);
    } catch (err) {
      throw new ConfigurationError((err as Error).message);
    }
    const defaultApi = () =>
      createApi({
        controllers: options.controllers,
        serviceAccounts: {
          issuers: options.serviceAccountIssuers,
          signingKeyFile: options.serviceAccountSigningKeyFile,
          keyFiles: options.serviceAccountKeyFiles,
          maxTokenExpirationSeconds: Math.floor(maxExpirationMs / 1000),
          extendTokenExpiration: options.serviceAccountExtendTokenExpiration,
          jwksUri: options.serviceAccountJwksUri,
          apiAudiences: options.apiAudiences,
        },
        historyWindowMs: options.historyWindowMs,
        eventTTLMs: options.eventTTLMs,
        minRequestTimeoutSeconds: options.minRequestTimeoutSeconds,
        enableBootstrapTokenAuth: options.enableBootstrapTokenAuth,
        watchCache: { bookmarkIntervalMs: options.watchBookmarkIntervalMs },
      });
    // One registry per server; the API and the authorizers record into it, read at scrape time.
    let objectCounts: (() => Iterable<[string, number]>) | undefined;
    const inFlightWatermark = new InFlightWatermark();
    const sqliteFile = join(dataDir, 'state.sqlite');
    const metrics =
      options.metrics === false
        ? undefined
        : new ServerMetrics({
            showHidden: (options.showHiddenMetricsForVersion ?? '') !== '',
            objectCounts: () => objectCounts?.() ?? [],
            inflight: () => inFlightWatermark.take(),
            databaseSizes: () => (storage === 'sqlite' ? [[sqliteFile, statSync(sqliteFile, { throwIfNoEntry: false })?.size ?? -1]] : []),
          });
    countAuditEvent = () => metrics?.auditEventWritten();
    let api;
    try {
      api = await (options.api ?? defaultApi())({ storage, dataDir, etcdServers, etcdPrefix, etcdSecureContext, featureGates, runtimeConfig, logger, rootCa: pki.servingCa, onDeclarativeValidationMismatch: () => {
          metrics?.declarativeValidationMismatch();
          options.onDeclarativeValidationMismatch?.();
        }, metrics });
    } catch (err) {
      if (err instanceof RuntimeConfigError) throw new ConfigurationError(err.message);
      throw err;
    }
    if (api?.close) cleanups.push(() => api.close?.());
    if (api?.objectCounts) objectCounts = () => api.objectCounts!();
    tokenAuthenticators.push(...(api?.tokenAuthenticators ?? []));

    // kube-apiserver's chain: certificates, then bearer tokens (token file, bootstrap tokens,
    // service account tokens); system:authenticated added to whoever passes; anonymous, when on,
    // only for a request that presented no credential at all.
    const credentialed = authenticatedGroupAdder(
      unionAuthenticator([
        new X509Authenticator(pki.clientRoots),
        new BearerTokenAuthenticator(tokenAuthenticators, apiAudiences, {
          successMs: options.tokenSuccessCacheTTLMs ?? DEFAULT_TOKEN_SUCCESS_CACHE_TTL_MS,
          failureMs: options.tokenFailureCacheTTLMs ?? DEFAULT_TOKEN_FAILURE_CACHE_TTL_MS,
        }),
      ]),
    );
    const authenticator = options.anonymousAuth ? failOnErrorAuthenticator(credentialed, new AnonymousAuthenticator()) : credentialed;
    api?.useAuthenticator?.(authenticator, apiAudiences);
    let authorizer;
    try {
      const authorization = await startAuthorization(authorizationPlan, {
        factories: { ...api?.authorizerFactories, ...options.authorizerFactories },
        files: { policyFile: options.authorizationPolicyFile },
        webhookRetryBackoff: options.authorizationWebhookRetryBackoff,
        reloadIntervalMs: options.authorizationConfigReloadIntervalMs,
        logger,
        metrics,
      });
      cleanups.push(() => authorization.close());
      authorizer = authorization.authorizer;
      api?.useAuthorizer?.(authorizer);
    } catch (err) {
      // kube-apiserver's BuildAuthorizer failures (an ABAC policy line, say) carry this prefix.
      throw new ConfigurationError(`invalid authorization config: ${(err as Error).message}`);
    }

    let shuttingDown = false;
    const drain = new RequestDrain();
    const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const extraChecks = api?.healthChecks ?? {};
    const app = createApp({
      authenticator,
      authorizer,
      authorizeWithSelectors: featureGates.enabled('AuthorizeWithSelectors'),
      apiHandler: api?.handler,
      writeStatus: api?.writeStatus,
      deprecatedResources: api?.deprecatedResources,
      onDeprecatedRequest: (labels) => {
        metrics?.deprecatedApiRequested(labels);
        options.onDeprecatedRequest?.(labels);
      },
      logger,
      requestTimeoutMs,
      drain,
      metrics,
      serves: api?.serves,
      inFlightWatermark,
      audit: audit?.config,
      inFlightLimits: {
        nonMutating: options.maxRequestsInflight ?? DEFAULT_IN_FLIGHT_LIMITS.nonMutating,
        mutating: options.maxMutatingRequestsInflight ?? DEFAULT_IN_FLIGHT_LIMITS.mutating,
      },
      healthChecks: {
        livez: extraChecks.livez ?? [],
        healthz: extraChecks.healthz ?? [],
        readyz: [...(extraChecks.readyz ?? []), shutdownCheck(() => shuttingDown)],
      },
    });

    const serving = await serveSecurely({
      app,
      certPem: pki.servingCert,
      keyPem: pki.servingKey,
      clientCaPem: pki.clientCa,
      host: bindAddress,
      port,
      http2MaxStreamsPerConnection: options.http2MaxStreamsPerConnection,
      logger,
    });
    cleanups.push(() => serving.close());

    const url = serverUrl(bindAddress, serving.port);
    logAt(logger, 0, 'Serving securely', { address: url, storage, dataDir });
    api?.serving?.(url);
    const kubeconfig = buildKubeconfig({ server: url, caPem: pki.servingCa, clientCertPem: pki.adminCert, clientKeyPem: pki.adminKey });
    const kubeconfigPath = join(dataDir, 'admin.kubeconfig');
    writeKubeconfig(kubeconfigPath, kubeconfig);

    let closing: Promise<void> | undefined;
    return {
      url,
      port: serving.port,
      kubeconfig,
      kubeconfigPath,
      caCert: pki.servingCa,
      dataDir,
      featureGates,
      adminTrusted: pki.adminTrusted,
      addUser: (user) => userKubeconfig({ dataDir, server: url, servingCa: pki.servingCa, trusted: pki.adminTrusted }, user),
      close() {
        closing ??= (async () => {
          // kube-apiserver's order: /readyz fails at once; after --shutdown-delay-duration no new
          // connections and the in-process controllers stop; the requests in flight finish (each
          // within its own timeout); then the watches end and get the grace period to finish
          // their streams; the store closes last.
          shuttingDown = true;
          const delayMs = options.shutdownDelayMs ?? 0;
          logAt(logger, 1, '[graceful-termination] shutdown event', { name: 'ShutdownInitiated', delay: `${delayMs}ms` });
          if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
          serving.stopAccepting();
          logAt(logger, 1, '[graceful-termination] shutdown event', { name: 'NotAcceptingNewRequest' });
          api?.stopControllers?.();
          const drained = await drain.drained(requestTimeoutMs);
          logAt(logger, 1, '[graceful-termination] shutdown event', { name: 'InFlightNonLongRunningRequestsDrained', complete: drained });
          api?.terminateWatches?.();
          await serving.closeConnections(options.shutdownWatchTerminationGracePeriodMs ?? 0);
          logAt(logger, 1, '[graceful-termination] shutdown event', { name: 'HTTPServerStoppedListening' });
          await runCleanups();
          logAt(logger, 1, '[graceful-termination] apiserver is exiting');
        })();
        return closing;
      },
    };
  } catch (err) {
    await runCleanups();
    throw err;
  }
}
