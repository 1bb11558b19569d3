// TokenReview: the server's own authenticator chain judges a bearer token, as if it had come in
// an Authorization header with nothing else, for the audiences the review names (or the server's
// API audiences). As kube-apiserver's REST answers: an empty token is a 400; an unknown token is
// 201 with authenticated unset and the chain's error; a user whose audiences do not meet the ones
// asked for means an authenticator misbehaved, a 500.

import { badRequest, internalError } from '../../errors/status-error.js';
import { isPlainObject, type KubeObject } from '../../machinery/object.js';
import { requireAccess, type VirtualRequest } from './index.js';

type Obj = Record<string, unknown>;

export async function tokenReview(obj: KubeObject, request: VirtualRequest): Promise<KubeObject> {
  const access = requireAccess(request);
  const spec: Obj = isPlainObject(obj.spec) ? obj.spec : {};
  const token = typeof spec.token === 'string' ? spec.token : '';
  if (token === '') throw badRequest('token is required for TokenReview in authentication');
  const asked = Array.isArray(spec.audiences) ? spec.audiences.filter((a): a is string => typeof a === 'string') : [];
  const audiences = asked.length > 0 ? asked : access.apiAudiences;
  const result = await access.authenticator.authenticate({
    header: (name) => (name === 'authorization' ? `Bearer ${token}` : undefined),
    path: '',
    ...(audiences.length > 0 ? { audiences } : {}),
  });
  const status: Obj = {};
  if (result.kind === 'user') {
    status.authenticated = true;
    if (audiences.length > 0 && !(result.audiences ?? []).some((a) => audiences.includes(a))) {
      throw internalError(new Error('error validating audience'));
    }
    const { user } = result;
    const info: Obj = {};
    if (user.name) info.username = user.name;
    if (user.uid) info.uid = user.uid;
    if (user.groups.length) info.groups = [...user.groups];
    if (Object.keys(user.extra).length) info.extra = Object.fromEntries(Object.entries(user.extra).map(([k, v]) => [k, [...v]]));
    status.user = info;
    if (result.audiences?.length) status.audiences = [...result.audiences];
  } else {
    status.user = {};
    if (result.kind === 'error') status.error = result.error;
  }
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { creationTimestamp: null, ...(isPlainObject(obj.metadata) ? obj.metadata : {}) }, spec, status };
}
