// Virtual kinds (SelfSubjectReview, TokenReview and the access reviews) stand for an operation,
// not a stored object: a POST is decoded as usual and then answered by a handler that computes
// the response from the posted object and the caller. Handlers are registered here by the name
// the kind's spec gives in `strategy`; nothing of theirs ever reaches storage.

import type { Authenticator } from '../../auth/authenticator.js';
import type { Authorizer } from '../../auth/authorizer.js';
import type { UserInfo } from '../../auth/user.js';
import { internalError } from '../../errors/status-error.js';
import type { ResourceDefinition } from '../definition.js';
import type { KubeObject } from '../../machinery/object.js';
import { localSubjectAccessReview, selfSubjectAccessReview, subjectAccessReview } from './access-reviews.js';
import { selfSubjectRulesReview } from './rules-review.js';
import { selfSubjectReview } from './selfsubjectreview.js';
import { tokenReview } from './tokenreview.js';

/**
 * The server's own authenticator and authorizer chains, which the reviews ask. The shell builds
 * them after the API (RBAC reads API objects), so they are handed over once built.
 */
export interface ServerAccess {
  authenticator: Authenticator;
  authorizer: Authorizer;
  /** --api-audiences: what a TokenReview without audiences checks against. */
  apiAudiences: string[];
}

export interface VirtualRequest {
  /** The caller, as authentication (and impersonation) left it. */
  user: UserInfo;
  /** The namespace of the request path; empty for cluster-scoped kinds. */
  namespace: string;
  /** dryRun=All: a handler with side effects must not make them. */
  dryRun: boolean;
  now: Date;
  /** The AuthorizeWithSelectors feature gate: without it, access reviews drop their selectors. */
  authorizeWithSelectors: boolean;
  /** Absent until the shell has handed its chains over (and in tests of the handler alone). */
  access?: ServerAccess;
}

/** The chains a review asks; a server that never handed them over cannot answer one. */
export function requireAccess(request: VirtualRequest): ServerAccess {
  if (!request.access) throw internalError(new Error('the server has no authenticator and authorizer for reviews'));
  return request.access;
}

/** Computes the response object of a create; may throw a StatusError. */
export type VirtualCreate = (obj: KubeObject, request: VirtualRequest) => KubeObject | Promise<KubeObject>;

const HANDLERS: Record<string, VirtualCreate> = {
  selfsubjectreview: selfSubjectReview,
  tokenreview: tokenReview,
  subjectaccessreview: subjectAccessReview,
  selfsubjectaccessreview: selfSubjectAccessReview,
  localsubjectaccessreview: localSubjectAccessReview,
  selfsubjectrulesreview: selfSubjectRulesReview,
};

export interface VirtualResource {
  definition: ResourceDefinition;
  create: VirtualCreate;
}

export function virtualResourceFor(def: ResourceDefinition): VirtualResource {
  const create = def.strategy ? HANDLERS[def.strategy] : undefined;
  if (!create) throw new Error(`${def.plural}: virtual kind without a known handler (strategy ${JSON.stringify(def.strategy ?? '')})`);
  return { definition: def, create };
}
