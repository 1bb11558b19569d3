// The 403 a denied request gets, worded as kube-apiserver's responsewriters.Forbidden words it:
//   configmaps "x" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "default"
//   forbidden: User "bob" cannot get path "/metrics"
// with the authorizers' reason appended after a colon when there is one.

import { StatusError, type StatusDetails } from '../errors/status-error.js';
import type { Attributes } from './authorizer.js';

/** Upstream escapes these so the message is safe to show in a browser. */
function sanitize(message: string): string {
  return message.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Go's %q for the plain strings that appear here. */
const q = (s: string): string => JSON.stringify(s);

export function forbiddenMessage(a: Attributes): string {
  const user = q(a.user.name);
  if (!a.isResourceRequest) return `User ${user} cannot ${a.verb} path ${q(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace ? `in the namespace ${q(a.namespace)}` : 'at the cluster scope';
  return `User ${user} cannot ${a.verb} resource ${q(resource)} in API group ${q(a.apiGroup)} ${where}`;
}

export function forbiddenError(a: Attributes, reason: string): StatusError {
  const msg = sanitize(forbiddenMessage(a));
  const why = reason ? `${msg}: ${reason}` : msg;
  const qualified = a.apiGroup ? `${a.resource}.${a.apiGroup}` : a.resource;
  // Go leaves empty detail fields out; a non-resource denial carries an empty details object.
  const details: StatusDetails = {};
  if (a.name) details.name = a.name;
  if (a.apiGroup) details.group = a.apiGroup;
  if (a.resource) details.kind = a.resource;
  let message: string;
  if (!a.resource && !a.apiGroup) message = `forbidden: ${why}`;
  else if (!a.name) message = `${qualified} is forbidden: ${why}`;
  else message = `${qualified} ${q(a.name)} is forbidden: ${why}`;
  return new StatusError(403, 'Forbidden', message, details);
}
