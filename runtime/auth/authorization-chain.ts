// The authorizer chain from an AuthorizationConfiguration, whether it came from
// --authorization-config or from the legacy flags: system:masters first, then each authorizer
// in order. Built-in types come from the same factory table as --authorization-mode (so modes
// added there plug in here too); Webhook authorizers are built from their own configuration.

import type { Logger } from '../machinery/logger.js';
import type { ApiMetrics } from '../machinery/metrics.js';
import { BUILTIN_AUTHORIZER_FACTORIES, type AuthorizationMode, type AuthorizationModeFiles, type AuthorizerFactory } from './authorization-modes.js';
import type { AuthorizationConfiguration, WebhookConfiguration } from './authorization-config.js';
import { privilegedGroupsAuthorizer, unionAuthorizer, type AuthorizationResult, type Authorizer, type RuleResolver } from './authorizer.js';
import { WebhookAuthorizer, type RetryBackoff } from './webhook-authorizer.js';
import { loadWebhookKubeconfig, WebhookClient } from './webhook-client.js';
import { compileMatchConditions } from './webhook-match-conditions.js';

export interface AuthorizerChain {
  authorizer: Authorizer & RuleResolver;
  webhooks: WebhookAuthorizer[];
  close(): void;
}

export interface ChainOptions {
  factories?: Partial<Record<AuthorizationMode, AuthorizerFactory>>;
  /** Files the built-in modes read (ABAC's --authorization-policy-file). */
  files?: AuthorizationModeFiles;
  /** The webhooks' retry backoff; kube-apiserver's default when absent. */
  webhookRetryBackoff?: RetryBackoff;
  logger?: Logger;
  /** Where each authorizer's terminal decisions are counted. */
  metrics?: ApiMetrics;
}

/**
 * Counts an authorizer's allow and deny answers (not its no-opinions) under its type and name, as
 * kube's instrumented authorizers feed apiserver_authorization_decisions_total. The two series are
 * looked up at the first decision of each kind and kept, so a decision costs an increment.
 */
function counted(authorizer: Authorizer, type: string, name: string, metrics: ApiMetrics | undefined): Authorizer {
  if (!metrics) return authorizer;
  const authorize = authorizer.authorize.bind(authorizer);
  let allowed: { inc(): void } | undefined;
  let denied: { inc(): void } | undefined;
  const count = (result: AuthorizationResult) => {
    if (result.decision === 'allow') (allowed ??= metrics.authorizationDecisions(type, name, 'allowed')).inc();
    else if (result.decision === 'deny') (denied ??= metrics.authorizationDecisions(type, name, 'denied')).inc();
    return result;
  };
  return Object.assign(Object.create(authorizer) as Authorizer, {
    authorize(attributes: Parameters<Authorizer['authorize']>[0]) {
      const result = authorize(attributes);
      return result instanceof Promise ? result.then(count) : count(result);
    },
  });
}

function buildWebhook(name: string, config: WebhookConfiguration, options: ChainOptions): WebhookAuthorizer {
  const file = config.connectionInfo.kubeConfigFile;
  if (config.connectionInfo.type !== 'KubeConfigFile' || !file) throw new Error(`authorizer ${name}: InClusterConfig is not allowed for kube-apiserver`);
  let endpoint;
  try {
    endpoint = loadWebhookKubeconfig(file);
  } catch (err) {
    throw new Error(`authorizer ${name}: loading ${file}: ${(err as Error).message}`);
  }
  const compiled = compileMatchConditions(config.matchConditions, 'matchConditions');
  if (compiled.causes.length > 0) throw new Error(compiled.causes.map((c) => `${c.field}: ${c.message}`).join(', '));
  return new WebhookAuthorizer({
    name,
    client: new WebhookClient(endpoint, config.timeoutMs),
    version: config.subjectAccessReviewVersion,
    authorizedTTLMs: config.authorizedTTLMs,
    unauthorizedTTLMs: config.unauthorizedTTLMs,
    failurePolicy: config.failurePolicy === 'Deny' ? 'Deny' : 'NoOpinion',
    matchConditions: compiled.conditions,
    retryBackoff: options.webhookRetryBackoff,
    onCallError: options.logger ? (message) => options.logger?.error(message) : undefined,
  });
}

export async function buildAuthorizerChain(config: AuthorizationConfiguration, options: ChainOptions = {}): Promise<AuthorizerChain> {
  const factories = { ...BUILTIN_AUTHORIZER_FACTORIES, ...options.factories };
  const webhooks: WebhookAuthorizer[] = [];
  const close = () => webhooks.forEach((w) => w.close());
  const chain: Authorizer[] = [privilegedGroupsAuthorizer()];
  try {
    for (const entry of config.authorizers) {
      if (entry.type === 'Webhook' && entry.webhook) {
        const webhook = buildWebhook(entry.name, entry.webhook, options);
        webhooks.push(webhook);
        chain.push(counted(webhook, entry.type, entry.name, options.metrics));
        continue;
      }
      const factory = factories[entry.type as AuthorizationMode];
      if (!factory) throw new Error(`authorization-mode "${entry.type}" is not supported by this server yet`);
      chain.push(counted(await factory(options.files ?? {}), entry.type, entry.name, options.metrics));
    }
  } catch (err) {
    close();
    throw err;
  }
  return { authorizer: unionAuthorizer(chain), webhooks, close };
}
