// SelfSubjectReview: the answer is the caller's own identity. As kube-apiserver's REST does, the
// response is a fresh object: whatever metadata or status the client posted is discarded, and
// only creationTimestamp (now) and status.userInfo are set. Empty uid, groups and extra are left
// out, as Go's omitempty leaves them out.

import type { KubeObject } from '../../machinery/object.js';
import type { VirtualRequest } from './index.js';

export function selfSubjectReview(obj: KubeObject, { user, now }: VirtualRequest): KubeObject {
  const userInfo: Record<string, unknown> = {};
  if (user.name) userInfo.username = user.name;
  if (user.uid) userInfo.uid = user.uid;
  if (user.groups.length) userInfo.groups = [...user.groups];
  const extra = Object.entries(user.extra);
  if (extra.length) userInfo.extra = Object.fromEntries(extra.map(([k, v]) => [k, [...v]]));
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    // metav1.Time has second precision.
    metadata: { creationTimestamp: now.toISOString().replace(/\.\d{3}Z$/, 'Z') },
    status: { userInfo },
  };
}
