// Virtual kinds are never stored. Most (SelfSubjectReview, TokenReview and the access reviews)
// stand for an operation: a POST is decoded as usual and then answered by a handler that computes
// the response from the posted object and the caller. A view (ComponentStatus) is computed anew
// on each get and list. Handlers and views are registered here by the name the kind's spec gives
// in `strategy`; nothing of theirs ever reaches storage.

import type { Authenticator } from '../../auth/authenticator.js';
import type { Authorizer } from '../../auth/authorizer.js';
import type { UserInfo } from '../../auth/user.js';
import { internalError } from '../../errors/status-error.js';
import type { ResourceDefinition } from '../definition.js';
import type { KubeObject } from '../../machinery/object.js';
import type { SelectionOptions } from '../selection.js';
import { componentStatusView, type ProbedComponent } from './componentstatus.js';
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

/** A kind computed on each read (get and list), with kube's list selectors applied to what it computes. */
export interface VirtualView {
  get(name: string): Promise<KubeObject>;
  /** The <Kind>List; its metadata is empty, as nothing stored stands behind it. */
  list(options: SelectionOptions): Promise<KubeObject>;
}

/** What the views read from the running server. */
export interface VirtualContext {
  /** What ComponentStatus reports on (the store). */
  components: readonly ProbedComponent[];
}

const VIEWS: Record<string, (context: VirtualContext) => VirtualView> = {
  componentstatus: (context) => componentStatusView(context.components),
};

/** A virtual kind: an operation (`create`) or a view (`view`), as its spec's verbs say. */
export interface VirtualResource {
  definition: ResourceDefinition;
  create?: VirtualCreate;
  view?: VirtualView;
}

export function virtualResourceFor(def: ResourceDefinition, context: VirtualContext = { components: [] }): VirtualResource {
  const name = def.strategy ?? '';
  const operation = def.verbs.includes('create');
  if (operation && Object.hasOwn(HANDLERS, name)) return { definition: def, create: HANDLERS[name] };
  if (!operation && Object.hasOwn(VIEWS, name)) return { definition: def, view: VIEWS[name](context) };
  throw new Error(`${def.plural}: virtual kind without a known handler (strategy ${JSON.stringify(name)})`);
}
