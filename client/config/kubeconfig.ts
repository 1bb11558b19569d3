// loadKubeConfig: kubectl's loading rules (clientcmd's ClientConfigLoadingRules and
// DirectClientConfig) down to one cluster, one user and one namespace.

import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfigError } from './errors.js';
import type { ExecClusterInfo } from './exec-credential.js';
import { execCredentialSource, type ExecOptions, type ExecPlugin } from './exec-plugin.js';
import { inClusterPossible, loadInClusterConfig, type InClusterOptions } from './in-cluster.js';
import { parseKubeconfig, type AuthInfo, type Cluster, type Kubeconfig } from './kubeconfig-file.js';
import { mergeKubeconfigs } from './merge.js';
import { StaticCredentialSource, TokenFileCredentialSource } from './token-file.js';
import type { ClientConfig, CredentialSource, Credentials } from './types.js';

export interface LoadKubeConfigOptions {
  /** One kubeconfig file, instead of KUBECONFIG or ~/.kube/config (kubectl --kubeconfig); it must exist. */
  path?: string;
  /** A kubeconfig's YAML text; relative file references in it are relative to the working directory. */
  kubeconfig?: string;
  /** The context to use instead of current-context (kubectl --context). */
  context?: string;
  /** How credential plugins are run. */
  exec?: ExecOptions;
  /** Where the service account files are, for the in-cluster fallback when there is no kubeconfig at all. */
  inCluster?: InClusterOptions;
}

export async function loadKubeConfig(options: LoadKubeConfigOptions = {}): Promise<ClientConfig> {
  let config: Kubeconfig;
  if (options.kubeconfig !== undefined) {
    config = parseKubeconfig(options.kubeconfig, undefined);
  } else if (options.path !== undefined) {
    const text = await readConfigFile(options.path);
    if (text === undefined) throw new KubeConfigError(`kubeconfig file "${options.path}" does not exist`);
    config = parseKubeconfig(text, options.path);
  } else {
    const fromEnv = process.env.KUBECONFIG ?? '';
    // Empty entries are skipped and repeats read once, as clientcmd's loading rules do.
    const paths = fromEnv === '' ? [join(homedir(), '.kube', 'config')] : [...new Set(fromEnv.split(delimiter).filter((p) => p !== ''))];
    const found: Kubeconfig[] = [];
    for (const path of paths) {
      const text = await readConfigFile(path);
      // A file of the list that does not exist is skipped, as kubectl skips it.
      if (text !== undefined) found.push(parseKubeconfig(text, path));
    }
    if (found.length === 0) {
      // kubectl in a pod with no kubeconfig talks to its own cluster (clientcmd's in-cluster fallback).
      if (options.context === undefined && (await inClusterPossible(options.inCluster))) return loadInClusterConfig(options.inCluster);
      const where = fromEnv === '' ? `${paths[0]} does not exist and KUBECONFIG is not set` : `none of the files in KUBECONFIG exist (${paths.join(', ')})`;
      throw new KubeConfigError(`invalid configuration: no configuration has been provided: ${where}`);
    }
    config = mergeKubeconfigs(found);
  }
  return resolveContext(config, options);
}

/** The file's text, or undefined when it does not exist; other failures name the file. */
async function readConfigFile(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new KubeConfigError(`error loading config file "${path}": ${code ?? (err as Error).message}`);
  }
}

async function resolveContext(config: Kubeconfig, options: LoadKubeConfigOptions): Promise<ClientConfig> {
  const contextName = options.context || config.currentContext;
  const sources = () => [...new Set([...config.contexts.values()].map((c) => c.origin))].join(', ') || 'the kubeconfig';
  if (!contextName) throw new KubeConfigError(`invalid configuration: no context chosen: current-context is not set in ${sources()} and no context was given`);
  const context = config.contexts.get(contextName);
  if (!context) throw new KubeConfigError(`context was not found for specified context: ${contextName} (in ${sources()})`);
  const where = `context "${contextName}" in ${context.origin}`;
  if (!context.cluster) throw new KubeConfigError(`invalid configuration: cluster was not specified for ${where}`);
  if (!context.user) throw new KubeConfigError(`invalid configuration: user was not specified for ${where}`);
  const cluster = config.clusters.get(context.cluster);
  if (!cluster) throw new KubeConfigError(`invalid configuration: cluster "${context.cluster}" was not found for ${where}`);
  const user = config.users.get(context.user);
  if (!user) throw new KubeConfigError(`invalid configuration: user "${context.user}" was not found for ${where}`);
  if (context.namespace && !isDns1123Label(context.namespace)) {
    throw new KubeConfigError(`invalid configuration: namespace "${context.namespace}" for ${where} does not conform to the kubernetes DNS_LABEL rules`);
  }

  const clusterWhere = `cluster "${context.cluster}" in ${cluster.origin}`;
  if (!cluster.server) throw new KubeConfigError(`invalid configuration: no server found for ${clusterWhere}`);
  if (cluster.proxyUrl) throw new KubeConfigError(`${clusterWhere}: proxy-url is not supported by this client`);
  const server = serverUrl(cluster.server, clusterWhere);
  const ca = cluster.certificateAuthorityData ?? (cluster.certificateAuthority ? await readPem(cluster.certificateAuthority, 'certificate-authority', clusterWhere) : undefined);
  if (ca !== undefined && cluster.insecureSkipTLSVerify) {
    throw new KubeConfigError(`${clusterWhere}: specifying a root certificates file with the insecure flag is not allowed`);
  }

  const credentials = await credentialSource(context.user, user, cluster, { server, ca }, options.exec);
  return {
    server,
    tls: {
      ...(ca !== undefined ? { ca } : {}),
      ...(cluster.insecureSkipTLSVerify ? { insecureSkipTLSVerify: true } : {}),
      ...(cluster.tlsServerName ? { serverName: cluster.tlsServerName } : {}),
    },
    credentials,
    namespace: context.namespace || 'default',
    source: context.origin,
    context: contextName,
  };
}

