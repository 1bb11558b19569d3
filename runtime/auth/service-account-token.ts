// Service account tokens as kube-apiserver makes and checks them (pkg/serviceaccount): JWTs
// signed with the service account key, with the registered claims iss, sub, aud, exp, iat, nbf,
// jti and a private `kubernetes.io` claim naming the namespace, the service account and the object
// the token is bound to. A token authenticates only while its service account, and its bound pod,
// secret or node, still exist with the uids it names, so it dies with them. Legacy tokens
// (issuer kubernetes/serviceaccount, from service-account-token Secrets) live while their Secret
// holds them. Signing and verification are jose's; nothing here logs a token.

import { randomUUID } from 'node:crypto';
import { jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { isPlainObject, metaOf, type KubeObject } from '../machinery/object.js';
import type { TokenAuthenticator } from './token-file.js';
import { CREDENTIAL_ID_KEY, newUserInfo, type UserInfo } from './user.js';
import type { ServiceAccountKeys } from './service-account-keys.js';

export const DEFAULT_SERVICE_ACCOUNT_ISSUER = 'https://kubernetes.default.svc.cluster.local';
export const LEGACY_ISSUER = 'kubernetes/serviceaccount';
/** jwt.DefaultLeeway: clock skew allowed on exp, nbf and iat, and on deletions. */
const LEEWAY_SECONDS = 60;

const POD_NAME_KEY = 'authentication.kubernetes.io/pod-name';
const POD_UID_KEY = 'authentication.kubernetes.io/pod-uid';
const NODE_NAME_KEY = 'authentication.kubernetes.io/node-name';
const NODE_UID_KEY = 'authentication.kubernetes.io/node-uid';

const LEGACY_NAMESPACE = 'kubernetes.io/serviceaccount/namespace';
const LEGACY_SECRET_NAME = 'kubernetes.io/serviceaccount/secret.name';
const LEGACY_SA_NAME = 'kubernetes.io/serviceaccount/service-account.name';
const LEGACY_SA_UID = 'kubernetes.io/serviceaccount/service-account.uid';
/** A legacy token whose Secret carries this label is refused (kube's legacy token cleaner marks them). */
const LEGACY_INVALID_SINCE_LABEL = 'kubernetes.io/legacy-token-invalid-since';

export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

interface ObjectRef {
  name: string;
  uid: string;
}

const refOf = (obj: KubeObject): ObjectRef => ({ name: metaOf(obj).name ?? '', uid: metaOf(obj).uid ?? '' });

export interface BoundObjects {
  pod?: KubeObject;
  secret?: KubeObject;
  /** A pod's node, or the node the token is bound to; a missing node of a pod has a name only. */
  node?: ObjectRef;
}

export interface TokenClaimsRequest {
  serviceAccount: KubeObject;
  bound: BoundObjects;
  audiences: string[];
  expirationSeconds: number;
  /** For extended pod tokens: the time after which use is only warned about. */
  warnAfterSeconds?: number;
  now: Date;
}

/** The claims kube's token.Claims builds, keys in the order Go's encoder writes them (sorted). */
export function serviceAccountClaims(issuer: string, req: TokenClaimsRequest): JWTPayload {
  const meta = metaOf(req.serviceAccount);
  const now = Math.floor(req.now.getTime() / 1000);
  const kube: Record<string, unknown> = { namespace: meta.namespace ?? '' };
  if (req.bound.node) kube.node = req.bound.node.uid ? req.bound.node : { name: req.bound.node.name };
  if (req.bound.pod) kube.pod = refOf(req.bound.pod);
  if (req.bound.secret) kube.secret = refOf(req.bound.secret);
  kube.serviceaccount = refOf(req.serviceAccount);
  if (req.warnAfterSeconds) kube.warnafter = now + req.warnAfterSeconds;
  return {
    aud: req.audiences,
    exp: now + req.expirationSeconds,
    iat: now,
    iss: issuer,
    jti: randomUUID(),
    'kubernetes.io': kube,
    nbf: now,
    sub: serviceAccountUsername(meta.namespace ?? '', meta.name ?? ''),
  };
}

/** The claims of a legacy Secret-held token (LegacyClaims): no audience and no expiry. */
export function legacyClaims(serviceAccount: KubeObject, secret: KubeObject): JWTPayload {
  const sa = metaOf(serviceAccount);
  return {
    iss: LEGACY_ISSUER,
    [LEGACY_NAMESPACE]: sa.namespace ?? '',
    [LEGACY_SECRET_NAME]: metaOf(secret).name ?? '',
    [LEGACY_SA_NAME]: sa.name ?? '',
    [LEGACY_SA_UID]: sa.uid ?? '',
    sub: serviceAccountUsername(sa.namespace ?? '', sa.name ?? ''),
  };
}

export class ServiceAccountTokenSigner {
  constructor(private readonly keys: ServiceAccountKeys) {}

  sign(claims: JWTPayload): Promise<string> {
    const { alg, kid, privateKey } = this.keys.signing;
    return new SignJWT(claims).setProtectedHeader({ alg, kid }).sign(privateKey);
  }
}

/** Reads one object; undefined when it does not exist. */
export type ObjectGetter = (namespace: string, name: string) => Promise<KubeObject | undefined>;

export interface ServiceAccountObjects {
  serviceAccount: ObjectGetter;
  pod: ObjectGetter;
  secret: ObjectGetter;
  node: (name: string) => Promise<KubeObject | undefined>;
}

export interface ServiceAccountTokenAuthenticatorOptions {
  keys: ServiceAccountKeys;
  /** --service-account-issuer values: the first signs, all are accepted. */
  issuers: string[];
  /** --api-audiences: a token must name one of them (legacy tokens are taken as meant for them). */
  audiences: string[];
  objects: ServiceAccountObjects;
  now?: () => Date;
}

/** The payload's issuer, read before any verification only to tell whether the token is ours. */
function unverifiedIssuer(token: string): string | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return isPlainObject(payload) && typeof payload.iss === 'string' ? payload.iss : undefined;
  } catch {
    return undefined;
  }
}

