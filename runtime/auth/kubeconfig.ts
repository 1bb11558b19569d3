// The admin kubeconfig: one cluster (server URL and CA data), one user (client certificate and
// key data), one context `default`, selected. kubectl and @kubernetes/client-node read it as is.

import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';

export interface KubeconfigInput {
  server: string;
  caPem: string;
  clientCertPem: string;
  clientKeyPem: string;
  clusterName?: string;
  userName?: string;
}

const b64 = (pem: string): string => Buffer.from(pem, 'utf8').toString('base64');

/**
 * A YAML scalar: plain when it cannot be read as anything but this string (base64, URLs, simple
 * names), else JSON's double-quoted form, which YAML reads the same way.
 */
function scalar(value: string): string {
  const plain = /^[A-Za-z][A-Za-z0-9._/:+=-]*$/.test(value) && !/^(?:true|false|null|yes|no|on|off|y|n)$/i.test(value);
  return plain ? value : JSON.stringify(value);
}

// Written out rather than through a YAML library: the first stringify of a general-purpose
// emitter costs tens of milliseconds at every start, for a document whose shape never changes.
export function buildKubeconfig(input: KubeconfigInput): string {
  const cluster = scalar(input.clusterName ?? 'kube-lite');
  const user = scalar(input.userName ?? 'admin');
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `  - name: ${cluster}`,
    '    cluster:',
    `      server: ${scalar(input.server)}`,
    `      certificate-authority-data: ${b64(input.caPem)}`,
    'users:',
    `  - name: ${user}`,
    '    user:',
    `      client-certificate-data: ${b64(input.clientCertPem)}`,
    `      client-key-data: ${b64(input.clientKeyPem)}`,
    'contexts:',
    '  - name: default',
    '    context:',
    `      cluster: ${cluster}`,
    `      user: ${user}`,
    'current-context: default',
    'preferences: {}',
    '',
  ].join('\n');
}

/** Writes the file only when its content changed (another port, new certificates); mode 0600, it holds a key. */
export function writeKubeconfig(path: string, text: string): void {
  if (existsSync(path) && readFileSync(path, 'utf8') === text) return;
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}

/** The URL clients use: a wildcard bind address is reached over loopback; IPv6 goes in brackets. */
export function serverUrl(bindAddress: string, port: number): string {
  let host = bindAddress;
  if (host === '0.0.0.0' || host === '') host = '127.0.0.1';
  if (host === '::') host = '::1';
  return host.includes(':') ? `https://[${host}]:${port}` : `https://${host}:${port}`;
}
