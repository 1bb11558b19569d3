// Command-line flags, with kube-apiserver's names where it has the flag and its error wording
// (`invalid argument "x" for "--flag" flag: ...`). The result is StartServerOptions; checks that
// need more context (feature gate names, authorization modes) happen in startServer.

import { parseArgs } from 'node:util';
import { isIP } from 'node:net';
import type { StartServerOptions } from './options.js';
import { parseGoDuration } from '../machinery/duration.js';
import { LOGGING_FORMATS, type LoggingFormat } from './klog.js';
import { FeatureGates } from './feature-gates.js';

export class FlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlagError';
  }
}

const invalid = (flag: string, value: string, why: string) =>
  new FlagError(`invalid argument ${JSON.stringify(value)} for "--${flag}" flag: ${why}`);

const STRING_FLAGS = [
  'secure-port',
  'bind-address',
  'data-dir',
  'token-auth-file',
  'client-ca-file',
  'tls-cert-file',
  'tls-private-key-file',
  'authorization-mode',
  'authorization-policy-file',
  'authorization-config',
  'authorization-webhook-config-file',
  'authorization-webhook-version',
  'authorization-webhook-cache-authorized-ttl',
  'authorization-webhook-cache-unauthorized-ttl',
  'feature-gates',
  'runtime-config',
  'storage',
  'etcd-servers',
  'etcd-prefix',
  'etcd-cafile',
  'etcd-certfile',
  'etcd-keyfile',
  'etcd-compaction-interval',
  'event-ttl',
  'request-timeout',
  'max-requests-inflight',
  'max-mutating-requests-inflight',
  'http2-max-streams-per-connection',
  'show-hidden-metrics-for-version',
  'service-account-signing-key-file',
  'service-account-max-token-expiration',
  'service-account-jwks-uri',
  'api-audiences',
  'controllers',
  'shutdown-delay-duration',
  'shutdown-watch-termination-grace-period',
  'logging-format',
  'v',
  'audit-policy-file',
  'audit-log-path',
  'audit-log-maxage',
  'audit-log-maxbackup',
  'audit-log-maxsize',
  'audit-log-format',
  'audit-log-mode',
  'audit-log-batch-buffer-size',
] as const;

/** pflag StringArray flags: each occurrence adds one value. */
const ARRAY_FLAGS = ['service-account-issuer', 'service-account-key-file'] as const;

/** Go bool flags: `--flag` is true, `--flag=<bool>` sets it; they never take the next argument. */
const BOOL_FLAGS = ['enable-bootstrap-token-auth', 'anonymous-auth', 'service-account-extend-token-expiration'] as const;
type BoolFlag = (typeof BOOL_FLAGS)[number];

