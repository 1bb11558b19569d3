// What the bootstrap token controllers read from a token Secret (cluster-bootstrap's secret
// helpers): its data as text, its expiration, and whether it is one of the token Secrets at all.
// Nothing here returns or logs a token secret's value.

import { RFC3339, timeParseError } from '../machinery/go-decode/go-time.js';
import { isPlainObject, metaOf, type KubeObject } from '../machinery/object.js';

export const TOKEN_NAMESPACE = 'kube-system';
export const TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const TOKEN_SECRET_PREFIX = 'bootstrap-token-';

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

/**
 * The expiration as Go's time.Parse(time.RFC3339) reads it: case-sensitive T and Z, ranges
 * checked (no February 30, no hour 24), a fraction after '.' or ','.
 */
export function expirationOf(secret: KubeObject): Expiration {
  const value = tokenData(secret, 'expiration');
  if (value === '') return { kind: 'never' };
  if (timeParseError(value, RFC3339) !== undefined) return { kind: 'unreadable', value };
  const ms = Date.parse(value.replace(',', '.'));
  return Number.isNaN(ms) ? { kind: 'unreadable', value } : { kind: 'at', ms };
}

/** `kube-system/<name>`, for log lines. */
export function secretRef(secret: KubeObject): string {
  const meta = metaOf(secret);
  return `${meta.namespace}/${meta.name}`;
}
