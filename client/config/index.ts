// The client's configuration: where the API server is and who we are to it.
export { loadKubeConfig, type LoadKubeConfigOptions } from './kubeconfig.js';
export { loadInClusterConfig, type InClusterOptions } from './in-cluster.js';
export { KubeConfigError } from './errors.js';
export type { ExecOptions } from './exec-plugin.js';
export type { ClientConfig, CredentialSource, Credentials, TlsOptions } from './types.js';
