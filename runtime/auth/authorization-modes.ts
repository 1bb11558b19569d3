// --authorization-mode: a comma-separated, ordered list of modes, checked as kube-apiserver
// checks it, and turned into one authorizer chain behind the system:masters bypass.

import { AbacAuthorizer } from './abac.js';
import { aggregateMessage } from './aggregate.js';
import { alwaysAllowAuthorizer, alwaysDenyAuthorizer, privilegedGroupsAuthorizer, unionAuthorizer, type Authorizer } from './authorizer.js';

/** Every mode kube-apiserver knows, whether or not this server implements it yet. */
export const AUTHORIZATION_MODE_CHOICES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODE_CHOICES)[number];

/** Node,RBAC, as kubeadm runs kube-apiserver (its own default, AlwaysAllow, is unsafe). */
export const DEFAULT_AUTHORIZATION_MODES: AuthorizationMode[] = ['Node', 'RBAC'];

/** The flags of the modes that read a file (--authorization-policy-file for ABAC). */
export interface AuthorizationModeFiles {
  policyFile?: string;
}

/** Builds the authorizer of one mode; modes needing the API (RBAC, Node) are supplied by the integrator. */
export type AuthorizerFactory = (files: AuthorizationModeFiles) => Authorizer | Promise<Authorizer>;

export const BUILTIN_AUTHORIZER_FACTORIES: Partial<Record<AuthorizationMode, AuthorizerFactory>> = {
  AlwaysAllow: () => alwaysAllowAuthorizer,
  AlwaysDeny: () => alwaysDenyAuthorizer,
  // Validation has made sure the file is given.
  ABAC: (files) => AbacAuthorizer.fromFile(files.policyFile ?? ''),
};

/**
 * pflag's reading of a StringSlice flag: the value split at commas, spaces kept (so
 * "Node, RBAC" names the mode " RBAC", as kube-apiserver reads it), and an empty value no modes.
 * pflag's CSV quoting is not read: a quote is part of a mode's name here.
 */
export function splitModeFlag(value: string | readonly string[]): string[] {
  if (typeof value !== 'string') return [...value];
  return value === '' ? [] : value.split(',');
}

/** The flags beside --authorization-mode that its validation looks at. */
export interface AuthorizationModeFlags extends AuthorizationModeFiles {
  webhookConfigFile?: string;
}

/**
 * BuiltInAuthorizationOptions.Validate for the legacy flags: every problem, in kube-apiserver's
 * order (each mode in turn, then files given without their mode, then repeats). kube-apiserver
 * joins them with utilerrors.NewAggregate.
 */
export function authorizationModeErrors(modes: readonly string[], flags: AuthorizationModeFlags = {}): string[] {
  const errors: string[] = [];
  if (modes.length === 0) errors.push('at least one authorization-mode must be passed');
  for (const mode of modes) {
    if (!(AUTHORIZATION_MODE_CHOICES as readonly string[]).includes(mode)) errors.push(`authorization-mode ${JSON.stringify(mode)} is not a valid mode`);
    if (mode === 'ABAC' && !flags.policyFile) errors.push("authorization-mode ABAC's authorization policy file not passed");
    if (mode === 'Webhook' && !flags.webhookConfigFile) errors.push("authorization-mode Webhook's authorization config file not passed");
  }
  if (flags.policyFile && !modes.includes('ABAC')) errors.push('cannot specify --authorization-policy-file without mode ABAC');
  if (flags.webhookConfigFile && !modes.includes('Webhook')) errors.push('cannot specify --authorization-webhook-config-file without mode Webhook');
  // Go's %q of a []string.
  if (new Set(modes).size !== modes.length) errors.push(`authorization-mode [${modes.map((m) => JSON.stringify(m)).join(' ')}] has mode specified more than once`);
  return errors;
}

/** Splits and validates the flag value; throws kube-apiserver's aggregated message. */
export function parseAuthorizationModes(value: string | readonly string[], flags: AuthorizationModeFlags = {}): AuthorizationMode[] {
  const modes = splitModeFlag(value);
  const errors = authorizationModeErrors(modes, flags);
  if (errors.length > 0) throw new Error(aggregateMessage(errors));
  return modes as AuthorizationMode[];
}

/** The chain kube-apiserver builds: system:masters first, then each mode in the given order. */
export async function buildAuthorizer(
  modes: readonly AuthorizationMode[],
  factories: Partial<Record<AuthorizationMode, AuthorizerFactory>> = {},
  files: AuthorizationModeFiles = {},
): Promise<Authorizer> {
  const all = { ...BUILTIN_AUTHORIZER_FACTORIES, ...factories };
  const chain: Authorizer[] = [privilegedGroupsAuthorizer()];
  for (const mode of modes) {
    const factory = all[mode];
    if (!factory) throw new Error(`authorization-mode "${mode}" is not supported by this server yet`);
    chain.push(await factory(files));
  }
  return unionAuthorizer(chain);
}