/** Go's strconv.ParseBool. */
function parseGoBool(flag: string, value: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw invalid(flag, value, `strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

/** Takes the bool flags out of argv (the last occurrence wins, as pflag's does). */
function takeBoolFlags(argv: string[]): { rest: string[]; bools: Partial<Record<BoolFlag, boolean>> } {
  const rest: string[] = [];
  const bools: Partial<Record<BoolFlag, boolean>> = {};
  for (const arg of argv) {
    const m = /^--([a-z-]+)(?:=(.*))?$/s.exec(arg);
    const flag = m && (BOOL_FLAGS as readonly string[]).includes(m[1]) ? (m[1] as BoolFlag) : undefined;
    if (!flag) rest.push(arg);
    else bools[flag] = m![2] === undefined ? true : parseGoBool(flag, m![2]);
  }
  return { rest, bools };
}

/** kube's help lists the gates one may still set: every alpha and beta gate, with its default. */
const FEATURE_GATE_OPTIONS = new FeatureGates()
  .knownFeatures()
  .map((line) => `${' '.repeat(45)}${line}`)
  .join('\n');

export const USAGE = `Usage: kube-lite-apiserver [flags]

Flags:
      --secure-port int                      port to serve HTTPS on (default 6443; 0 picks a free port)
      --bind-address ip                      address to listen on (default 127.0.0.1)
      --data-dir string                      where certificates, the kubeconfig and the database live (default .data)
      --storage string                       memory, sqlite or etcd (default sqlite; etcd when --etcd-servers is set)
      --etcd-servers strings                 etcd client URLs, comma-separated; switches storage to etcd
      --etcd-prefix string                   prefix of every key in etcd (default "/registry")
      --etcd-cafile string                   CA bundle that verifies etcd's certificates (https endpoints; default: the system's roots)
      --etcd-certfile string                 client certificate presented to etcd (with --etcd-keyfile)
      --etcd-keyfile string                  private key of --etcd-certfile
      --etcd-compaction-interval duration    how long history is kept for watches and continue tokens: etcd is
                                             compacted, and the SQLite log trimmed, on this schedule (default 5m0s; 0 never)
      --event-ttl duration                   Events are deleted this long after their last write (default 1h0m0s; 0 never)
      --token-auth-file string               CSV of static bearer tokens: token,user,uid,"group1,group2"
      --enable-bootstrap-token-auth          bearer tokens from bootstrap-token Secrets in kube-system
      --anonymous-auth                       requests without credentials run as system:anonymous (default false)
      --service-account-issuer stringArray   issuer written into service account tokens; repeat to accept more
                                             (default https://kubernetes.default.svc.cluster.local)
      --service-account-signing-key-file string  private key that signs service account tokens
                                             (default: a key made in the data dir on first start)
      --service-account-key-file stringArray PEM of public keys that verify service account tokens (default: the signing key)
      --service-account-max-token-expiration duration  longest lifetime a TokenRequest gets (default: no limit)
      --service-account-extend-token-expiration  kubelet's one-hour pod tokens last a year, warned about after the hour (default true)
      --service-account-jwks-uri string      jwks_uri of the issuer discovery document (default: this server's /openid/v1/jwks)
      --api-audiences strings                audiences the server accepts tokens for (default: the issuers)
      --controllers strings                  in-process controllers: * for all, name to add, -name to drop
                                             (serviceaccount, serviceaccount-token, root-ca-cert-publisher, ephemeral-volume,
                                             clusterrole-aggregation; bootstrapsigner and tokencleaner only when named)
      --client-ca-file string                CA bundle that verifies client certificates (default: the generated CA)
      --tls-cert-file string                 serving certificate (default: generated)
      --tls-private-key-file string          key of --tls-cert-file
      --authorization-mode strings           ordered authorizers: AlwaysAllow, AlwaysDeny, ABAC, Node, RBAC, Webhook (default Node,RBAC)
      --authorization-policy-file string     ABAC policy, one JSON object per line (with --authorization-mode=ABAC)
      --authorization-config string          AuthorizationConfiguration file (authorizers in order, webhooks with
                                             match conditions), reloaded as it changes; excludes --authorization-mode
                                             and --authorization-webhook-*
      --authorization-webhook-config-file string  kubeconfig of the webhook --authorization-mode=Webhook asks
      --authorization-webhook-version string SubjectAccessReview version sent to the webhook: v1 or v1beta1 (default v1beta1)
      --authorization-webhook-cache-authorized-ttl duration    how long allowed answers are cached (default 5m0s)
      --authorization-webhook-cache-unauthorized-ttl duration  how long other answers are cached (default 30s)
      --feature-gates mapStringBool          A set of key=value pairs that describe feature gates for alpha/experimental features. Options are:
${FEATURE_GATE_OPTIONS}
      --runtime-config mapStringString       group versions to serve or not: <group>/<version>[=true|false],
                                             <group>/<version>/<resource>[=true|false], api/all, api/ga,
                                             api/beta, api/alpha (default: stable versions only)
      --request-timeout duration             deadline of non-long-running requests (default 1m0s)
      --max-requests-inflight int            concurrent non-mutating requests (default 400; 0 = no limit)
      --max-mutating-requests-inflight int   concurrent mutating requests (default 200; 0 = no limit)
      --http2-max-streams-per-connection int streams a client may open on one HTTP/2 connection (default 0:
                                             kube-apiserver's 100)
      --shutdown-delay-duration duration     on SIGTERM, how long /readyz fails before the server stops accepting
                                             connections, so load balancers can stop sending (default 0s)
      --shutdown-watch-termination-grace-period duration  on SIGTERM, how long ended watches get to finish
                                             their streams before their connections close (default 0s)
      --logging-format string                text (klog's form) or json (default "text")
  -v, --v Level                              log verbosity: 0-2 start-up facts, 3 one line per request, 4+ debug (default 0)
      --show-hidden-metrics-for-version string  the previous minor version (1.32) to also export the
                                             metrics deprecated in it and hidden since
      --audit-policy-file string             audit.k8s.io/v1 Policy: what is recorded of which request (no policy: no auditing)
      --audit-log-path string                audit events, one JSON (or legacy text) line each; '-' for standard output
      --audit-log-maxage int                 days to keep rotated audit logs, by the time in their names (default 0: no limit)
      --audit-log-maxbackup int              rotated audit logs to keep (default 0: no limit)
      --audit-log-maxsize int                megabytes before the audit log is rotated (default 0: never)
      --audit-log-format string              json or legacy (default "json")
      --audit-log-mode string                blocking, blocking-strict or batch (default "blocking")
      --audit-log-batch-buffer-size int      audit events queued before new ones are dropped (default 10000)
  -h, --help                                 show this help
`;

/** Go's strconv.ParseInt for a flag value. */
function parseIntFlag(flag: string, value: string): number {
  if (!/^[+-]?\d+$/.test(value)) {
    throw invalid(flag, value, `strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  }
  return Number(value);
}

export interface LoggingOptions {
  format: LoggingFormat;
  verbosity: number;
}

export type ParsedFlags = { help: true } | { help: false; options: StartServerOptions & { port: number; dataDir: string }; logging: LoggingOptions };

/** pflag's shorthand forms of -v (`-v 3`, `-v=3`, `-v3`) as the long flag. */
function normalizeVerbosity(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-v') {
      if (i + 1 >= argv.length) throw new FlagError("flag needs an argument: 'v' in -v");
      out.push(`--v=${argv[++i]}`);
    } else if (/^-v.+/.test(arg)) {
      out.push(`--v=${arg.slice(arg[2] === '=' ? 3 : 2)}`);
    } else {
      out.push(arg);
    }
  }
  return out;
}

function parseDurationFlag(flag: string, value: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(value);
  } catch (err) {
    throw invalid(flag, value, (err as Error).message);
  }
  return ms;
}

