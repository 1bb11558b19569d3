// server.addUser({ name, groups }): a kubeconfig for a user other than the admin, authenticated
// by a client certificate from the server's own CA (CN = user name, one O per group, as kube's
// x509 authenticator reads them), so tests can exercise RBAC as that user.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildKubeconfig } from './kubeconfig.js';
import { issueCertificate, PKI_FILES } from './pki.js';

export interface AddUserOptions {
  /** The user name (the certificate's CN). */
  name: string;
  /** Groups besides system:authenticated, which every authenticated user has (one O each). */
  groups?: string[];
}

/** An attribute value in a DN string, with RFC 4514's special characters escaped. */
function dnValue(value: string): string {
  return value.replace(/[\\,+"<>;=]/g, (c) => `\\${c}`).replace(/^[ #]/, (c) => `\\${c}`).replace(/ $/, '\\ ');
}

export interface UserKubeconfigInput {
  dataDir: string;
  server: string;
  servingCa: string;
  /** False when --client-ca-file leaves the generated CA out: its certificates would not authenticate. */
  trusted: boolean;
}

export async function userKubeconfig(input: UserKubeconfigInput, user: AddUserOptions): Promise<string> {
  if (typeof user?.name !== 'string' || user.name === '') throw new TypeError('addUser: a user name is required');
  if (!input.trusted) throw new Error('addUser: the client CA (--client-ca-file) does not include the generated CA, so its certificates would not authenticate');
  const caPem = readFileSync(join(input.dataDir, PKI_FILES.caCert), 'utf8');
  const caKey = readFileSync(join(input.dataDir, PKI_FILES.caKey), 'utf8');
  const subject = [`CN=${dnValue(user.name)}`, ...(user.groups ?? []).map((g) => `O=${dnValue(g)}`)].join(', ');
  const issued = await issueCertificate({ certPem: caPem, keyPem: caKey }, { subject, usage: 'clientAuth' });
  return buildKubeconfig({ server: input.server, caPem: input.servingCa, clientCertPem: issued.certPem, clientKeyPem: issued.keyPem, userName: user.name });
}
