// The ExecCredential objects of the credential plugin protocol (client.authentication.k8s.io
// v1 and v1beta1): the one a plugin is given in its environment, and the check of the one it
// prints. Messages describe what is wrong with the output without quoting it: it holds secrets.

import { X509Certificate, createPrivateKey } from 'node:crypto';
import { parse } from 'yaml';
import type { Credentials } from './types.js';

/** What ExecCredential.spec.cluster carries when the kubeconfig sets provideClusterInfo. */
export interface ExecClusterInfo {
  server: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  /** base64 of the CA bundle, as Go encodes []byte. */
  'certificate-authority-data'?: string;
  'proxy-url'?: string;
  'disable-compression'?: boolean;
  /** The cluster's client.authentication.<domain>/exec extension. */
  config?: unknown;
}

export function execCredentialInput(apiVersion: string, interactive: boolean, cluster: ExecClusterInfo | undefined): string {
  return JSON.stringify({ kind: 'ExecCredential', apiVersion, spec: { ...(cluster ? { cluster } : {}), interactive } });
}

export interface PluginCredentials {
  credentials: Credentials;
  /** ms since the epoch; undefined: valid until a 401. */
  expiresAt?: number;
}

/** Checks a plugin's standard output as client-go's refreshCredsLocked does; throws with the reason. */
export function parseExecCredentialOutput(stdout: string, apiVersion: string): PluginCredentials {
  let doc: unknown;
  try {
    doc = JSON.parse(stdout);
  } catch {
    // client-go's universal decoder also reads YAML.
    try {
      doc = parse(stdout, { prettyErrors: false });
    } catch {
      throw new Error('decoding stdout: the output is neither JSON nor YAML');
    }
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new Error(stdout.trim() === '' ? 'decoding stdout: the plugin printed nothing' : 'decoding stdout: the output is not an ExecCredential object');
  }
  const cred = doc as Record<string, unknown>;
  if (cred.apiVersion === undefined || cred.apiVersion === '') throw new Error("decoding stdout: Object 'apiVersion' is missing");
  if (cred.kind !== 'ExecCredential') {
    throw new Error(`decoding stdout: kind must be ExecCredential, got ${printable(cred.kind, KIND)}`);
  }
  if (cred.apiVersion !== apiVersion) {
    throw new Error(`exec plugin is configured to use API version ${apiVersion}, plugin returned version ${printable(cred.apiVersion, API_VERSION)}`);
  }
  const status = cred.status;
  if (status === undefined || status === null) throw new Error("exec plugin didn't return a status field");
  if (typeof status !== 'object' || Array.isArray(status)) throw new Error('decoding stdout: status must be an object');
  const { token, clientCertificateData: cert, clientKeyData: key, expirationTimestamp } = status as Record<string, unknown>;
  for (const [name, value] of [['token', token], ['clientCertificateData', cert], ['clientKeyData', key], ['expirationTimestamp', expirationTimestamp]] as const) {
    if (value !== undefined && value !== null && typeof value !== 'string') throw new Error(`decoding stdout: status.${name} must be a string`);
  }
  const has = (v: unknown): v is string => typeof v === 'string' && v !== '';
  if (!has(token) && !has(cert) && !has(key)) throw new Error("exec plugin didn't return a token or cert/key pair");
  if (has(cert) !== has(key)) throw new Error('exec plugin returned only certificate or key, not both');

  const credentials: Credentials = {};
  if (has(token)) credentials.token = token;
  if (has(cert) && has(key)) {
    checkKeyPair(cert, key);
    credentials.clientCertificate = { cert, key };
  }
  let expiresAt: number | undefined;
  if (has(expirationTimestamp)) {
    expiresAt = parseRfc3339(expirationTimestamp);
    if (expiresAt === undefined) throw new Error('decoding stdout: status.expirationTimestamp is not an RFC 3339 time');
  }
  return { credentials, expiresAt };
}

/** The pair must load as Go's tls.X509KeyPair would: the first certificate is the leaf (intermediates may follow) and the key matches it. */
function checkKeyPair(cert: string, key: string): void {
  try {
    const leafPem = /-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/.exec(cert)?.[0];
    if (!leafPem) throw new Error('no certificate');
    const leaf = new X509Certificate(leafPem);
    if (!leaf.checkPrivateKey(createPrivateKey(key))) throw new Error('mismatch');
  } catch (err) {
    const reason = (err as Error).message === 'mismatch' ? 'the private key does not match the certificate' : 'not a PEM certificate and private key';
    throw new Error(`failed parsing client key/certificate: ${reason}`);
  }
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

function parseRfc3339(s: string): number | undefined {
  if (!RFC3339.test(s)) return undefined;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? undefined : ms;
}

const API_VERSION = /^([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?\/)?v[1-9][0-9]*((alpha|beta)[1-9][0-9]*)?$/;
const KIND = /^[A-Z][A-Za-z0-9]{0,62}$/;

/** A value from the output worth showing when it has the shape of a kind or group/version; never free text that might be a secret. */
function printable(v: unknown, shape: RegExp): string {
  if (v === undefined || v === null || v === '') return 'none';
  return typeof v === 'string' && shape.test(v) ? v : 'an unrecognised value';
}
