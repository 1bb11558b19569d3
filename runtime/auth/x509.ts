// Client-certificate authentication (k8s.io/apiserver/pkg/authentication/request/x509): the TLS
// layer asks every client for a certificate but accepts any, so here the chain is verified
// against the client CA bundle, with validity dates and the clientAuth usage checked. The user is
// the subject's CN, the groups its O values, and (as kube 1.32+ records) the credential id extra
// the leaf's SHA-256 fingerprint, so audit and reviews can tell two certificates of one user apart.

import { createHash, X509Certificate } from 'node:crypto';
import type { TLSSocket, DetailedPeerCertificate } from 'node:tls';
import { NO_CREDENTIAL, type AuthenticationResult, type Authenticator } from './authenticator.js';
import { CREDENTIAL_ID_KEY, newUserInfo } from './user.js';

const EKU_CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
const EKU_ANY = '2.5.29.37.0';
/** Longest chain followed through client-sent intermediates. */
const MAX_CHAIN_DEPTH = 8;

/** Splits a PEM bundle into certificates; throws when it holds none. */
export function parseCertificateBundle(pem: string, source: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`${source}: no certificates found`);
  return blocks.map((b) => new X509Certificate(b));
}

function allowsClientAuth(cert: X509Certificate): boolean {
  // No extended key usage extension means any usage, as Go's verifier reads it.
  const usages = cert.keyUsage;
  return usages === undefined || usages.includes(EKU_CLIENT_AUTH) || usages.includes(EKU_ANY);
}

function checkValidity(cert: X509Certificate, now: Date): string | undefined {
  if (now < new Date(cert.validFrom)) return `current time ${now.toISOString()} is before ${new Date(cert.validFrom).toISOString()}`;
  if (now > new Date(cert.validTo)) return `current time ${now.toISOString()} is after ${new Date(cert.validTo).toISOString()}`;
  return undefined;
}

function issuedBy(child: X509Certificate, issuer: X509Certificate): boolean {
  return child.checkIssued(issuer) && child.verify(issuer.publicKey);
}

/** The detailed chain node gives, as X509Certificates (leaf first), stopping at the self-issued loop. */
function presentedChain(peer: DetailedPeerCertificate): X509Certificate[] {
  const chain: X509Certificate[] = [];
  const seen = new Set<DetailedPeerCertificate>();
  let current: DetailedPeerCertificate | undefined = peer;
  while (current && current.raw && !seen.has(current) && chain.length < MAX_CHAIN_DEPTH) {
    seen.add(current);
    chain.push(new X509Certificate(current.raw));
    current = current.issuerCertificate;
  }
  return chain;
}

/**
 * Verifies `leaf` up to one of `roots`, through `intermediates` when needed. Returns an error
 * message, or undefined when a valid chain exists.
 */
export function verifyClientChain(
  leaf: X509Certificate,
  intermediates: X509Certificate[],
  roots: X509Certificate[],
  now = new Date(),
): string | undefined {
  let current = leaf;
  for (let depth = 0; depth <= MAX_CHAIN_DEPTH; depth++) {
    const expired = checkValidity(current, now);
    if (expired) return `x509: certificate has expired or is not yet valid: ${expired}`;
    if (!allowsClientAuth(current)) return 'x509: certificate specifies an incompatible key usage';
    const root = roots.find((r) => issuedBy(current, r));
    if (root) {
      const rootExpired = checkValidity(root, now);
      return rootExpired ? `x509: certificate has expired or is not yet valid: ${rootExpired}` : undefined;
    }
    const next = intermediates.find((i) => i !== current && i.ca && issuedBy(current, i));
    if (!next) return 'x509: certificate signed by unknown authority';
    current = next;
  }
  return 'x509: certificate chain too long';
}

/** A DN attribute's values from node's subject object (a string, or an array when repeated). */
function attributeValues(subject: Record<string, string | string[] | undefined> | undefined, key: string): string[] {
  const v = subject?.[key];
  if (v === undefined) return [];
  return Array.isArray(v) ? v : [v];
}

interface CachedVerdict {
  result: AuthenticationResult;
  notBefore: Date;
  notAfter: Date;
}

export class X509Authenticator implements Authenticator {
  readonly name = 'x509';
  /** One TLS connection carries one certificate; verify it once per connection, not per request. */
  private readonly verdicts = new WeakMap<TLSSocket, CachedVerdict>();
  /**
   * Connections that sent no certificate, so their bearer-token requests skip asking TLS again.
   * A renegotiation could add one later; Go's server, and so kube-apiserver, refuses renegotiation.
   */
  private readonly withoutCertificate = new WeakSet<TLSSocket>();

  constructor(private readonly roots: X509Certificate[]) {}

  authenticate(req: { tlsSocket?: TLSSocket }): AuthenticationResult {
    const socket = req.tlsSocket;
    if (!socket || this.withoutCertificate.has(socket)) return NO_CREDENTIAL;
    const now = new Date();
    const cached = this.verdicts.get(socket);
    if (cached && now >= cached.notBefore && now <= cached.notAfter) return cached.result;

    const peer = socket.getPeerCertificate(true);
    if (!peer || !peer.raw) {
      this.withoutCertificate.add(socket);
      return NO_CREDENTIAL;
    }
    const chain = presentedChain(peer);
    const leaf = chain[0];
    const failure = verifyClientChain(leaf, chain.slice(1), this.roots, now);
    let result: AuthenticationResult;
    if (failure) {
      result = { kind: 'error', error: `verifying certificate SN=${leaf.serialNumber}, subject "${leaf.subject.replace(/\n/g, ',')}" failed: ${failure}` };
    } else {
      // node types the subject as strings, but repeated attributes (several O) arrive as arrays.
      const subject = peer.subject as unknown as Record<string, string | string[] | undefined>;
      const cn = attributeValues(subject, 'CN')[0] ?? '';
      // A certificate without a CN carries no user name: no opinion, as upstream's CommonNameUserConversion.
      const credentialId = `X509SHA256=${createHash('sha256').update(leaf.raw).digest('hex')}`;
      result =
        cn === ''
          ? NO_CREDENTIAL
          : { kind: 'user', authenticator: this.name, user: newUserInfo(cn, { groups: attributeValues(subject, 'O'), extra: { [CREDENTIAL_ID_KEY]: [credentialId] } }) };
    }
    this.verdicts.set(socket, { result, notBefore: new Date(leaf.validFrom), notAfter: new Date(leaf.validTo) });
    return result;
  }
}
