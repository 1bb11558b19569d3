// kube-controller-manager's bootstrapsigner (pkg/controller/bootstrap/bootstrapsigner.go): the
// ConfigMap cluster-info in kube-public carries, next to its `kubeconfig`, one
// `jws-kubeconfig-<token-id>` per bootstrap token that may sign (usage-bootstrap-signing "true",
// not expired), and none for any other token. Each is the detached JWS kubeadm's join discovery
// recomputes and compares byte for byte (cluster-bootstrap's jws.ComputeDetachedSignature): HS256
// keyed by the token secret alone (not "<id>.<secret>"), protected header {"alg":"HS256","kid":
// "<token-id>"}, payload the kubeconfig text, serialized as "<header>..<signature>".
// As kubeadm would have, this controller creates cluster-info when it is missing (the CA and this
// server's URL in a kubeconfig with one unnamed cluster, as kubeadm writes it) and the Role and
// RoleBinding kubeadm:bootstrap-signer-clusterinfo that let system:anonymous read it.
// A token Secret with bad data (name, token-id, token-secret, expiration) is skipped with a log
// line naming the Secret, never its secret. Upstream re-signs on Secret and ConfigMap events only;
// here a timer also re-signs at the next token's expiration, so an expired token's signature
// goes even with the tokencleaner off.

import { CompactSign } from 'jose';
import { isStatusError } from '../errors/status-error.js';
import { metaOf, type KubeObject } from '../machinery/object.js';
import type { Store } from '../registry/store.js';
import type { Logger } from '../machinery/logger.js';
import { expirationOf, isTokenSecret, secretRef, TOKEN_SECRET_PREFIX, tokenData } from './bootstrap-token-secrets.js';
import { createIfMissing, getIfExists } from './get-if-exists.js';
import type { KeyedQueue } from './keyed-queue.js';

export const CLUSTER_INFO_NAMESPACE = 'kube-public';
export const CLUSTER_INFO = 'cluster-info';
const KUBECONFIG_KEY = 'kubeconfig';
const SIGNATURE_PREFIX = 'jws-kubeconfig-';
const CLUSTER_INFO_READER = 'kubeadm:bootstrap-signer-clusterinfo';
const RBAC_GROUP = 'rbac.authorization.k8s.io';
const MAX_TIMER_MS = 2 ** 31 - 1;
const QUEUE_KEY = 'bootstrapsigner';
/** cluster-bootstrap's ParseName: the Secret name carries the token id. */
const TOKEN_SECRET_NAME = /^bootstrap-token-([a-z0-9]{6})$/;

/** The signing key material of one token, or why the Secret cannot sign (undefined: it simply may not). */
type Signing = { tokenID: string; tokenSecret: string; expiresMs?: number } | { bad: string } | undefined;

/** validateSecretForSigning, telling bad data (logged) from a token that is just not for signing. */
function signingOf(secret: KubeObject, now: number): Signing {
  const nameTokenID = TOKEN_SECRET_NAME.exec(metaOf(secret).name ?? '')?.[1];
  if (!nameTokenID) return { bad: `its name must be ${TOKEN_SECRET_PREFIX}<token-id>` };
  const tokenID = tokenData(secret, 'token-id');
  if (tokenID === '') return { bad: 'it has no token-id' };
  if (tokenID !== nameTokenID) return { bad: 'its token-id does not match its name' };
  const tokenSecret = tokenData(secret, 'token-secret');
  if (tokenSecret === '') return { bad: 'it has no token-secret' };
  const expiration = expirationOf(secret);
  if (expiration.kind === 'unreadable') return { bad: `expiration ${JSON.stringify(expiration.value)} is not an RFC 3339 time` };
  if (expiration.kind === 'at' && expiration.ms <= now) return undefined;
  if (tokenData(secret, 'usage-bootstrap-signing') !== 'true') return undefined;
  return { tokenID, tokenSecret, ...(expiration.kind === 'at' ? { expiresMs: expiration.ms } : {}) };
}