async function credentialSource(
  userName: string,
  user: AuthInfo,
  cluster: Cluster,
  resolved: { server: string; ca?: string },
  execOptions: ExecOptions | undefined,
): Promise<CredentialSource> {
  const where = `user "${userName}" in ${user.origin}`;
  if (user.unsupported.length > 0) throw new KubeConfigError(`${where}: settings not supported by this client: ${user.unsupported.join(', ')}`);

  let clientCertificate: Credentials['clientCertificate'];
  if (user.clientCertificate || user.clientCertificateData) {
    if (!user.clientKey && !user.clientKeyData) {
      throw new KubeConfigError(`invalid configuration: client-key-data or client-key must be specified for ${where} to use the clientCert authentication method`);
    }
    clientCertificate = {
      // The data fields win over the files, as client-go's validation warns.
      cert: user.clientCertificateData ?? (await readPem(user.clientCertificate!, 'client-certificate', where)),
      key: user.clientKeyData ?? (await readPem(user.clientKey!, 'client-key', where)),
    };
  } else if (user.clientKey || user.clientKeyData) {
    throw new KubeConfigError(`invalid configuration: ${where} has a client key but no client certificate`);
  }

  if (user.tokenFile) return TokenFileCredentialSource.open(user.tokenFile, clientCertificate, user.token);
  if (user.token || clientCertificate) {
    return new StaticCredentialSource({ ...(user.token ? { token: user.token } : {}), ...(clientCertificate ? { clientCertificate } : {}) });
  }
  // A plugin only when the user has no token or certificate of its own (client-go's
  // exec authenticator steps aside for them).
  if (user.exec) return execCredentialSource(execPlugin(user, where, cluster, resolved), execOptions);
  return new StaticCredentialSource({});
}

function execPlugin(user: AuthInfo, where: string, cluster: Cluster, resolved: { server: string; ca?: string }): ExecPlugin {
  const exec = user.exec!;
  const group = 'client.authentication.k8s.io';
  const invalid = (message: string) => new KubeConfigError(`invalid configuration: ${message}`);
  if (!exec.command) throw invalid(`command must be specified for ${where} to use exec authentication plugin`);
  if (!exec.apiVersion) throw invalid(`apiVersion must be specified for ${where} to use exec authentication plugin`);
  if (exec.apiVersion !== `${group}/v1` && exec.apiVersion !== `${group}/v1beta1`) {
    throw invalid(`exec plugin of ${where}: invalid apiVersion "${exec.apiVersion}" (${group}/v1 or ${group}/v1beta1)`);
  }
  if (exec.env.some((e) => e.name === '')) throw invalid(`env variable name must be specified for ${where} to use exec authentication plugin`);
  // v1beta1 defaults interactiveMode to IfAvailable; v1 requires it.
  const interactiveMode = exec.interactiveMode || (exec.apiVersion.endsWith('/v1beta1') ? 'IfAvailable' : '');
  if (interactiveMode === '') throw invalid(`interactiveMode must be specified for ${where} to use exec authentication plugin`);
  if (interactiveMode !== 'Never' && interactiveMode !== 'IfAvailable' && interactiveMode !== 'Always') {
    throw invalid(`invalid interactiveMode for ${where}: "${interactiveMode}"`);
  }
  let clusterInfo: ExecClusterInfo | undefined;
  if (exec.provideClusterInfo) {
    const config = cluster.extensions.get(`${group}/exec`);
    clusterInfo = {
      server: resolved.server,
      ...(cluster.tlsServerName ? { 'tls-server-name': cluster.tlsServerName } : {}),
      ...(cluster.insecureSkipTLSVerify ? { 'insecure-skip-tls-verify': true } : {}),
      ...(resolved.ca !== undefined ? { 'certificate-authority-data': Buffer.from(resolved.ca, 'utf8').toString('base64') } : {}),
      ...(cluster.disableCompression ? { 'disable-compression': true } : {}),
      ...(config !== undefined && config !== null ? { config } : {}),
    };
  }
  return { exec: { ...exec, interactiveMode }, cluster: clusterInfo, owner: where };
}

async function readPem(path: string, field: string, where: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new KubeConfigError(`invalid configuration: unable to read ${field} ${path} for ${where}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** client-go's DefaultServerURL: a host without a scheme is https; a path (a proxy's prefix) is kept. Never quoted: it may carry a password. */
function serverUrl(server: string, where: string): string {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(server) ? server : `https://${server}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new KubeConfigError(`invalid configuration: the server of ${where} is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new KubeConfigError(`invalid configuration: the server of ${where} must be an https or http URL`);
  if (url.username || url.password) throw new KubeConfigError(`invalid configuration: the server URL of ${where} must not carry credentials`);
  return url.href.replace(/\/+$/, '');
}

function isDns1123Label(s: string): boolean {
  return s.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(s);
}
