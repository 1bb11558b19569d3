// server.addUser(): a kubeconfig for a non-admin user, authenticated by a certificate from the
// server's CA, that RBAC then governs; and close() ending open watches instead of waiting on them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, StatusError, type Client } from '../../client/index.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { kubeconfigCredentials } from '../support/https-client.js';
import { openWatch } from '../support/watch-client.js';
import { adminConfig, StaticCredentials } from './support.js';

function clientFor(kubeconfig: string): Client {
  const creds = kubeconfigCredentials(kubeconfig);
  return createClient({
    server: creds.server,
    tls: { ca: creds.ca },
    credentials: new StaticCredentials({ clientCertificate: { cert: creds.cert as string, key: creds.key as string } }),
    namespace: 'default',
    source: 'inline',
  });
}

describe('server.addUser', () => {
  let server: RunningServer;
  let admin: Client;
  beforeAll(async () => {
    server = await startServer({ storage: 'memory' });
    admin = createClient(adminConfig(server));
  });
  afterAll(async () => {
    admin?.close();
    await server?.close();
  });

  it('gives a kubeconfig whose user and groups the server authenticates', async () => {
    const alice = clientFor(await server.addUser({ name: 'alice', groups: ['dev', 'qa'] }));
    const review = await alice.authenticationV1.selfSubjectReviews().create({});
    expect(review.status?.userInfo).toMatchObject({ username: 'alice', groups: ['dev', 'qa', 'system:authenticated'] });
    alice.close();
  });

  it('keeps special characters of a name as they are', async () => {
    const odd = clientFor(await server.addUser({ name: 'o\'brien, "the" user+1', groups: ['a=b'] }));
    const review = await odd.authenticationV1.selfSubjectReviews().create({});
    expect(review.status?.userInfo).toMatchObject({ username: 'o\'brien, "the" user+1', groups: ['a=b', 'system:authenticated'] });
    odd.close();
  });

  it('is governed by RBAC: forbidden until a binding grants the group', async () => {
    const bob = clientFor(await server.addUser({ name: 'bob', groups: ['readers'] }));
    const denied = await bob.coreV1
      .configMaps('default')
      .list()
      .catch((e: unknown) => e);
    expect(denied).toBeInstanceOf(StatusError);
    expect(denied).toMatchObject({
      code: 403,
      reason: 'Forbidden',
      message: 'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"',
    });
    await admin.rbacV1.roles('default').create({ metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] });
    await admin.rbacV1.roleBindings('default').create({
      metadata: { name: 'readers' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'cm-reader' },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'readers' }],
    });
    await expect.poll(async () => (await bob.coreV1.configMaps('default').list().then(() => 'allowed', (e: StatusError) => e.code)), { timeout: 10_000 }).toBe('allowed');
    // Still only what the role grants.
    await expect(bob.coreV1.configMaps('default').create({ metadata: { name: 'x' } })).rejects.toMatchObject({ code: 403 });
    bob.close();
  });

  it('rejects a user without a name', async () => {
    await expect(server.addUser({ name: '' })).rejects.toThrow('addUser: a user name is required');
  });
});

describe('server.close', () => {
  it('ends open watches and resolves; the port is closed afterwards', async () => {
    const server = await startServer({ storage: 'memory' });
    const creds = kubeconfigCredentials(server.kubeconfig);
    const watch = await openWatch(server.url, '/api/v1/namespaces/default/configmaps?watch=1', creds);
    expect(watch.status).toBe(200);
    const ended = watch.until(() => false);
    await server.close();
    await ended;
    const client = createClient(adminConfig(server), { maxRetries: 0 });
    await expect(client.coreV1.namespaces().list()).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
