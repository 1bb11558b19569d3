// Escalation prevention (pkg/registry/rbac/validation ConfirmNoEscalation): a writer may only
// grant, through a role or a binding, permissions it holds itself. The refusal lists what is
// missing in kube's compact form, one rule a line, sorted.

import type { UserInfo } from '../user.js';
import { aggregateMessage } from './authorizer.js';
import { compactRules, compactString, uncoveredRules, type PolicyRule } from './rules.js';

/** Go's %q of a []string. */
const goQuoteList = (list: readonly string[]): string => `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;

/** Undefined when `held` covers `granted`; otherwise the message kube's NewForbidden wraps. */
export function escalationMessage(user: UserInfo, held: { rules: PolicyRule[]; errors: string[] }, granted: readonly PolicyRule[]): string | undefined {
  const missing = uncoveredRules(held.rules, granted);
  if (missing.length === 0) return undefined;
  const lines = [...new Set(compactRules(missing).map(compactString))].sort();
  let msg = `user ${JSON.stringify(user.name)} (groups=${goQuoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${lines.join('\n')}`;
  if (held.errors.length > 0) msg += `; resolution errors: [${aggregateMessage(held.errors)}]`;
  return msg;
}

/** A ClusterRole's aggregationRule can gather any permission, so setting one needs them all. */
export const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];
