// The server's certificates. On first start the data dir gets a CA, a serving certificate for the
// loopback names, and an admin client certificate (O=system:masters); later starts reuse them,
// re-issuing only a leaf that is missing, expiring, no longer signed by the CA, or (for serving)
// missing a name the server now answers on. Reuse needs no key generation, so it is fast.
// --tls-cert-file/--tls-private-key-file and --client-ca-file replace the generated ones.

import { X509Certificate as NodeX509, webcrypto } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as X509 from '@peculiar/x509';
import { isIP } from '../machinery/formats.js';
import { parseCertificateBundle } from './x509.js';

let x509Module: Promise<typeof X509> | undefined;

/**
 * @peculiar/x509 is needed only to make certificates; loading it (and the reflect shim its
 * dependency injection needs) costs a large share of start-up, so later starts never load it.
 */
function loadX509(): Promise<typeof X509> {
  x509Module ??= (async () => {
    await import('./reflect-metadata.js');
    const x509 = await import('@peculiar/x509');
    x509.cryptoProvider.set(webcrypto as unknown as Crypto);
    return x509;
  })();
  return x509Module;
}

const EC_KEY = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGNING = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY_MS = 24 * 60 * 60 * 1000;
const CA_LIFETIME_DAYS = 3650;
const LEAF_LIFETIME_DAYS = 365;
/** A leaf this close to expiry is re-issued at start. */
const RENEW_BEFORE_DAYS = 30;
/** Back-date certificates a little, so clients with a slightly slow clock accept them at once. */
const BACKDATE_MS = 60 * 60 * 1000;

/** Names every generated serving certificate covers (plus the bind address when it is specific). */
export const DEFAULT_SERVING_NAMES = ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local', '127.0.0.1', '::1'];

export const PKI_FILES = {
  caCert: 'ca.crt',
  caKey: 'ca.key',
  servingCert: 'apiserver.crt',
  servingKey: 'apiserver.key',
  adminCert: 'admin.crt',
  adminKey: 'admin.key',
} as const;

export interface PkiOptions {
  dataDir: string;
  /** Extra DNS names or IPs the serving certificate must cover. */
  servingNames?: string[];
  clientCaFile?: string;
  tlsCertFile?: string;
  tlsPrivateKeyFile?: string;
}

export interface ServerPki {
  /** The generated CA (PEM), which signs the admin certificate and, unless overridden, the serving one. */
  caCert: string;
  /** What clients should trust to verify the serving certificate (kubeconfig certificate-authority-data). */
  servingCa: string;
  /** The CA bundle client certificates are verified against. */
  clientCa: string;
  /** The same bundle, parsed. */
  clientRoots: NodeX509[];
  servingCert: string;
  servingKey: string;
  adminCert: string;
  adminKey: string;
  /** True when the generated CA is in the client CA bundle, i.e. the admin certificate authenticates. */
  adminTrusted: boolean;
}

export interface KeyedCert {
  certPem: string;
  keyPem: string;
}

function readIfExists(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}

function writePem(path: string, pem: string, secret: boolean): void {
  writeFileSync(path, pem, { mode: secret ? 0o600 : 0o644 });
  // writeFileSync's mode applies only when it creates the file.
  if (secret) chmodSync(path, 0o600);
}

function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  // Positive and without a leading zero byte, as RFC 5280 and Go's parser want.
  bytes[0] = (bytes[0] & 0x7f) | 0x01;
  return Buffer.from(bytes).toString('hex');
}