function parseLogging(v: Partial<Record<string, string>>): LoggingOptions {
  const format = v['logging-format'] ?? 'text';
  if (!(LOGGING_FORMATS as readonly string[]).includes(format)) {
    const supported = LOGGING_FORMATS.map((f) => JSON.stringify(f)).sort().join(', ');
    throw new FlagError(`logging.format: Unsupported value: ${JSON.stringify(format)}: supported values: ${supported}`);
  }
  let verbosity = 0;
  if (v.v !== undefined) {
    if (!/^[+-]?\d+$/.test(v.v)) throw new FlagError(`invalid argument ${JSON.stringify(v.v)} for "-v, --v" flag: strconv.ParseInt: parsing ${JSON.stringify(v.v)}: invalid syntax`);
    verbosity = Number(v.v);
    if (verbosity < 0 || verbosity > 2 ** 31 - 1) throw new FlagError(`invalid argument ${JSON.stringify(v.v)} for "-v, --v" flag: strconv.ParseInt: parsing ${JSON.stringify(v.v)}: value out of range`);
  }
  return { format: format as LoggingFormat, verbosity };
}

export function parseFlags(argv: string[]): ParsedFlags {
  let values: Record<string, string | boolean | undefined>;
  const { rest, bools } = takeBoolFlags(normalizeVerbosity(argv));
  try {
    ({ values } = parseArgs({
      args: rest,
      strict: true,
      allowPositionals: false,
      options: {
        ...Object.fromEntries(STRING_FLAGS.map((f) => [f, { type: 'string' as const }])),
        ...Object.fromEntries(ARRAY_FLAGS.map((f) => [f, { type: 'string' as const, multiple: true }])),
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    const e = err as Error & { code?: string };
    if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const flag = /'([^']+)'/.exec(e.message)?.[1] ?? '';
      throw new FlagError(`unknown flag: ${flag}`);
    }
    if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const flag = /'(--[^ ']+)/.exec(e.message)?.[1] ?? '';
      throw new FlagError(`flag needs an argument: ${flag}`);
    }
    if (e.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') throw new FlagError(`unexpected argument: ${e.message}`);
    throw err;
  }
  if (values.help) return { help: true };
  const v = values as Partial<Record<(typeof STRING_FLAGS)[number], string>>;

  const port = v['secure-port'] === undefined ? 6443 : parseIntFlag('secure-port', v['secure-port']);
  if (port < 0 || port > 65535) throw invalid('secure-port', String(v['secure-port']), 'must be between 0 and 65535, inclusive');
  const bindAddress = v['bind-address'] ?? '127.0.0.1';
  if (!isIP(bindAddress)) throw invalid('bind-address', bindAddress, `failed to parse IP: ${JSON.stringify(bindAddress)}`);
  const etcdServers = (v['etcd-servers'] ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const storage = v.storage ?? (etcdServers.length > 0 ? 'etcd' : 'sqlite');
  if (storage !== 'memory' && storage !== 'sqlite' && storage !== 'etcd') throw invalid('storage', storage, 'must be one of memory, sqlite, etcd');

  const options: StartServerOptions & { port: number; dataDir: string } = {
    port,
    bindAddress,
    dataDir: v['data-dir'] ?? '.data',
    storage,
  };
  if (etcdServers.length > 0) options.etcdServers = etcdServers;
  if (v['etcd-prefix'] !== undefined) options.etcdPrefix = v['etcd-prefix'];
  if (v['etcd-cafile'] !== undefined) options.etcdCaFile = v['etcd-cafile'];
  if (v['etcd-certfile'] !== undefined) options.etcdCertFile = v['etcd-certfile'];
  if (v['etcd-keyfile'] !== undefined) options.etcdKeyFile = v['etcd-keyfile'];
  if (v['token-auth-file'] !== undefined) options.tokenAuthFile = v['token-auth-file'];
  if (bools['enable-bootstrap-token-auth'] !== undefined) options.enableBootstrapTokenAuth = bools['enable-bootstrap-token-auth'];
  if (bools['anonymous-auth'] !== undefined) options.anonymousAuth = bools['anonymous-auth'];
  if (v['client-ca-file'] !== undefined) options.clientCaFile = v['client-ca-file'];
  if (v['tls-cert-file'] !== undefined) options.tlsCertFile = v['tls-cert-file'];
  if (v['tls-private-key-file'] !== undefined) options.tlsPrivateKeyFile = v['tls-private-key-file'];
  if (v['authorization-mode'] !== undefined) options.authorizationMode = v['authorization-mode'];
  if (v['authorization-policy-file'] !== undefined) options.authorizationPolicyFile = v['authorization-policy-file'];
  if (v['authorization-config'] !== undefined) options.authorizationConfig = v['authorization-config'];
  if (v['authorization-webhook-config-file'] !== undefined) options.authorizationWebhookConfigFile = v['authorization-webhook-config-file'];
  if (v['authorization-webhook-version'] !== undefined) options.authorizationWebhookVersion = v['authorization-webhook-version'];
  for (const [flag, key] of [
    ['authorization-webhook-cache-authorized-ttl', 'authorizationWebhookCacheAuthorizedTtlMs'],
    ['authorization-webhook-cache-unauthorized-ttl', 'authorizationWebhookCacheUnauthorizedTtlMs'],
  ] as const) {
    const text = v[flag];
    if (text === undefined) continue;
    try {
      options[key] = parseGoDuration(text);
    } catch (err) {
      throw invalid(flag, text, (err as Error).message);
    }
  }
  if (v['feature-gates'] !== undefined) options.featureGates = v['feature-gates'];
  if (v['runtime-config'] !== undefined) options.runtimeConfig = v['runtime-config'];
  if (v['etcd-compaction-interval'] !== undefined) {
    try {
      options.historyWindowMs = parseGoDuration(v['etcd-compaction-interval']);
    } catch (err) {
      throw invalid('etcd-compaction-interval', v['etcd-compaction-interval'], (err as Error).message);
    }
  }
  if (v['event-ttl'] !== undefined) {
    try {
      options.eventTTLMs = parseGoDuration(v['event-ttl']);
    } catch (err) {
      throw invalid('event-ttl', v['event-ttl'], (err as Error).message);
    }
  }
  if (v['request-timeout'] !== undefined) {
    try {
      options.requestTimeoutMs = parseGoDuration(v['request-timeout']);
    } catch (err) {
      throw invalid('request-timeout', v['request-timeout'], (err as Error).message);
    }
  }
  const arrays = values as Partial<Record<(typeof ARRAY_FLAGS)[number], string[]>>;
  if (arrays['service-account-issuer'] !== undefined) options.serviceAccountIssuers = arrays['service-account-issuer'];
  if (arrays['service-account-key-file'] !== undefined) options.serviceAccountKeyFiles = arrays['service-account-key-file'];
  if (v['service-account-signing-key-file'] !== undefined) options.serviceAccountSigningKeyFile = v['service-account-signing-key-file'];
  if (v['service-account-jwks-uri'] !== undefined) options.serviceAccountJwksUri = v['service-account-jwks-uri'];
  if (bools['service-account-extend-token-expiration'] !== undefined) options.serviceAccountExtendTokenExpiration = bools['service-account-extend-token-expiration'];
  if (v.controllers !== undefined) options.controllers = v.controllers.split(',').map((c) => c.trim()).filter((c) => c !== '');
  if (v['api-audiences'] !== undefined) options.apiAudiences = v['api-audiences'].split(',').map((a) => a.trim()).filter((a) => a !== '');
  if (v['service-account-max-token-expiration'] !== undefined) {
    try {
      options.serviceAccountMaxTokenExpirationMs = parseGoDuration(v['service-account-max-token-expiration']);
    } catch (err) {
      throw invalid('service-account-max-token-expiration', v['service-account-max-token-expiration'], (err as Error).message);
    }
  }
  if (v['max-requests-inflight'] !== undefined) options.maxRequestsInflight = parseIntFlag('max-requests-inflight', v['max-requests-inflight']);
  if (v['max-mutating-requests-inflight'] !== undefined) {
    options.maxMutatingRequestsInflight = parseIntFlag('max-mutating-requests-inflight', v['max-mutating-requests-inflight']);
  }
  if (v['http2-max-streams-per-connection'] !== undefined) {
    const streams = parseIntFlag('http2-max-streams-per-connection', v['http2-max-streams-per-connection']);
    // kube-apiserver takes any int and uses its default for 0 and below; past uint32 (the SETTINGS
    // field) Go's conversion would wrap, so such a value is refused here instead.
    if (streams > 0xffff_ffff) {
      throw invalid('http2-max-streams-per-connection', v['http2-max-streams-per-connection'], 'must be at most 4294967295');
    }
    options.http2MaxStreamsPerConnection = Math.max(streams, 0);
  }
  if (v['audit-policy-file'] !== undefined) options.auditPolicyFile = v['audit-policy-file'];
  if (v['audit-log-path'] !== undefined) options.auditLogPath = v['audit-log-path'];
  if (v['audit-log-format'] !== undefined) options.auditLogFormat = v['audit-log-format'];
  if (v['audit-log-mode'] !== undefined) options.auditLogMode = v['audit-log-mode'];
  for (const [flag, key] of [
    ['audit-log-maxage', 'auditLogMaxAge'],
    ['audit-log-maxbackup', 'auditLogMaxBackup'],
    ['audit-log-maxsize', 'auditLogMaxSize'],
    ['audit-log-batch-buffer-size', 'auditLogBatchBufferSize'],
  ] as const) {
    if (v[flag] !== undefined) options[key] = parseIntFlag(flag, v[flag]);
  }
  if (v['show-hidden-metrics-for-version'] !== undefined) options.showHiddenMetricsForVersion = v['show-hidden-metrics-for-version'];
  if (v['shutdown-delay-duration'] !== undefined) {
    options.shutdownDelayMs = parseDurationFlag('shutdown-delay-duration', v['shutdown-delay-duration']);
    if (options.shutdownDelayMs < 0) throw new FlagError('--shutdown-delay-duration can not be negative value');
  }
  if (v['shutdown-watch-termination-grace-period'] !== undefined) {
    const grace = parseDurationFlag('shutdown-watch-termination-grace-period', v['shutdown-watch-termination-grace-period']);
    if (grace < 0) throw new FlagError('shutdown-watch-termination-grace-period, if provided, can not be a negative value');
    options.shutdownWatchTerminationGracePeriodMs = grace;
  }
  return { help: false, options, logging: parseLogging(v) };
}
