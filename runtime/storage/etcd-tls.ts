// The TLS of the connections to etcd, from kube-apiserver's --etcd-cafile, --etcd-certfile and
// --etcd-keyfile. As etcd's client builds its config (transport.TLSInfo.ClientConfig), the files
// are read and checked once, at start, so a wrong path or a key of another certificate stops the
// server with a clear message rather than failing every request later: a client certificate needs
// its key and the other way round, and a CA file replaces the system's roots. Which endpoints use
// TLS is their scheme's choice (https), as in etcd's client; without any of the files an https
// endpoint is verified against the system's roots.

import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext, type SecureContext } from 'node:tls';
import { goPathError } from '../machinery/go-file-error.js';

export interface EtcdTlsFiles {
  /** --etcd-cafile: PEM bundle that verifies etcd's serving certificates. */
  caFile?: string;
  /** --etcd-certfile: client certificate presented to etcd. */
  certFile?: string;
  /** --etcd-keyfile: its private key. */
  keyFile?: string;
}

const PEM_BLOCK = /-----BEGIN [A-Z0-9 ]+-----/;

function readPem(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(goPathError('open', path, err));
  }
}

/** The context every TLS connection to etcd is made with; undefined when no file is given. */
export function etcdSecureContext(files: EtcdTlsFiles): SecureContext | undefined {
  const { caFile, certFile, keyFile } = files;
  if (!caFile && !certFile && !keyFile) return undefined;
  if ((certFile || keyFile) && !(certFile && keyFile)) {
    throw new Error(`KeyFile and CertFile must both be present[key: ${keyFile ?? ''}, cert: ${certFile ?? ''}]`);
  }
  let cert: string | undefined;
  let key: string | undefined;
  if (certFile && keyFile) {
    cert = readPem(certFile);
    key = readPem(keyFile);
    // Go's tls.X509KeyPair words, where OpenSSL's would name its own routines.
    if (!PEM_BLOCK.test(cert)) throw new Error('tls: failed to find any PEM data in certificate input');
    if (!PEM_BLOCK.test(key)) throw new Error('tls: failed to find any PEM data in key input');
    let matches: boolean;
    try {
      matches = new X509Certificate(cert).checkPrivateKey(createPrivateKey(key));
    } catch (err) {
      throw new Error(`tls: ${(err as Error).message}`);
    }
    if (!matches) throw new Error('tls: private key does not match public key');
  }
  const ca = caFile ? readPem(caFile) : undefined;
  try {
    return createSecureContext({ ca, cert, key });
  } catch (err) {
    throw new Error(`tls: ${(err as Error).message}`);
  }
}
