// The service account token authenticator on its own, for what the served API cannot show: Nodes
// are not served here, so a token bound to a Node is checked against a Node lookup given directly.

import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadServiceAccountKeys } from '../../runtime/auth/service-account-keys.js';
import { serviceAccountClaims, ServiceAccountTokenAuthenticator, ServiceAccountTokenSigner, DEFAULT_SERVICE_ACCOUNT_ISSUER } from '../../runtime/auth/service-account-token.js';
import type { KubeObject } from '../../runtime/machinery/object.js';

describe('node-bound service account tokens', () => {
  it('authenticate while the node exists with the same uid, naming it in the extras, and die with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sa-token-'));
    try {
      const keys = loadServiceAccountKeys({ dataDir: dir });
      const sa: KubeObject = { metadata: { name: 'default', namespace: 'ns', uid: 'sa-uid' } };
      let node: KubeObject | undefined = { metadata: { name: 'n1', uid: 'node-uid' } };
      const authenticator = new ServiceAccountTokenAuthenticator({
        keys,
        issuers: [DEFAULT_SERVICE_ACCOUNT_ISSUER],
        audiences: [DEFAULT_SERVICE_ACCOUNT_ISSUER],
        objects: {
          serviceAccount: async (ns, name) => (ns === 'ns' && name === 'default' ? sa : undefined),
          pod: async () => undefined,
          secret: async () => undefined,
          node: async (name) => (name === 'n1' ? node : undefined),
        },
      });
      const claims = serviceAccountClaims(DEFAULT_SERVICE_ACCOUNT_ISSUER, {
        serviceAccount: sa,
        bound: { node: { name: 'n1', uid: 'node-uid' } },
        audiences: [DEFAULT_SERVICE_ACCOUNT_ISSUER],
        expirationSeconds: 3600,
        now: new Date(),
      });
      const token = await new ServiceAccountTokenSigner(keys).sign(claims);
      const found = await authenticator.authenticateToken(token);
      expect(found?.audiences).toEqual([DEFAULT_SERVICE_ACCOUNT_ISSUER]);
      expect(found?.user).toMatchObject({
        name: 'system:serviceaccount:ns:default',
        uid: 'sa-uid',
        extra: { 'authentication.kubernetes.io/node-name': ['n1'], 'authentication.kubernetes.io/node-uid': ['node-uid'] },
      });
      node = { metadata: { name: 'n1', uid: 'another' } };
      expect(await authenticator.authenticateToken(token)).toBeUndefined();
      node = undefined;
      expect(await authenticator.authenticateToken(token)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
