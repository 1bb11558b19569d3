// Bootstrap tokens (--enable-bootstrap-token-auth): a bearer token `<token-id>.<token-secret>`
// authenticates as system:bootstrap:<token-id> when kube-system holds a Secret
// bootstrap-token-<token-id> of type bootstrap.kubernetes.io/token that is not being deleted, whose
// token-id and token-secret match, that has not expired and that is marked
// usage-bootstrap-authentication=true. Its groups are system:bootstrappers plus auth-extra-groups,
// de-duplicated and sorted, as cluster-bootstrap's GetGroups gives them. Anything else is "not this
// authenticator's token", never an error, as upstream's authenticator answers.

import { timingSafeEqual } from 'node:crypto';
import { asObject, isPlainObject, type KubeObject } from '../machinery/object.js';
import type { TokenAuthenticator } from './token-file.js';
import { newUserInfo, type UserInfo } from './user.js';

export const BOOTSTRAP_TOKEN_NAMESPACE = 'kube-system';
const SECRET_PREFIX = 'bootstrap-token-';
const SECRET_TYPE = 'bootstrap.kubernetes.io/token';
const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const DEFAULT_GROUP = 'system:bootstrappers';
const GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** Reads one Secret of kube-system; undefined when there is none. */
export type SecretLookup = (name: string) => Promise<KubeObject | undefined>;

/** A data value as text; '' when absent, as cluster-bootstrap's GetData gives it. */
function dataOf(secret: KubeObject, key: string): string {
  const value = isPlainObject(secret.data) ? secret.data[key] : undefined;
  return typeof value === 'string' ? Buffer.from(value, 'base64').toString('utf8') : '';
}

/** An expiration that does not parse counts as expired, as upstream treats it. */
function hasExpired(secret: KubeObject, now: Date): boolean {
  const expiration = dataOf(secret, 'expiration');
  if (!expiration) return false;
  const at = RFC3339.test(expiration) ? Date.parse(expiration) : Number.NaN;
  return Number.isNaN(at) || at <= now.getTime();
}

/** system:bootstrappers plus every extra group, sorted; undefined when an extra group is invalid. */
function groupsOf(secret: KubeObject): string[] | undefined {
  const groups = new Set([DEFAULT_GROUP]);
  const extra = dataOf(secret, 'auth-extra-groups');
  if (extra) {
    for (const group of extra.split(',')) {
      if (!GROUP.test(group)) return undefined;
      groups.add(group);
    }
  }
  return [...groups].sort();
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export class BootstrapTokenAuthenticator implements TokenAuthenticator {
  constructor(
    private readonly lookup: SecretLookup,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async authenticateToken(token: string): Promise<UserInfo | undefined> {
    const parts = TOKEN.exec(token);
    if (!parts) return undefined;
    const [, tokenID, tokenSecret] = parts;
    const secret = await this.lookup(`${SECRET_PREFIX}${tokenID}`);
    if (!secret) return undefined;
    const meta = asObject(secret.metadata);
    if (meta.deletionTimestamp) return undefined;
    if (secret.type !== SECRET_TYPE || !isPlainObject(secret.data)) return undefined;
    if (!sameSecret(dataOf(secret, 'token-secret'), tokenSecret)) return undefined;
    if (dataOf(secret, 'token-id') !== tokenID) return undefined;
    if (hasExpired(secret, this.now())) return undefined;
    if (dataOf(secret, 'usage-bootstrap-authentication') !== 'true') return undefined;
    const groups = groupsOf(secret);
    if (!groups) return undefined;
    return newUserInfo(`system:bootstrap:${tokenID}`, { groups });
  }
}
