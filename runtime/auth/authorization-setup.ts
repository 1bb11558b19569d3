// How the server's authorizer comes to be, as kube-apiserver's BuiltInAuthorizationOptions
// decides it: --authorization-config (validated before anything starts, then reloaded as it
// changes) or the legacy --authorization-mode and --authorization-webhook-* flags, never both.

import { readFileSync } from 'node:fs';
import type { Logger } from '../machinery/logger.js';
import {
  configurationFromModes,
  loadAuthorizationConfiguration,
  validateLegacyWebhookFlags,
  type AuthorizationConfiguration,
  type LegacyWebhookFlags,
} from './authorization-config.js';
import { buildAuthorizerChain, type ChainOptions } from './authorization-chain.js';
import type { AuthorizationMode } from './authorization-modes.js';
import { ReloadingAuthorizer } from './authorization-reload.js';
import type { Authorizer, RuleResolver } from './authorizer.js';

export type AuthorizationPlan = { kind: 'file'; path: string } | { kind: 'flags'; config: AuthorizationConfiguration };

export interface AuthorizationFlags {
  configFile?: string;
  /** Undefined when --authorization-mode was not given. */
  modes?: AuthorizationMode[];
  defaultModes: AuthorizationMode[];
  webhook: LegacyWebhookFlags;
}

const webhookFlagSet = (w: LegacyWebhookFlags): boolean => Object.values(w).some((v) => v !== undefined);

function readConfigFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'no such file or directory' : e.code === 'EACCES' ? 'permission denied' : e.code === 'EISDIR' ? 'is a directory' : e.message;
    throw new Error(`open ${path}: ${why}`);
  }
}

/** Validate(): throws kube-apiserver's start-up error, or says what to build. */
export function planAuthorization(flags: AuthorizationFlags): AuthorizationPlan {
  if (flags.configFile !== undefined && flags.configFile !== '') {
    if (flags.modes !== undefined || webhookFlagSet(flags.webhook)) {
      throw new Error('--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined');
    }
    loadAuthorizationConfiguration(readConfigFile(flags.configFile));
    return { kind: 'file', path: flags.configFile };
  }
  const modes = flags.modes ?? flags.defaultModes;
  const errors = validateLegacyWebhookFlags(modes, flags.webhook);
  if (errors.length > 0) throw new Error(errors.join(', '));
  return { kind: 'flags', config: configurationFromModes(modes, flags.webhook) };
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
