// How the server's authorizer comes to be, as kube-apiserver's BuiltInAuthorizationOptions
// decides it: --authorization-config (validated before anything starts, then reloaded as it
// changes) or the legacy --authorization-mode and --authorization-webhook-* flags, never both.

import { readFileSync } from 'node:fs';
import type { Logger } from '../machinery/logger.js';
import { goPathError } from '../machinery/go-file-error.js';
import { aggregateMessage } from './aggregate.js';
import {
  configurationFromModes,
  legacyWebhookVersionError,
  loadAuthorizationConfiguration,
  type AuthorizationConfiguration,
  type LegacyWebhookFlags,
} from './authorization-config.js';
import { buildAuthorizerChain, type ChainOptions } from './authorization-chain.js';
import { authorizationModeErrors, type AuthorizationMode } from './authorization-modes.js';
import { ReloadingAuthorizer } from './authorization-reload.js';
import type { Authorizer, RuleResolver } from './authorizer.js';

export type AuthorizationPlan = { kind: 'file'; path: string } | { kind: 'flags'; config: AuthorizationConfiguration };

export interface AuthorizationFlags {
  configFile?: string;
  /** As the flag names them (splitModeFlag); undefined when --authorization-mode was not given. */
  modes?: string[];
  defaultModes: AuthorizationMode[];
  /** --authorization-policy-file, for ABAC. */
  policyFile?: string;
  webhook: LegacyWebhookFlags;
  /**
   * The problems kube-apiserver's option validation finds elsewhere (feature gates that need
   * each other), which it reports in the same aggregate, after the authorization flags' own.
   */
  otherErrors?: string[];
}

const webhookFlagSet = (w: LegacyWebhookFlags): boolean => Object.values(w).some((v) => v !== undefined);

function readConfigFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(goPathError('open', path, err));
  }
}

/**
 * Validate(): throws kube-apiserver's start-up error (one message, or several in brackets as
 * utilerrors.NewAggregate prints them), or says what to build.
 */
export function planAuthorization(flags: AuthorizationFlags): AuthorizationPlan {
  const others = flags.otherErrors ?? [];
  if (flags.configFile !== undefined && flags.configFile !== '') {
    // kube-apiserver's Validate returns at the first problem of the file path.
    if (flags.modes !== undefined || webhookFlagSet(flags.webhook)) {
      throw new Error(aggregateMessage(['--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined', ...others]));
    }
    try {
      loadAuthorizationConfiguration(readConfigFile(flags.configFile));
    } catch (err) {
      throw new Error(aggregateMessage([(err as Error).message, ...others]));
    }
    if (others.length > 0) throw new Error(aggregateMessage(others));
    return { kind: 'file', path: flags.configFile };
  }
  const modes = flags.modes ?? flags.defaultModes;
  const errors = [...authorizationModeErrors(modes, { policyFile: flags.policyFile, webhookConfigFile: flags.webhook.configFile }), ...others];
  if (errors.length > 0) throw new Error(aggregateMessage(errors));
  const versionError = legacyWebhookVersionError(flags.webhook);
  if (versionError !== undefined) throw new Error(versionError);
  return { kind: 'flags', config: configurationFromModes(modes as AuthorizationMode[], flags.webhook) };
}

export interface ServerAuthorizer {
  authorizer: Authorizer & RuleResolver;
  close(): void;
}

export async function startAuthorization(
  plan: AuthorizationPlan,
  options: ChainOptions & { logger: Logger; reloadIntervalMs?: number },
): Promise<ServerAuthorizer> {
  if (plan.kind === 'file') {
    const reloading = await ReloadingAuthorizer.start({ ...options, path: plan.path });
    return { authorizer: reloading, close: () => reloading.close() };
  }
  const chain = await buildAuthorizerChain(plan.config, options);
  return { authorizer: chain.authorizer, close: chain.close };
}
