// Bootstrap-token Secrets (type bootstrap.kubernetes.io/token). kube-apiserver stores them
// unchecked and only the token authenticator and signer later ignore malformed ones; the
// specification's "Bootstrap tokens" table states their rules, so they are enforced on write
// with 422 Invalid at data[<key>]: token-id and token-secret present and of [a-z0-9]{6} and
// [a-z0-9]{16}, the name bootstrap-token-<token-id>, expiration an RFC 3339 time in UTC, and
// every extra group under system:bootstrappers: (cluster-bootstrap's group pattern and message).
// The token secret is never echoed back. The usage-bootstrap-* flags take any value: the spec
// only says a flag "must be true to allow" its use, so "false" (or anything else) is a valid
// token that simply is not usable for it; the authenticator and signer require exactly "true".

import type { StatusCause } from '../../errors/status-error.js';
import { invalid, required } from '../../validation/field-errors.js';
import { isRFC3339, regexError } from '../../machinery/formats.js';
import { isPlainObject, metaOf, type KubeObject } from '../../machinery/object.js';

export const BOOTSTRAP_TOKEN_SECRET_TYPE = 'bootstrap.kubernetes.io/token';
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';

const TOKEN_ID_FMT = '[a-z0-9]{6}';
const TOKEN_SECRET_FMT = '[a-z0-9]{16}';
const BOOTSTRAP_GROUP_PATTERN = 'system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]';

const whole = (fmt: string): RegExp => new RegExp(`^(?:${fmt})$`);

/**
 * data as UTF-8 text by key (values are base64 in the object). A value that is not a string maps
 * to null: the schema check already reports it, so no rule here judges it again.
 */
function textData(obj: KubeObject): Map<string, string | null> {
  const out = new Map<string, string | null>();
  if (!isPlainObject(obj.data)) return out;
  for (const [key, value] of Object.entries(obj.data)) out.set(key, typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : null);
  return out;
}

function expirationCauses(value: string | null | undefined): StatusCause[] {
  if (value === undefined || value === null) return [];
  const utc = /(Z|[+-]00:00)$/i.test(value);
  if (isRFC3339(value).length === 0 && utc) return [];
  return [invalid('data[expiration]', value, 'must be an RFC 3339 timestamp in UTC (e.g. 2006-01-02T15:04:05Z)')];
}

function groupCauses(value: string | null | undefined): StatusCause[] {
  if (value === undefined || value === null) return [];
  const pattern = whole(BOOTSTRAP_GROUP_PATTERN);
  // Split on commas only, as cluster-bootstrap's GetGroups does: a blank after a comma makes the
  // group invalid there (the token would fail authentication), so it is refused here.
  const groups = value.split(',');
  return groups.filter((g) => !pattern.test(g)).map((g) => invalid('data[auth-extra-groups]', value, `bootstrap group ${JSON.stringify(g)} is invalid (must match ${BOOTSTRAP_GROUP_PATTERN})`));
}

/** Causes for a Secret of type bootstrap.kubernetes.io/token; [] for any other Secret. */
export function bootstrapTokenCauses(obj: KubeObject): StatusCause[] {
  if (obj.type !== BOOTSTRAP_TOKEN_SECRET_TYPE) return [];
  const data = textData(obj);
  const causes: StatusCause[] = [];
  const tokenID = data.get('token-id');
  if (tokenID === undefined) causes.push(required('data[token-id]'));
  else if (tokenID === null) {
    // Reported by the schema check.
  } else if (!whole(TOKEN_ID_FMT).test(tokenID)) causes.push(invalid('data[token-id]', tokenID, regexError('must be 6 characters of lower-case letters and digits', TOKEN_ID_FMT, 'abcdef')));
  else {
    const name = metaOf(obj).name;
    const want = `${BOOTSTRAP_TOKEN_SECRET_PREFIX}${tokenID}`;
    // A generateName is resolved before validation, so the generated name is the one checked.
    if (name !== undefined && name !== want) causes.push(invalid('metadata.name', name, `must be ${JSON.stringify(want)}, the bootstrap-token- prefix followed by data[token-id]`));
  }
  const tokenSecret = data.get('token-secret');
  if (tokenSecret === undefined) causes.push(required('data[token-secret]'));
  else if (tokenSecret !== null && !whole(TOKEN_SECRET_FMT).test(tokenSecret)) causes.push(invalid('data[token-secret]', '<secret contents redacted>', regexError('must be 16 characters of lower-case letters and digits', TOKEN_SECRET_FMT)));
  causes.push(...expirationCauses(data.get('expiration')));
  causes.push(...groupCauses(data.get('auth-extra-groups')));
  return causes;
}