/** jws.ComputeDetachedSignature: the compact JWS with its payload left out. */
export async function detachedSignature(content: string, tokenID: string, tokenSecret: string): Promise<string> {
  const encoder = new TextEncoder();
  const jws = await new CompactSign(encoder.encode(content)).setProtectedHeader({ alg: 'HS256', kid: tokenID }).sign(encoder.encode(tokenSecret));
  const [header, , signature] = jws.split('.');
  return `${header}..${signature}`;
}

/** The kubeconfig kubeadm puts in cluster-info: clientcmd.Write of one cluster named "". */
export function clusterInfoKubeconfig(server: string, caPem: string): string {
  return [
    'apiVersion: v1',
    'clusters:',
    '- cluster:',
    `    certificate-authority-data: ${Buffer.from(caPem, 'utf8').toString('base64')}`,
    `    server: ${server}`,
    '  name: ""',
    'contexts: null',
    'current-context: ""',
    'kind: Config',
    'preferences: {}',
    'users: null',
    '',
  ].join('\n');
}

export interface BootstrapSignerOptions {
  configMaps: Store;
  roles?: Store;
  roleBindings?: Store;
  queue: KeyedQueue;
  logger: Logger;
  /** What a missing cluster-info is created with. */
  cluster: { server: string; caPem: string };
  now?: () => number;
}

