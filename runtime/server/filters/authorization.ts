// Authorization: asks the authorizer chain about the request; anything but allow is 403
// Forbidden with kube-apiserver's wording, and an authorizer failure without an allow is 500.

import { internalError } from '../../errors/status-error.js';
import { attributesFor, type Authorizer } from '../../auth/authorizer.js';
import { forbiddenError } from '../../auth/forbidden.js';
import type { KubeMiddleware } from '../context.js';

export function withAuthorization(authorizer: Authorizer): KubeMiddleware {
  return async (c, next) => {
    const attributes = attributesFor(c.get('user'), c.get('requestInfo'));
    const result = await authorizer.authorize(attributes);
    if (result.decision === 'allow') return next();
    if (result.error) throw internalError(new Error(result.error));
    throw forbiddenError(attributes, result.reason);
  };
}
