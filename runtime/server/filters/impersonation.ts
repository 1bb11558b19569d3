// Impersonation (k8s.io/apiserver's WithImpersonation): a caller may act as another user with the
// Impersonate-User, -Group, -Uid and -Extra-<key> headers. Each requested part is authorized on
// its own with verb `impersonate` (users, groups, uids and userextras/<key>; a service account
// user as serviceaccounts in its namespace), and the first refusal is kube's 403 for that part.
// The impersonated user then replaces the caller for everything after: max in-flight,
// authorization, the handlers and SelfSubjectReview.

import type { Attributes, Authorizer } from '../../auth/authorizer.js';
import { forbiddenError } from '../../auth/forbidden.js';
import { ALL_AUTHENTICATED, ALL_UNAUTHENTICATED, ANONYMOUS, type UserInfo } from '../../auth/user.js';
import { isDNS1123Label, isDNS1123Subdomain } from '../../machinery/formats.js';
import { goQuote } from '../../machinery/go-format.js';
import { requestTarget, type KubeContext, type KubeHandler, type Logger } from '../context.js';
import { plainTextError } from '../status-response.js';
import { getMember, setMember } from '../../machinery/own-member.js';

const USER = 'impersonate-user';
const GROUP = 'impersonate-group';
const UID = 'impersonate-uid';
const EXTRA_PREFIX = 'impersonate-extra-';
const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';
const AUTHENTICATION_V1 = 'authentication.k8s.io/v1';

/** One thing to impersonate, in the shape of the ObjectReference kube-apiserver builds for it. */
interface ImpersonationRequest {
  kind: 'ServiceAccount' | 'User' | 'Group' | 'UserExtra' | 'UID';
  namespace: string;
  name: string;
  apiVersion: string;
  /** The extra key of a UserExtra. */
  fieldPath: string;
}

/**
 * The request's headers as Go's http.Header holds them: one value per header line (Node joins
 * repeated lines with ", ", which would turn two groups into one). Names are lowercase.
 */
function impersonationHeaders(c: KubeContext): [string, string][] {
  const raw = c.env?.incoming?.rawHeaders;
  const found: [string, string][] = [];
  if (raw) {
    for (let i = 0; i + 1 < raw.length; i += 2) {
      const name = raw[i];
      // Cheap test first: most requests have no header starting with "i".
      if ((name.charCodeAt(0) | 0x20) !== 0x69) continue;
      const lower = name.toLowerCase();
      if (lower.startsWith('impersonate-')) found.push([lower, raw[i + 1]]);
    }
    return found;
  }
  c.req.raw.headers.forEach((value, name) => {
    if (name.startsWith('impersonate-')) found.push([name, value]);
  });
  return found;
}

/** serviceaccount.SplitUsername: `system:serviceaccount:<namespace>:<name>` with valid names. */
function splitServiceAccount(username: string): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace, name] = parts;
  if (isDNS1123Label(namespace).length > 0 || isDNS1123Subdomain(name).length > 0) return undefined;
  return { namespace, name };
}

/** url.PathUnescape, keeping the key as sent when it does not decode (as upstream does). */
function unescapeExtraKey(encoded: string): string {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return encoded;
  }
}

/** Go's %v of an ObjectReference: its seven string fields, space-separated, in braces. */
function goReference(r: ImpersonationRequest): string {
  return `{${[r.kind, r.namespace, r.name, '', r.apiVersion, '', r.fieldPath].join(' ')}}`;
}

class ImpersonationError extends Error {}

function buildRequests(headers: [string, string][]): ImpersonationRequest[] {
  const requests: ImpersonationRequest[] = [];
  const first = (name: string) => headers.find(([n]) => n === name)?.[1] ?? '';
  const user = first(USER);
  if (user) {
    const sa = splitServiceAccount(user);
    if (sa) requests.push({ kind: 'ServiceAccount', namespace: sa.namespace, name: sa.name, apiVersion: '', fieldPath: '' });
    else requests.push({ kind: 'User', namespace: '', name: user, apiVersion: '', fieldPath: '' });
  }
  let others = false;
  for (const [name, value] of headers) {
    if (name !== GROUP) continue;
    others = true;
    requests.push({ kind: 'Group', namespace: '', name: value, apiVersion: '', fieldPath: '' });
  }
  for (const [name, value] of headers) {
    if (!name.startsWith(EXTRA_PREFIX)) continue;
    others = true;
    const key = unescapeExtraKey(name.slice(EXTRA_PREFIX.length));
    requests.push({ kind: 'UserExtra', namespace: '', name: value, apiVersion: AUTHENTICATION_V1, fieldPath: key });
  }
  const uid = first(UID);
  if (uid) {
    others = true;
    requests.push({ kind: 'UID', namespace: '', name: uid, apiVersion: AUTHENTICATION_V1, fieldPath: '' });
  }
  if (others && !user) throw new ImpersonationError(`requested [${requests.map(goReference).join(' ')}] without impersonating a user`);
  return requests;
}