export class BootstrapSigner {
  /** The token Secrets of kube-system, as the Secret informer last saw them, by name. */
  private readonly tokens = new Map<string, KubeObject>();
  private timer?: ReturnType<typeof setTimeout>;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly options: BootstrapSignerOptions) {
    this.now = options.now ?? Date.now;
  }

  /** kubeadm's Role and RoleBinding letting system:anonymous get cluster-info, when absent. */
  async ensureAnonymousReader(): Promise<void> {
    const { roles, roleBindings } = this.options;
    const metadata = { name: CLUSTER_INFO_READER, namespace: CLUSTER_INFO_NAMESPACE };
    if (roles) {
      await createIfMissing(roles, CLUSTER_INFO_NAMESPACE, {
        apiVersion: `${RBAC_GROUP}/v1`,
        kind: 'Role',
        metadata: { ...metadata },
        rules: [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: [CLUSTER_INFO] }],
      });
    }
    if (roleBindings) {
      await createIfMissing(roleBindings, CLUSTER_INFO_NAMESPACE, {
        apiVersion: `${RBAC_GROUP}/v1`,
        kind: 'RoleBinding',
        metadata: { ...metadata },
        roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: CLUSTER_INFO_READER },
        subjects: [{ apiGroup: RBAC_GROUP, kind: 'User', name: 'system:anonymous' }],
      });
    }
  }

  /** The Secret informer's full list. */
  listed(secrets: KubeObject[]): void {
    this.tokens.clear();
    for (const secret of secrets) if (isTokenSecret(secret)) this.remember(secret);
    this.resync();
  }

  /** A Secret added or changed. */
  observe(secret: KubeObject): void {
    if (!isTokenSecret(secret)) return;
    this.remember(secret);
    this.resync();
  }

  forget(secret: KubeObject): void {
    if (!isTokenSecret(secret)) return;
    this.tokens.delete(metaOf(secret).name ?? '');
    this.resync();
  }

  /** A ConfigMap event: only cluster-info's matter (an edit or deletion is put right). */
  configMapChanged(configMap: KubeObject): void {
    const meta = metaOf(configMap);
    if (meta.namespace === CLUSTER_INFO_NAMESPACE && meta.name === CLUSTER_INFO) this.resync();
  }

  resync(): void {
    if (this.closed) return;
    void this.options.queue.enqueue(QUEUE_KEY, () => this.sign());
  }

  close(): void {
    this.closed = true;
    clearTimeout(this.timer);
  }

  private remember(secret: KubeObject): void {
    const signing = signingOf(secret, this.now());
    if (signing && 'bad' in signing) this.options.logger.info(`bootstrapsigner: ignoring Secret ${secretRef(secret)}: ${signing.bad}`);
    this.tokens.set(metaOf(secret).name ?? '', secret);
  }

  /** The tokens that may sign now, by id (a duplicate id keeps the first, as upstream does). */
  private signingTokens(now: number): Map<string, { tokenSecret: string; expiresMs?: number }> {
    const out = new Map<string, { tokenSecret: string; expiresMs?: number }>();
    for (const secret of this.tokens.values()) {
      const signing = signingOf(secret, now);
      if (!signing || 'bad' in signing || out.has(signing.tokenID)) continue;
      out.set(signing.tokenID, { tokenSecret: signing.tokenSecret, expiresMs: signing.expiresMs });
    }
    return out;
  }

  private async sign(): Promise<void> {
    if (this.closed) return;
    const { configMaps, cluster } = this.options;
    let configMap = await getIfExists(configMaps, CLUSTER_INFO_NAMESPACE, CLUSTER_INFO);
    if (!configMap) {
      await createIfMissing(configMaps, CLUSTER_INFO_NAMESPACE, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: CLUSTER_INFO, namespace: CLUSTER_INFO_NAMESPACE },
        data: { [KUBECONFIG_KEY]: clusterInfoKubeconfig(cluster.server, cluster.caPem) },
      });
      configMap = await getIfExists(configMaps, CLUSTER_INFO_NAMESPACE, CLUSTER_INFO);
      if (!configMap) return;
    }
    const data = (configMap.data ?? {}) as Record<string, string>;
    const content = data[KUBECONFIG_KEY];
    if (content === undefined) {
      this.options.logger.debug(`bootstrapsigner: no ${KUBECONFIG_KEY} key in ${CLUSTER_INFO_NAMESPACE}/${CLUSTER_INFO}`);
      return;
    }
    const now = this.now();
    const tokens = this.signingTokens(now);
    const wanted: Record<string, string> = {};
    for (const [tokenID, { tokenSecret }] of tokens) wanted[`${SIGNATURE_PREFIX}${tokenID}`] = await detachedSignature(content, tokenID, tokenSecret);
    this.scheduleNextExpiry(tokens, now);
    const unsigned = Object.fromEntries(Object.entries(data).filter(([key]) => !key.startsWith(SIGNATURE_PREFIX)));
    const next = { ...unsigned, ...wanted };
    const have = Object.entries(data).filter(([key]) => key.startsWith(SIGNATURE_PREFIX));
    const same = have.length === Object.keys(wanted).length && have.every(([key, value]) => wanted[key] === value);
    if (same) return;
    const resourceVersion = metaOf(configMap).resourceVersion;
    try {
      await configMaps.guaranteedUpdate(CLUSTER_INFO_NAMESPACE, CLUSTER_INFO, (current) => {
        // Conditional on the version signed: a kubeconfig changed meanwhile is signed on its own event.
        metaOf(current).resourceVersion = resourceVersion;
        current.data = next;
        return current;
      });
    } catch (err) {
      if (isStatusError(err) && (err.code === 409 || err.code === 404)) {
        this.resync();
        return;
      }
      throw err;
    }
  }

  /** Signs again when the first signing token expires, so its signature does not outlive it. */
  private scheduleNextExpiry(tokens: Map<string, { expiresMs?: number }>, now: number): void {
    clearTimeout(this.timer);
    const next = Math.min(...[...tokens.values()].map((t) => t.expiresMs ?? Infinity));
    if (!Number.isFinite(next) || this.closed) return;
    this.timer = setTimeout(() => this.resync(), Math.min(Math.max(next - now, 0) + 1, MAX_TIMER_MS));
    this.timer.unref?.();
  }
}
