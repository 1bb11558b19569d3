// The identity a request runs as, in k8s.io/apiserver/pkg/authentication/user's terms. It is what
// authenticators produce, what authorizers judge, and what SelfSubjectReview reports back.

export interface UserInfo {
  name: string;
  uid: string;
  groups: string[];
  /** Extra attributes (scopes, credential ids), key to values. */
  extra: Record<string, string[]>;
}

/** Well-known users and groups (user.SystemPrivilegedGroup and friends). */
export const SYSTEM_MASTERS = 'system:masters';
export const ALL_AUTHENTICATED = 'system:authenticated';
export const ALL_UNAUTHENTICATED = 'system:unauthenticated';
export const ANONYMOUS = 'system:anonymous';
/** The extra key naming the credential a user authenticated with (user.CredentialIDKey). */
export const CREDENTIAL_ID_KEY = 'authentication.kubernetes.io/credential-id';

export function newUserInfo(name: string, fields: Partial<Omit<UserInfo, 'name'>> = {}): UserInfo {
  return { name, uid: fields.uid ?? '', groups: fields.groups ?? [], extra: fields.extra ?? {} };
}