const stringOf = (v: unknown): string => (typeof v === 'string' ? v : '');

function refClaim(v: unknown): ObjectRef | undefined {
  if (!isPlainObject(v)) return undefined;
  return { name: stringOf(v.name), uid: stringOf(v.uid) };
}

export class ServiceAccountTokenAuthenticator implements TokenAuthenticator {
  private readonly issuers: Set<string>;
  private readonly audiences: Set<string>;
  private readonly now: () => Date;

  constructor(private readonly options: ServiceAccountTokenAuthenticatorOptions) {
    this.issuers = new Set(options.issuers);
    this.audiences = new Set(options.audiences);
    this.now = options.now ?? (() => new Date());
  }

  /** It judges audiences itself: a token is good for the audiences it names among those asked for. */
  readonly audienceAware = true;

  async authenticateToken(token: string, requested?: string[]): Promise<{ user: UserInfo; audiences: string[] } | undefined> {
    const issuer = unverifiedIssuer(token);
    if (issuer === undefined || (issuer !== LEGACY_ISSUER && !this.issuers.has(issuer))) return undefined;
    const payload = await this.verify(token, issuer);
    if (!payload) return undefined;
    // A token naming no audience (a legacy one) is implicitly meant for the API audiences; a
    // request asks for its own audiences (a TokenReview's) or, by default, the API audiences.
    const named = payload.aud === undefined ? [] : Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    const tokenAudiences = named.length > 0 ? named : [...this.audiences];
    const targets = new Set(requested?.length ? requested : this.audiences);
    const audiences = tokenAudiences.filter((a) => targets.has(a));
    if (audiences.length === 0) return undefined;
    try {
      const user = await (issuer === LEGACY_ISSUER ? this.legacyUser(token, payload) : this.boundUser(payload));
      return user && { user, audiences };
    } catch {
      // A lookup that failed (storage away, a name no key can hold) proves nothing: 401, as upstream.
      return undefined;
    }
  }