function keyToPem(pkcs8: ArrayBuffer): string {
  const lines = Buffer.from(pkcs8).toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN PRIVATE KEY-----\n${lines.join('\n')}\n-----END PRIVATE KEY-----\n`;
}

async function importSigningKey(pem: string): Promise<CryptoKey> {
  const der = Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
  return (await webcrypto.subtle.importKey('pkcs8', der, EC_KEY, false, ['sign'])) as CryptoKey;
}

async function generateKeys(): Promise<CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(EC_KEY, true, ['sign', 'verify'])) as CryptoKeyPair;
}

function validity(days: number): { notBefore: Date; notAfter: Date } {
  const now = Date.now();
  return { notBefore: new Date(now - BACKDATE_MS), notAfter: new Date(now + days * DAY_MS) };
}

/** A new self-signed ECDSA P-256 CA, valid ten years. */
export async function createCertificateAuthority(commonName = 'kube-lite-ca'): Promise<KeyedCert> {
  const x509 = await loadX509();
  const keys = await generateKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: `CN=${commonName}`,
    ...validity(CA_LIFETIME_DAYS),
    keys,
    signingAlgorithm: SIGNING,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString('pem'), keyPem: keyToPem(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as webcrypto.CryptoKey)) };
}

export interface LeafRequest {
  /** A DN string: `CN=admin, O=system:masters`. */
  subject: string;
  /** The extended key usage; `none` leaves the extension out. */
  usage: 'serverAuth' | 'clientAuth' | 'none';
  /** Subject alternative names: DNS names or IPs. */
  names?: string[];
  notBefore?: Date;
  notAfter?: Date;
}

/** Issues an ECDSA P-256 leaf certificate signed by `ca`. */
export async function issueCertificate(ca: KeyedCert, req: LeafRequest): Promise<KeyedCert> {
  const x509 = await loadX509();
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await importSigningKey(ca.keyPem);
  const keys = await generateKeys();
  const extensions: X509.Extension[] = [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
  ];
  if (req.usage !== 'none') extensions.push(new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage[req.usage]], false));
  if (req.names && req.names.length > 0) {
    extensions.push(
      new x509.SubjectAlternativeNameExtension(req.names.map((n) => ({ type: isIPAddress(n) ? 'ip' : 'dns', value: n }) as X509.JsonGeneralName)),
    );
  }
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: req.subject,
    issuer: caCert.subject,
    ...validity(LEAF_LIFETIME_DAYS),
    ...(req.notBefore ? { notBefore: req.notBefore } : {}),
    ...(req.notAfter ? { notAfter: req.notAfter } : {}),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: SIGNING,
    extensions,
  });
  return { certPem: cert.toString('pem'), keyPem: keyToPem(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey as webcrypto.CryptoKey)) };
}

/**
 * Whether a certificate name is an IP address rather than a DNS name, by the machinery's check:
 * node:net's compiles a large IPv6 pattern on its first use, milliseconds of every start (the
 * default names include ::1), where this one splits the text.
 */
function isIPAddress(name: string): boolean {
  return isIP(name).length === 0;
}

/** Whether a stored leaf can be kept: signed by the CA, not near expiry, and covering every name. */
function leafIsUsable(certPem: string | undefined, ca: NodeX509, names: string[] = []): boolean {
  if (!certPem) return false;
  try {
    const cert = new NodeX509(certPem);
    if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return false;
    if (new Date(cert.validTo).getTime() - Date.now() < RENEW_BEFORE_DAYS * DAY_MS) return false;
    return names.every((n) => (isIPAddress(n) ? cert.checkIP(n) !== undefined : cert.checkHost(n) !== undefined));
  } catch {
    return false;
  }
}

const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';

/** The stored CA's certificate, parsed, when it can be kept: a CA, not near expiry. */
function usableCa(ca: KeyedCert | undefined): NodeX509 | undefined {
  if (!ca) return undefined;
  try {
    const cert = new NodeX509(ca.certPem);
    return cert.ca && new Date(cert.validTo).getTime() - Date.now() > RENEW_BEFORE_DAYS * DAY_MS ? cert : undefined;
  } catch {
    return undefined;
  }
}

/** Loads, or creates what is missing, under `dataDir`. */
export async function ensurePki(options: PkiOptions): Promise<ServerPki> {
  const dir = options.dataDir;
  mkdirSync(dir, { recursive: true });
  const path = (name: keyof typeof PKI_FILES) => join(dir, PKI_FILES[name]);

  const storedCaCert = readIfExists(path('caCert'));
  const storedCaKey = readIfExists(path('caKey'));
  let ca: KeyedCert | undefined = storedCaCert && storedCaKey ? { certPem: storedCaCert, keyPem: storedCaKey } : undefined;
  let caRenewed = false;
  let caNode = usableCa(ca);
  if (!ca || !caNode) {
    ca = await createCertificateAuthority();
    caRenewed = true;
    writePem(path('caCert'), ca.certPem, false);
    writePem(path('caKey'), ca.keyPem, true);
    caNode = new NodeX509(ca.certPem);
  }

  let servingCert: string;
  let servingKey: string;
  let servingCa: string;
  if (options.tlsCertFile || options.tlsPrivateKeyFile) {
    if (!options.tlsCertFile || !options.tlsPrivateKeyFile) {
      throw new Error('--tls-cert-file and --tls-private-key-file must be given together');
    }
    servingCert = readFileSync(options.tlsCertFile, 'utf8');
    servingKey = readFileSync(options.tlsPrivateKeyFile, 'utf8');
    servingCa = trustAnchorFor(servingCert, options.tlsCertFile, caNode, ca.certPem);
  } else {
    const names = [...new Set([...DEFAULT_SERVING_NAMES, ...(options.servingNames ?? [])])];
    let cert = caRenewed ? undefined : readIfExists(path('servingCert'));
    let key = readIfExists(path('servingKey'));
    if (!key || !leafIsUsable(cert, caNode, names)) {
      const issued = await issueCertificate(ca, { subject: 'CN=kube-apiserver', usage: 'serverAuth', names });
      cert = issued.certPem;
      key = issued.keyPem;
      writePem(path('servingCert'), cert, false);
      writePem(path('servingKey'), key, true);
    }
    servingCert = cert as string;
    servingKey = key;
    servingCa = ca.certPem;
  }

  let adminCert = caRenewed ? undefined : readIfExists(path('adminCert'));
  let adminKey = readIfExists(path('adminKey'));
  if (!adminKey || !leafIsUsable(adminCert, caNode)) {
    const issued = await issueCertificate(ca, { subject: 'CN=admin, O=system:masters', usage: 'clientAuth' });
    adminCert = issued.certPem;
    adminKey = issued.keyPem;
    writePem(path('adminCert'), adminCert, false);
    writePem(path('adminKey'), adminKey, true);
  }

  const clientCa = options.clientCaFile ? readFileSync(options.clientCaFile, 'utf8') : ca.certPem;
  // Without --client-ca-file the roots are the CA file's certificates: the generated CA, parsed
  // above, unless someone put a bundle in its place.
  const clientRoots =
    options.clientCaFile || ca.certPem.indexOf(PEM_CERTIFICATE) !== ca.certPem.lastIndexOf(PEM_CERTIFICATE)
      ? parseCertificateBundle(clientCa, options.clientCaFile ?? path('caCert'))
      : [caNode];
  const adminTrusted = clientRoots.some((r) => r.fingerprint256 === caNode.fingerprint256);

  return { caCert: ca.certPem, servingCa, clientCa, clientRoots, servingCert, servingKey, adminCert: adminCert as string, adminKey, adminTrusted };
}

/**
 * The certificate a client should trust for a serving certificate we did not issue: our CA if it
 * signed it after all, else the bundle's self-signed root when it carries one, else the bundle.
 */
function trustAnchorFor(bundlePem: string, source: string, ca: NodeX509, caPem: string): string {
  const certs = parseCertificateBundle(bundlePem, source);
  if (certs[0].checkIssued(ca) && certs[0].verify(ca.publicKey)) return caPem;
  const root = certs.find((c) => c.checkIssued(c));
  return root ? root.toString() : bundlePem;
}
