// The RBAC authorizer (plugin/pkg/auth/authorizer/rbac): allows when any rule the user holds in
// the request's namespace allows the request; otherwise it has no opinion, and its reason lists
// the bindings it could not resolve ("RBAC: clusterrole.rbac.authorization.k8s.io "x" not found"),
// which the 403 message carries. It only reads the in-memory policy.

import type { Attributes, AuthorizationResult, Authorizer, RulesResult, RuleResolver as UserRulesResolver } from '../authorizer.js';
import type { UserInfo } from '../user.js';
import type { RuleResolver } from './rule-resolver.js';

/** utilerrors.NewAggregate(...).Error(): one message alone, several deduplicated in brackets. */
export function aggregateMessage(errors: readonly string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

export class RBACAuthorizer implements Authorizer, UserRulesResolver {
  constructor(private readonly resolver: RuleResolver) {}

  authorize(a: Attributes): AuthorizationResult {
    const allowedBy = this.resolver.allowingSource(a);
    if (allowedBy !== undefined) return { decision: 'allow', reason: `RBAC: allowed by ${allowedBy}` };
    // No rule allows: the reason lists every binding whose role could not be found.
    const errors: string[] = [];
    this.resolver.visitRulesFor(a.user, a.namespace, (_source, _rule, error) => {
      if (error) errors.push(error);
      return true;
    });
    return { decision: 'noOpinion', reason: errors.length ? `RBAC: ${aggregateMessage(errors)}` : '' };
  }

  /**
   * What the user may do in the namespace, for SelfSubjectRulesReview: each rule the bindings
   * give, split into resource and non-resource rules as RBAC's RulesFor splits them; never
   * incomplete, with the bindings it could not resolve as the evaluation error.
   */
  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const { rules, errors } = this.resolver.rulesFor(user, namespace);
    const result: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
    for (const rule of rules) {
      if (rule.resources?.length) {
        result.resourceRules.push({
          verbs: rule.verbs ?? [],
          apiGroups: rule.apiGroups ?? [],
          resources: rule.resources,
          ...(rule.resourceNames?.length ? { resourceNames: rule.resourceNames } : {}),
        });
      }
      if (rule.nonResourceURLs?.length) result.nonResourceRules.push({ verbs: rule.verbs ?? [], nonResourceURLs: rule.nonResourceURLs });
    }
    if (errors.length) result.evaluationError = aggregateMessage(errors);
    return result;
  }
}