const RESOURCES: Record<ImpersonationRequest['kind'], string> = {
  ServiceAccount: 'serviceaccounts',
  User: 'users',
  Group: 'groups',
  UserExtra: 'userextras',
  UID: 'uids',
};

function attributesOf(requestor: UserInfo, r: ImpersonationRequest): Attributes {
  const [group, version] = r.apiVersion.includes('/') ? r.apiVersion.split('/') : ['', r.apiVersion];
  return {
    user: requestor,
    verb: 'impersonate',
    isResourceRequest: true,
    path: '',
    apiGroup: group,
    apiVersion: version,
    namespace: r.namespace,
    name: r.name,
    resource: RESOURCES[r.kind],
    subresource: r.kind === 'UserExtra' ? r.fieldPath : '',
  };
}

/** Who the request runs as, with system:authenticated or system:unauthenticated added as upstream adds them. */
function impersonatedUser(requests: ImpersonationRequest[], groupsSpecified: boolean): UserInfo {
  let name = '';
  let uid = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  for (const r of requests) {
    if (r.kind === 'ServiceAccount') {
      name = `${SERVICE_ACCOUNT_PREFIX}${r.namespace}:${r.name}`;
      if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${r.namespace}`];
    } else if (r.kind === 'User') name = r.name;
    else if (r.kind === 'Group') groups.push(r.name);
    else if (r.kind === 'UserExtra') {
      const values = getMember(extra, r.fieldPath) as string[] | undefined;
      if (values) values.push(r.name);
      else setMember(extra, r.fieldPath, [r.name]);
    } else uid = r.name;
  }
  if (name !== ANONYMOUS) {
    if (!groups.some((g) => g === ALL_AUTHENTICATED || g === ALL_UNAUTHENTICATED)) groups.push(ALL_AUTHENTICATED);
  } else if (!groups.includes(ALL_UNAUTHENTICATED)) {
    groups.push(ALL_UNAUTHENTICATED);
  }
  return { name, uid, groups, extra };
}

function describe(u: UserInfo): string {
  return `${u.name || '<empty>'}${u.groups.length ? `[${u.groups.join(',')}]` : ''}`;
}

export function withImpersonation(inner: KubeHandler, authorizer: Authorizer, logger: Logger): KubeHandler {
  const impersonate = async (c: KubeContext, headers: [string, string][]): Promise<void> => {
    let requests: ImpersonationRequest[];
    try {
      requests = buildRequests(headers);
    } catch (err) {
      if (!(err instanceof ImpersonationError)) throw err;
      // Upstream answers with responsewriters.InternalError: plain text, not a Status.
      const uri = requestTarget(c);
      const text = `Internal Server Error: ${goQuote(uri)}: ${err.message}`;
      c.res = plainTextError(500, text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'));
      return;
    }
    if (requests.length === 0) return inner(c);
    const requestor = c.get('user');
    for (const r of requests) {
      const attributes = attributesOf(requestor, r);
      const result = await authorizer.authorize(attributes);
      if (result.decision !== 'allow' || result.error) throw forbiddenError(attributes, result.reason);
    }
    const groupsSpecified = headers.some(([name]) => name === GROUP);
    const user = impersonatedUser(requests, groupsSpecified);
    logger.debug(`${describe(requestor)} is impersonating ${describe(user)}`);
    c.set('user', user);
    return inner(c);
  };
  return (c) => {
    const headers = impersonationHeaders(c);
    if (headers.length === 0) return inner(c);
    return impersonate(c, headers);
  };
}
