// The keys service account tokens are signed and verified with: --service-account-signing-key-file
// (a private key, RSA or ECDSA) signs, --service-account-key-file (PEM files of public keys,
// private keys or certificates) verify. Without flags, a key made on first start in the data dir
// does both, so tokens outlive restarts. A key's id is kube-apiserver's: the base64url SHA-256 of
// its PKIX public key, so the JWKS served for discovery names the keys as the token headers do.

import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, X509Certificate, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The data-dir file of the generated signing key. */
export const GENERATED_SIGNING_KEY_FILE = 'service-account.key';

export interface VerificationKey {
  key: KeyObject;
  kid: string;
  alg: string;
}

export interface ServiceAccountKeys {
  signing: VerificationKey & { privateKey: KeyObject };
  verification: VerificationKey[];
}

export interface ServiceAccountKeyOptions {
  dataDir: string;
  signingKeyFile?: string;
  keyFiles?: string[];
}

/** The JWS algorithm kube-apiserver signs with for a key type (RS256 for RSA, ES* by curve). */
function algorithmOf(key: KeyObject, source: string): string {
  if (key.asymmetricKeyType === 'rsa') return 'RS256';
  if (key.asymmetricKeyType === 'ec') {
    const curve = key.asymmetricKeyDetails?.namedCurve;
    if (curve === 'prime256v1') return 'ES256';
    if (curve === 'secp384r1') return 'ES384';
    if (curve === 'secp521r1') return 'ES512';
  }
  throw new Error(`${source}: unsupported key type (want RSA or ECDSA P-256, P-384 or P-521)`);
}

function keyIdOf(publicKey: KeyObject): string {
  return createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('base64url');
}

function verificationKey(publicKey: KeyObject, source: string): VerificationKey {
  return { key: publicKey, kid: keyIdOf(publicKey), alg: algorithmOf(publicKey, source) };
}

/** Every key in a PEM file, as public keys (keyutil.ParsePublicKeysPEM accepts the same blocks). */
export function parsePublicKeysPem(pem: string, source: string): VerificationKey[] {
  const blocks = pem.match(/-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----/g) ?? [];
  const keys: VerificationKey[] = [];
  for (const block of blocks) {
    const label = /-----BEGIN ([A-Z ]+)-----/.exec(block)![1];
    let publicKey: KeyObject;
    if (label === 'CERTIFICATE') publicKey = new X509Certificate(block).publicKey;
    else if (label.endsWith('PRIVATE KEY')) publicKey = createPublicKey(createPrivateKey(block));
    else if (label.endsWith('PUBLIC KEY')) publicKey = createPublicKey(block);
    else continue;
    keys.push(verificationKey(publicKey, source));
  }
  if (keys.length === 0) throw new Error(`${source}: data does not contain any valid RSA or ECDSA public keys`);
  return keys;
}

function readSigningKey(path: string): KeyObject {
  const privateKey = createPrivateKey(readFileSync(path, 'utf8'));
  algorithmOf(privateKey, path);
  return privateKey;
}

/** The data dir's key, made (RSA 2048, as kubeadm makes sa.key) when it is not there yet. */
function generatedSigningKey(dataDir: string): KeyObject {
  const path = join(dataDir, GENERATED_SIGNING_KEY_FILE);
  if (!existsSync(path)) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(path, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
    chmodSync(path, 0o600);
  }
  return readSigningKey(path);
}

export function loadServiceAccountKeys(options: ServiceAccountKeyOptions): ServiceAccountKeys {
  const privateKey = options.signingKeyFile ? readSigningKey(options.signingKeyFile) : generatedSigningKey(options.dataDir);
  const signingPublic = createPublicKey(privateKey);
  const signing = { ...verificationKey(signingPublic, options.signingKeyFile ?? GENERATED_SIGNING_KEY_FILE), privateKey };
  const keyFiles = options.keyFiles ?? [];
  const verification = keyFiles.length === 0 ? [signing] : keyFiles.flatMap((f) => parsePublicKeysPem(readFileSync(f, 'utf8'), f));
  return { signing, verification };
}
