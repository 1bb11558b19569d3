// What the bootstrap token controllers read from a token Secret (cluster-bootstrap's secret
// helpers): its data as text, its expiration, and whether it is one of the token Secrets at all.
// Nothing here returns or logs a token secret's value.

import { isPlainObject, metaOf, type KubeObject } from '../machinery/object.js';

export const TOKEN_NAMESPACE = 'kube-system';
export const TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const TOKEN_SECRET_PREFIX = 'bootstrap-token-';
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** A token Secret: in kube-system and of the bootstrap token type (the controllers' field selector). */
export function isTokenSecret(secret: KubeObject): boolean {
  return metaOf(secret).namespace === TOKEN_NAMESPACE && secret.type === TOKEN_SECRET_TYPE;
}

/** A data value as text; '' when absent (GetData). */
export function tokenData(secret: KubeObject, key: string): string {
  const value = isPlainObject(secret.data) ? secret.data[key] : undefined;
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : '';
}

export type Expiration = { kind: 'never' } | { kind: 'at'; ms: number } | { kind: 'unreadable'; value: string };

export function expirationOf(secret: KubeObject): Expiration {
  const value = tokenData(secret, 'expiration');
  if (value === '') return { kind: 'never' };
  const ms = RFC3339.test(value) ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? { kind: 'unreadable', value } : { kind: 'at', ms };
}

/** `kube-system/<name>`, for log lines. */
export function secretRef(secret: KubeObject): string {
  const meta = metaOf(secret);
  return `${meta.namespace}/${meta.name}`;
}
