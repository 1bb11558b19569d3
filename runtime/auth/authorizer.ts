// The authorization contract (k8s.io/apiserver/pkg/authorization/authorizer): an authorizer
// judges one request's attributes and allows, denies, or has no opinion. Authorizers run as a
// chain: the first allow or deny decides, and when none has an opinion the request is denied.

import { aggregateMessage } from './aggregate.js';
import type { RequestInfo } from '../machinery/request-info.js';
import type { UserInfo } from './user.js';
import { SYSTEM_MASTERS } from './user.js';

/** What an authorizer may examine: the user and the request as RequestInfo reads it. */
export interface Attributes {
  user: UserInfo;
  verb: string;
  isResourceRequest: boolean;
  /** For non-resource requests: the URL path. */
  path: string;
  namespace: string;
  apiGroup: string;
  apiVersion: string;
  resource: string;
  subresource: string;
  name: string;
  /**
   * The request's field selector as written, on list, watch and deletecollection with the
   * AuthorizeWithSelectors gate on (the Node authorizer lets a node list its own pods by it).
   */
  fieldSelector?: string;
}

export type Decision = 'allow' | 'deny' | 'noOpinion';

export interface AuthorizationResult {
  decision: Decision;
  /** Why; shown to the client after a denial. */
  reason: string;
  /** Set when the authorizer failed to evaluate (kube-apiserver answers 500 unless another allows). */
  error?: string;
}

export interface Authorizer {
  authorize(attributes: Attributes): AuthorizationResult | Promise<AuthorizationResult>;
}

/** One rule a user holds on resources (authorizer.ResourceRuleInfo). */
export interface ResourceRuleInfo {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  resourceNames?: string[];
}

/** One rule a user holds on non-resource paths (authorizer.NonResourceRuleInfo). */
export interface NonResourceRuleInfo {
  verbs: string[];
  nonResourceURLs: string[];
}

export interface RulesResult {
  resourceRules: ResourceRuleInfo[];
  nonResourceRules: NonResourceRuleInfo[];
  /** True when some authorizer could not enumerate what it allows (a webhook, for instance). */
  incomplete: boolean;
  /** Set when listing failed in part; the rules found are still given. */
  evaluationError?: string;
}

/**
 * An authorizer that can list what a user may do in a namespace (authorizer.RuleResolver), for
 * SelfSubjectRulesReview. RBAC lists its bindings' rules; an authorizer without this interface
 * makes the answer incomplete.
 */
export interface RuleResolver {
  rulesFor(user: UserInfo, namespace: string): RulesResult | Promise<RulesResult>;
}

export function isRuleResolver(a: unknown): a is RuleResolver {
  return typeof (a as Partial<RuleResolver> | undefined)?.rulesFor === 'function';
}

export function attributesFor(user: UserInfo, info: RequestInfo): Attributes {
  return {
    user,
    verb: info.verb,
    isResourceRequest: info.isResourceRequest,
    path: info.path,
    namespace: info.namespace,
    apiGroup: info.apiGroup,
    apiVersion: info.apiVersion,
    resource: info.resource,
    subresource: info.subresource,
    name: info.name,
  };
}

const NO_RULES = (): RulesResult => ({ resourceRules: [], nonResourceRules: [], incomplete: false });

/** Allows everything, and so lists one rule for every verb on every resource and path. */
export const alwaysAllowAuthorizer: Authorizer & RuleResolver = {
  authorize: () => ({ decision: 'allow', reason: '' }),
  rulesFor: () => ({
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
    incomplete: false,
  }),
};

/** AlwaysDeny abstains with a reason rather than denying, so later authorizers may still allow (as upstream). */
export const alwaysDenyAuthorizer: Authorizer & RuleResolver = {
  authorize: () => ({ decision: 'noOpinion', reason: 'Everything is forbidden.' }),
  rulesFor: NO_RULES,
};

/**
 * Allows every member of the given groups (system:masters bypasses every mode). kube-apiserver
 * keeps it out of the rule resolvers, so it lists nothing, and its silence is no gap.
 */
export function privilegedGroupsAuthorizer(groups: string[] = [SYSTEM_MASTERS]): Authorizer & RuleResolver {
  const privileged = new Set(groups);
  return {
    authorize: (a) =>
      a.user.groups.some((g) => privileged.has(g)) ? { decision: 'allow', reason: '' } : { decision: 'noOpinion', reason: '' },
    rulesFor: NO_RULES,
  };
}

/**
 * The first allow or deny decides; otherwise no opinion, with every reason and error joined.
 * Rules are the concatenation of every member's; a member that cannot list them makes the list
 * incomplete.
 */
export function unionAuthorizer(authorizers: Authorizer[]): Authorizer & RuleResolver {
  /** The members' reasons and errors so far; made only once one has something to say. */
  interface Notes {
    reasons: string[];
    errors: string[];
  }
  const note = (notes: Notes | undefined, result: AuthorizationResult): Notes | undefined => {
    if (!result.error && !result.reason) return notes;
    notes ??= { reasons: [], errors: [] };
    if (result.error) notes.errors.push(result.error);
    if (result.reason) notes.reasons.push(result.reason);
    return notes;
  };
  const from = (a: Attributes, first: number, notes: Notes | undefined): AuthorizationResult | Promise<AuthorizationResult> => {
    for (let i = first; i < authorizers.length; i++) {
      const result = authorizers[i].authorize(a);
      if (result instanceof Promise) {
        return result.then((r) => {
          const noted = note(notes, r);
          return r.decision !== 'noOpinion' ? r : from(a, i + 1, noted);
        });
      }
      notes = note(notes, result);
      if (result.decision !== 'noOpinion') return result;
    }
    const joined: AuthorizationResult = { decision: 'noOpinion', reason: notes ? notes.reasons.join('\n') : '' };
    if (notes && notes.errors.length > 0) joined.error = aggregateMessage(notes.errors);
    return joined;
  };
  return {
    async rulesFor(user, namespace) {
      const result: RulesResult = { resourceRules: [], nonResourceRules: [], incomplete: false };
      const errors: string[] = [];
      for (const authz of authorizers) {
        if (!isRuleResolver(authz)) {
          result.incomplete = true;
          continue;
        }
        const rules = await authz.rulesFor(user, namespace);
        result.resourceRules.push(...rules.resourceRules);
        result.nonResourceRules.push(...rules.nonResourceRules);
        if (rules.incomplete) result.incomplete = true;
        if (rules.evaluationError) errors.push(rules.evaluationError);
      }
      if (errors.length > 0) result.evaluationError = aggregateMessage(errors);
      return result;
    },
    // Answers at once while the members do (system:masters, RBAC), without a promise.
    authorize: (a) => from(a, 0, undefined),
  };
}
