// --authorization-mode: a comma-separated, ordered list of modes, checked as kube-apiserver
// checks it, and turned into one authorizer chain behind the system:masters bypass.

import { AbacAuthorizer } from './abac.js';
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

/** Splits and validates the flag value with the mode files; throws with kube-apiserver's messages, in its order. */
export function parseAuthorizationModes(value: string | readonly string[], files: AuthorizationModeFiles = {}): AuthorizationMode[] {
  const modes = (typeof value === 'string' ? value.split(',') : [...value]).map((m) => m.trim()).filter((m) => m !== '');
  if (modes.length === 0) throw new Error('at least one authorization-mode must be passed');
  const errors: string[] = [];
  for (const mode of modes) {
    if (!(AUTHORIZATION_MODE_CHOICES as readonly string[]).includes(mode)) errors.push(`authorization-mode "${mode}" is not a valid mode`);
    if (mode === 'ABAC' && !files.policyFile) errors.push("authorization-mode ABAC's authorization policy file not passed");
  }
  if (files.policyFile && !modes.includes('ABAC')) errors.push('cannot specify --authorization-policy-file without mode ABAC');
  // Go's %q of a []string.
  if (new Set(modes).size !== modes.length) errors.push(`authorization-mode [${modes.map((m) => JSON.stringify(m)).join(' ')}] has mode specified more than once`);
  if (errors.length > 0) throw new Error(errors.join(', '));
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
