// kube-controller-manager's tokens controller, for legacy service account token Secrets (type
// kubernetes.io/service-account-token): a Secret naming an existing service account gets the
// account's uid annotation and `token` (a legacy JWT), `ca.crt` and `namespace` filled in; a Secret
// whose account is gone, or is another account of the same name, is deleted, as are an account's
// Secrets when the account is deleted.

import { legacyClaims, type ServiceAccountTokenSigner } from '../auth/service-account-token.js';
import { isStatusError } from '../errors/status-error.js';
import { annotationsOf, asObject, metaOf, type KubeObject } from '../machinery/object.js';
import type { Store } from '../registry/store.js';
import { getIfExists } from './get-if-exists.js';

export const SERVICE_ACCOUNT_TOKEN_TYPE = 'kubernetes.io/service-account-token';
const SA_NAME_ANNOTATION = 'kubernetes.io/service-account.name';
const SA_UID_ANNOTATION = 'kubernetes.io/service-account.uid';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const unb64 = (v: unknown) => (typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : '');

export function isServiceAccountTokenSecret(secret: KubeObject): boolean {
  return secret.type === SERVICE_ACCOUNT_TOKEN_TYPE;
}

/** Whether a token Secret names this account (by name, and by uid when it records one). */
export function referencesServiceAccount(secret: KubeObject, serviceAccount: KubeObject): boolean {
  const annotations = annotationsOf(secret);
  const sa = metaOf(serviceAccount);
  if (metaOf(secret).namespace !== sa.namespace || annotations[SA_NAME_ANNOTATION] !== sa.name) return false;
  const uid = annotations[SA_UID_ANNOTATION];
  return !uid || uid === sa.uid;
}

export class TokensController {
  constructor(
    private readonly serviceAccounts: Store,
    private readonly secrets: Store,
    private readonly signer: ServiceAccountTokenSigner,
    private readonly rootCa: string,
  ) {}

  async syncSecret(namespace: string, name: string): Promise<void> {
    const secret = await getIfExists(this.secrets, namespace, name);
    if (!secret || !isServiceAccountTokenSecret(secret) || metaOf(secret).deletionTimestamp) return;
    const annotations = annotationsOf(secret);
    const serviceAccount = await getIfExists(this.serviceAccounts, namespace, annotations[SA_NAME_ANNOTATION] ?? '');
    if (!serviceAccount || !referencesServiceAccount(secret, serviceAccount)) {
      await this.deleteSecret(secret);
      return;
    }
    const data = asObject(secret.data);
    const sa = metaOf(serviceAccount);
    const complete =
      unb64(data.token) !== '' && unb64(data['ca.crt']) === this.rootCa && unb64(data.namespace) === namespace && annotations[SA_UID_ANNOTATION] === sa.uid;
    if (complete) return;
    const token = unb64(data.token) || (await this.signer.sign(legacyClaims(serviceAccount, secret)));
    await this.secrets.guaranteedUpdate(namespace, name, (live) => {
      const meta = metaOf(live);
      if (meta.uid !== metaOf(secret).uid) return live;
      meta.annotations = { ...meta.annotations, [SA_NAME_ANNOTATION]: sa.name ?? '', [SA_UID_ANNOTATION]: sa.uid ?? '' };
      live.data = { ...asObject(live.data), token: b64(token), 'ca.crt': b64(this.rootCa), namespace: b64(namespace) };
      return live;
    });
  }

  /** The account is gone: so are the token Secrets that name it. */
  async serviceAccountDeleted(serviceAccount: KubeObject, secretsInNamespace: KubeObject[]): Promise<void> {
    for (const secret of secretsInNamespace) {
      if (isServiceAccountTokenSecret(secret) && referencesServiceAccount(secret, serviceAccount)) await this.deleteSecret(secret);
    }
  }

  private async deleteSecret(secret: KubeObject): Promise<void> {
    const meta = metaOf(secret);
    try {
      await this.secrets.delete(meta.namespace, meta.name ?? '', { preconditions: { uid: meta.uid } });
    } catch (err) {
      // Already gone, or replaced by a new Secret of the same name: not ours to delete.
      if (isStatusError(err) && (err.code === 404 || err.code === 409)) return;
      throw err;
    }
  }
}
