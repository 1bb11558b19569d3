// The authorization contract (k8s.io/apiserver/pkg/authorization/authorizer): an authorizer
// judges one request's attributes and allows, denies, or has no opinion. Authorizers run as a
// chain: the first allow or deny decides, and when none has an opinion the request is denied.

import type { RequestInfo } from '../server/request-info.js';
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

export const alwaysAllowAuthorizer: Authorizer = {
  authorize: () => ({ decision: 'allow', reason: '' }),
};

/** AlwaysDeny abstains with a reason rather than denying, so later authorizers may still allow (as upstream). */
export const alwaysDenyAuthorizer: Authorizer = {
  authorize: () => ({ decision: 'noOpinion', reason: 'Everything is forbidden.' }),
};

/** Allows every member of the given groups (system:masters bypasses every mode). */
export function privilegedGroupsAuthorizer(groups: string[] = [SYSTEM_MASTERS]): Authorizer {
  const privileged = new Set(groups);
  return {
    authorize: (a) =>
      a.user.groups.some((g) => privileged.has(g)) ? { decision: 'allow', reason: '' } : { decision: 'noOpinion', reason: '' },
  };
}

/** The first allow or deny decides; otherwise no opinion, with every reason and error joined. */
export function unionAuthorizer(authorizers: Authorizer[]): Authorizer {
  return {
    async authorize(a) {
      const reasons: string[] = [];
      const errors: string[] = [];
      for (const authz of authorizers) {
        const result = await authz.authorize(a);
        if (result.error) errors.push(result.error);
        if (result.reason) reasons.push(result.reason);
        if (result.decision !== 'noOpinion') return result;
      }
      const joined: AuthorizationResult = { decision: 'noOpinion', reason: reasons.join('\n') };
      if (errors.length > 0) joined.error = errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
      return joined;
    },
  };
}
