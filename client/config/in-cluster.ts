// In-cluster configuration, as client-go's rest.InClusterConfig and clientcmd's in-cluster
// namespace: the API server from KUBERNETES_SERVICE_HOST/PORT, the pod's service account token
// (re-read as the kubelet rotates it), its CA and its namespace.

import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KubeConfigError } from './errors.js';
import { TokenFileCredentialSource } from './token-file.js';
import type { ClientConfig } from './types.js';

export interface InClusterOptions {
  /** Folder holding token, ca.crt and namespace; default where the kubelet mounts them. */
  serviceAccountDir?: string;
}

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export async function loadInClusterConfig(options: InClusterOptions = {}): Promise<ClientConfig> {
  const dir = options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR;
  const host = process.env.KUBERNETES_SERVICE_HOST ?? '';
  const port = process.env.KUBERNETES_SERVICE_PORT ?? '';
  if (host === '' || port === '') {
    throw new KubeConfigError('unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined');
  }
  const credentials = await TokenFileCredentialSource.open(join(dir, 'token'));
  // client-go goes on with the system's roots when ca.crt cannot be read; so do we.
  const ca = await readFile(join(dir, 'ca.crt'), 'utf8').catch(() => undefined);
  return {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    tls: ca === undefined ? {} : { ca },
    credentials,
    namespace: process.env.POD_NAMESPACE || (await readNamespace(join(dir, 'namespace'))) || 'default',
    source: 'in-cluster',
  };
}

/** clientcmd's test before falling back to in-cluster: the service variables are set and the token file exists. */
export async function inClusterPossible(options: InClusterOptions = {}): Promise<boolean> {
  if (!process.env.KUBERNETES_SERVICE_HOST || !process.env.KUBERNETES_SERVICE_PORT) return false;
  return access(join(options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR, 'token')).then(
    () => true,
    () => false,
  );
}

async function readNamespace(path: string): Promise<string | undefined> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text.trim() || undefined;
}
