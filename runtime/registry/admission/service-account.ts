// The ServiceAccount admission plugin, on by default in kube-apiserver: a pod created without a
// service account runs as `default`; the account must exist (403 otherwise); and unless the pod or
// the account turns automounting off, every container and init container gets the
// `kube-api-access-<suffix>` projected volume (a token, the root CA from kube-root-ca.crt, and the
// namespace) mounted read-only at /var/run/secrets/kubernetes.io/serviceaccount. A pod without
// image pull secrets takes the account's. Mirror pods are not changed.

import { randomInt } from 'node:crypto';
import { isStatusError, notFound } from '../../errors/status-error.js';
import { asObject, isPlainObject, metaOf, type KubeObject } from '../../machinery/object.js';
import { admissionForbidden, type AdmissionAttributes, type AdmissionPlugin } from './admission.js';

export const DEFAULT_SERVICE_ACCOUNT_NAME = 'default';
export const SERVICE_ACCOUNT_VOLUME_PREFIX = 'kube-api-access-';
export const TOKEN_MOUNT_PATH = '/var/run/secrets/kubernetes.io/serviceaccount';
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';
/** The lifetime kubelet asks for, which the token endpoint extends (WarnOnlyBoundTokenExpirationSeconds). */
const PROJECTED_TOKEN_EXPIRATION_SECONDS = 3607;
/** `default` is made by a controller just after its namespace: look it up a few times before giving up. */
const DEFAULT_ACCOUNT_ATTEMPTS = 10;

/** names.SimpleNameGenerator's alphabet: no vowels, no look-alike digits. */
const NAME_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function randomSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += NAME_ALPHABET[randomInt(NAME_ALPHABET.length)];
  return s;
}

/** The projected source kube's TokenVolumeSource builds, with the default mode set explicitly. */
function tokenVolumeSource(): Record<string, unknown> {
  return {
    sources: [
      { serviceAccountToken: { expirationSeconds: PROJECTED_TOKEN_EXPIRATION_SECONDS, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
    defaultMode: 0o644,
  };
}

/** Reads a service account; undefined when there is none. */
export type ServiceAccountGetter = (namespace: string, name: string) => Promise<KubeObject | undefined>;

export interface ServiceAccountAdmissionOptions {
  get: ServiceAccountGetter;
  /** Wait between lookups of a missing `default` (kube waits 100 to 200 ms). */
  retryDelayMs?: () => number;
}

function shouldAutomount(serviceAccount: KubeObject, spec: Record<string, unknown>): boolean {
  if (typeof spec.automountServiceAccountToken === 'boolean') return spec.automountServiceAccountToken;
  if (typeof serviceAccount.automountServiceAccountToken === 'boolean') return serviceAccount.automountServiceAccountToken;
  return true;
}

function mountToken(spec: Record<string, unknown>): void {
  const volumes = Array.isArray(spec.volumes) ? (spec.volumes as unknown[]) : [];
  const existing = volumes.find((v) => isPlainObject(v) && typeof v.name === 'string' && v.name.startsWith(SERVICE_ACCOUNT_VOLUME_PREFIX)) as
    | { name: string }
    | undefined;
  const volumeName = existing?.name ?? SERVICE_ACCOUNT_VOLUME_PREFIX + randomSuffix();
  let needsVolume = false;
  for (const list of [spec.initContainers, spec.containers]) {
    if (!Array.isArray(list)) continue;
    for (const container of list) {
      if (!isPlainObject(container)) continue;
      const mounts = Array.isArray(container.volumeMounts) ? container.volumeMounts : [];
      // A container that mounts something at the token path keeps it.
      if (mounts.some((m) => isPlainObject(m) && m.mountPath === TOKEN_MOUNT_PATH)) continue;
      container.volumeMounts = [...mounts, { name: volumeName, readOnly: true, mountPath: TOKEN_MOUNT_PATH }];
      needsVolume = true;
    }
  }
  if (!existing && needsVolume) spec.volumes = [...volumes, { name: volumeName, projected: tokenVolumeSource() }];
}

export function serviceAccountAdmission(options: ServiceAccountAdmissionOptions): AdmissionPlugin {
  const delay = options.retryDelayMs ?? (() => 100 + randomInt(100));

  async function lookup(a: AdmissionAttributes, name: string): Promise<KubeObject> {
    const attempts = name === DEFAULT_SERVICE_ACCOUNT_NAME ? DEFAULT_ACCOUNT_ATTEMPTS : 1;
    for (let i = 0; i < attempts; i++) {
      if (i > 0) await new Promise((resolve) => setTimeout(resolve, delay()));
      let found: KubeObject | undefined;
      try {
        found = await options.get(a.namespace, name);
      } catch (err) {
        if (isStatusError(err) && err.reason === 'Forbidden') throw err;
        throw admissionForbidden(a, `error looking up service account ${a.namespace}/${name}: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (found) return found;
    }
    const missing = notFound({ group: '', resource: 'serviceaccount' }, name);
    throw admissionForbidden(a, `error looking up service account ${a.namespace}/${name}: ${missing.message}`);
  }

  return {
    name: 'ServiceAccount',
    handles(a) {
      return a.operation === 'CREATE' && a.subresource === '' && a.definition.group === '' && a.definition.kind === 'Pod';
    },
    async admit(a) {
      if (metaOf(a.object).annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return;
      const spec = asObject(a.object.spec);
      if (!isPlainObject(a.object.spec)) a.object.spec = spec;
      let name = typeof spec.serviceAccountName === 'string' ? spec.serviceAccountName : '';
      // The v1 field serviceAccount is the deprecated spelling of serviceAccountName.
      if (name === '' && typeof spec.serviceAccount === 'string') name = spec.serviceAccount;
      if (name === '') name = DEFAULT_SERVICE_ACCOUNT_NAME;
      spec.serviceAccountName = name;
      spec.serviceAccount = name;
      const serviceAccount = await lookup(a, name);
      if (shouldAutomount(serviceAccount, spec)) mountToken(spec);
      const pullSecrets = Array.isArray(spec.imagePullSecrets) ? spec.imagePullSecrets : [];
      const accountPullSecrets = Array.isArray(serviceAccount.imagePullSecrets) ? serviceAccount.imagePullSecrets : [];
      if (pullSecrets.length === 0 && accountPullSecrets.length > 0) {
        spec.imagePullSecrets = accountPullSecrets.map((s) => ({ name: isPlainObject(s) && typeof s.name === 'string' ? s.name : '' }));
      }
    },
  };
}
