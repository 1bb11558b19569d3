// Authorization: asks the authorizer chain about the request; anything but allow is 403
// Forbidden with kube-apiserver's wording, and an authorizer failure without an allow is 500.

import { internalError } from '../../errors/status-error.js';
import { attributesFor, type Authorizer } from '../../auth/authorizer.js';
import { forbiddenError } from '../../auth/forbidden.js';
import type { KubeMiddleware } from '../context.js';

/** The verbs whose field selector authorizers are shown (kube's GetAuthorizerAttributes). */
const SELECTING_VERBS = new Set(['list', 'watch', 'deletecollection']);

export function withAuthorization(authorizer: Authorizer, options: { withSelectors?: boolean } = {}): KubeMiddleware {
  return async (c, next) => {
    const info = c.get('requestInfo');
    const attributes = attributesFor(c.get('user'), info);
    if (options.withSelectors && info.isResourceRequest && SELECTING_VERBS.has(info.verb) && c.req.url.includes('fieldSelector=')) {
      const fieldSelector = new URL(c.req.url).searchParams.get('fieldSelector');
      if (fieldSelector !== null) attributes.fieldSelector = fieldSelector;
    }
    const result = await authorizer.authorize(attributes);
    if (result.decision === 'allow') return next();
    if (result.error) throw internalError(new Error(result.error));
    throw forbiddenError(attributes, result.reason);
  };
}