  /** The verified payload, or undefined when no key verifies it or its times are wrong. */
  private async verify(token: string, issuer: string): Promise<JWTPayload | undefined> {
    const now = this.now();
    for (const key of this.options.keys.verification) {
      try {
        const { payload } = await jwtVerify(token, key.key, {
          algorithms: [key.alg],
          issuer,
          clockTolerance: LEEWAY_SECONDS,
          currentDate: now,
        });
        if (typeof payload.iat === 'number' && payload.iat > now.getTime() / 1000 + LEEWAY_SECONDS) return undefined;
        return payload;
      } catch {
        // Not this key's signature (or a malformed token): try the next key.
      }
    }
    return undefined;
  }

  /** Whether an object still stands for the claim: same uid, not deleted before the leeway. */
  private stillLive(obj: KubeObject | undefined, uid: string): boolean {
    if (!obj) return false;
    const meta = metaOf(obj);
    if (meta.uid !== uid) return false;
    if (meta.deletionTimestamp) {
      const deletedAt = Date.parse(String(meta.deletionTimestamp));
      if (deletedAt < this.now().getTime() - LEEWAY_SECONDS * 1000) return false;
    }
    return true;
  }

  private async boundUser(payload: JWTPayload): Promise<UserInfo | undefined> {
    const kube = payload['kubernetes.io'];
    if (!isPlainObject(kube)) return undefined;
    const namespace = stringOf(kube.namespace);
    const sa = refClaim(kube.serviceaccount);
    if (!namespace || !sa?.name) return undefined;
    const objects = this.options.objects;
    if (!this.stillLive(await objects.serviceAccount(namespace, sa.name), sa.uid)) return undefined;
    const secret = refClaim(kube.secret);
    if (secret && !this.stillLive(await objects.secret(namespace, secret.name), secret.uid)) return undefined;
    const pod = refClaim(kube.pod);
    if (pod && !this.stillLive(await objects.pod(namespace, pod.name), pod.uid)) return undefined;
    const node = refClaim(kube.node);
    // A pod's node is information only; a token bound to a node itself dies with the node.
    if (node && !pod && !this.stillLive(await objects.node(node.name), node.uid)) return undefined;

    const extra: Record<string, string[]> = {};
    if (typeof payload.jti === 'string' && payload.jti) extra[CREDENTIAL_ID_KEY] = [`JTI=${payload.jti}`];
    if (node?.name) {
      extra[NODE_NAME_KEY] = [node.name];
      if (node.uid) extra[NODE_UID_KEY] = [node.uid];
    }
    if (pod?.name && pod.uid) {
      extra[POD_NAME_KEY] = [pod.name];
      extra[POD_UID_KEY] = [pod.uid];
    }
    return serviceAccountUser(namespace, sa.name, sa.uid, extra);
  }

  private async legacyUser(token: string, payload: JWTPayload): Promise<UserInfo | undefined> {
    const namespace = stringOf(payload[LEGACY_NAMESPACE]);
    const secretName = stringOf(payload[LEGACY_SECRET_NAME]);
    const saName = stringOf(payload[LEGACY_SA_NAME]);
    const saUid = stringOf(payload[LEGACY_SA_UID]);
    if (!namespace || !secretName || !saName || !saUid) return undefined;
    const secret = await this.options.objects.secret(namespace, secretName);
    if (!secret || metaOf(secret).deletionTimestamp) return undefined;
    if (metaOf(secret).labels?.[LEGACY_INVALID_SINCE_LABEL]) return undefined;
    const held = isPlainObject(secret.data) ? stringOf(secret.data.token) : '';
    if (Buffer.from(held, 'base64').toString('utf8') !== token) return undefined;
    const sa = await this.options.objects.serviceAccount(namespace, saName);
    if (!sa || metaOf(sa).deletionTimestamp || metaOf(sa).uid !== saUid) return undefined;
    return serviceAccountUser(namespace, saName, saUid, {});
  }
}

/** serviceaccount.UserInfo: the account's user name, its uid, and its two groups. */
function serviceAccountUser(namespace: string, name: string, uid: string, extra: Record<string, string[]>): UserInfo {
  return newUserInfo(serviceAccountUsername(namespace, name), {
    uid,
    groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`],
    extra,
  });
}
