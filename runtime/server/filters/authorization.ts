// Authorization: asks the authorizer chain about the request; anything but allow is 403
// Forbidden with kube-apiserver's wording, and an authorizer failure without an allow is 500.
// When auditing, the decision and the reason are the event's annotations, as kube records them.

import { internalError } from '../../errors/status-error.js';
import { attributesFor, type Attributes, type AuthorizationResult, type Authorizer } from '../../auth/authorizer.js';
import { forbiddenError } from '../../auth/forbidden.js';
import { addAuditAnnotation, type KubeContext, type KubeHandler } from '../context.js';

const DECISION = 'authorization.k8s.io/decision';
const REASON = 'authorization.k8s.io/reason';

function annotate(c: KubeContext, decision: 'allow' | 'forbid', reason: string): void {
  addAuditAnnotation(c, DECISION, decision);
  addAuditAnnotation(c, REASON, reason);
}

/** The verbs whose field selector authorizers are shown (kube's GetAuthorizerAttributes). */
const SELECTING_VERBS = new Set(['list', 'watch', 'deletecollection']);

export function withAuthorization(inner: KubeHandler, authorizer: Authorizer, options: { withSelectors?: boolean; annotate?: boolean } = {}): KubeHandler {
  const decide = (c: KubeContext, attributes: Attributes, result: AuthorizationResult): void | Promise<void> => {
    // RBAC may fail on one binding and still allow through another: the decision comes first.
    if (result.decision === 'allow') {
      if (options.annotate) annotate(c, 'allow', result.reason ?? '');
      return inner(c);
    }
    if (result.error) {
      if (options.annotate) addAuditAnnotation(c, REASON, 'internal error');
      throw internalError(new Error(result.error));
    }
    if (options.annotate) annotate(c, 'forbid', result.reason ?? '');
    throw forbiddenError(attributes, result.reason);
  };
  return (c) => {
    const info = c.get('requestInfo');
    const attributes = attributesFor(c.get('user'), info);
    if (options.withSelectors && info.isResourceRequest && SELECTING_VERBS.has(info.verb) && c.req.url.includes('fieldSelector=')) {
      const fieldSelector = new URL(c.req.url).searchParams.get('fieldSelector');
      if (fieldSelector !== null) attributes.fieldSelector = fieldSelector;
    }
    const result = authorizer.authorize(attributes);
    // An allow decided from what is in memory (system:masters, a cached RBAC rule) needs no promise.
    if (result instanceof Promise) return result.then((r) => decide(c, attributes, r));
    return decide(c, attributes, result);
  };
}
