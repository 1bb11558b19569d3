// End to end: configurations loaded by loadKubeConfig authenticate to the real server over HTTPS
// (the admin kubeconfig it writes, a static token, a token file, credential plugins returning a
// token or a client certificate issued by the server's CA), checked with a SelfSubjectReview.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKubeConfig, type ClientConfig } from '../../../client/config/index.js';
import { startServer, type RunningServer } from '../../../runtime/index.js';
import { issueCertificate, PKI_FILES } from '../../../runtime/auth/pki.js';
import { requestWithConfig } from '../../support/client-config-request.js';
import { pluginCalls, useTempDir, writeFile, writeKubeconfig, writePlugin } from './fixtures.js';

const tempDir = useTempDir();
const TOKEN = 'e2e-static-token-3c1d';
const V1 = 'client.authentication.k8s.io/v1';

let server: RunningServer;
let work: string;

beforeAll(async () => {
  work = tempDir();
  const tokens = writeFile(join(work, 'tokens.csv'), `${TOKEN},alice,uid-alice,"system:masters"\n`);
  server = await startServer({ storage: 'memory', dataDir: join(work, 'data'), tokenAuthFile: tokens });
  writeFile(join(work, 'ca.crt'), server.caCert);
});
afterAll(() => server?.close());

async function whoami(config: ClientConfig): Promise<{ status: number; username?: string; groups?: string[] }> {
  const res = await requestWithConfig(config, '/apis/authentication.k8s.io/v1/selfsubjectreviews', {
    method: 'POST',
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' },
  });
  if (res.status !== 201) return { status: res.status };
  const info = res.json<{ status: { userInfo: { username: string; groups: string[] } } }>().status.userInfo;
  return { status: res.status, username: info.username, groups: info.groups };
}

/** A kubeconfig in its own folder for the server, the CA by a relative path, and `user`. */
function kubeconfigFor(user: Record<string, unknown>, cluster: Record<string, unknown> = {}): { dir: string; path: string } {
  const dir = tempDir();
  writeFile(join(dir, 'pki', 'ca.crt'), server.caCert);
  const path = writeKubeconfig(join(dir, 'config'), {
    clusters: [{ name: 'kube-lite', cluster: { server: server.url, 'certificate-authority': 'pki/ca.crt', ...cluster } }],
    users: [{ name: 'me', user }],
    contexts: [{ name: 'test', context: { cluster: 'kube-lite', user: 'me', namespace: 'kube-system' } }],
    'current-context': 'test',
  });
  return { dir, path };
}

describe('loadKubeConfig against the real server', () => {
  it("the server's admin kubeconfig (client certificate data) authenticates as an admin", async () => {
    const config = await loadKubeConfig({ path: server.kubeconfigPath });
    expect(config.server).toBe(server.url);
    const res = await requestWithConfig(config, `/api/v1/namespaces/${config.namespace}`);
    expect(res.status).toBe(200);
    expect((await whoami(config)).groups).toContain('system:masters');
  });

  it('a static token user', async () => {
    const config = await loadKubeConfig({ path: kubeconfigFor({ token: TOKEN }).path });
    expect(config.namespace).toBe('kube-system');
    expect(await whoami(config)).toMatchObject({ status: 201, username: 'alice' });
  });

  it('a wrong token is a 401, and nothing more', async () => {
    const config = await loadKubeConfig({ path: kubeconfigFor({ token: 'not-a-known-token' }).path });
    expect((await whoami(config)).status).toBe(401);
  });

  it('a token file that rotates: after a 401 the file is read again and the retry succeeds', async () => {
    const { dir, path } = kubeconfigFor({ tokenFile: 'token' });
    writeFile(join(dir, 'token'), 'stale-token\n');
    const config = await loadKubeConfig({ path });
    writeFile(join(dir, 'token'), `${TOKEN}\n`);
    expect(await whoami(config)).toMatchObject({ status: 201, username: 'alice' });
  });

  it('a plugin whose first token is refused: the 401 runs it again and the retry succeeds', async () => {
    const { dir, path } = kubeconfigFor({ exec: { apiVersion: V1, command: './plugin', interactiveMode: 'Never' } });
    writePlugin(join(dir, 'plugin'), `reply({ token: call === 1 ? 'revoked-token' : '${TOKEN}' });`);
    const config = await loadKubeConfig({ path });
    expect(await whoami(config)).toMatchObject({ status: 201, username: 'alice' });
    expect(pluginCalls(dir)).toHaveLength(2);
    // The good token is cached now.
    expect((await whoami(config)).status).toBe(201);
    expect(pluginCalls(dir)).toHaveLength(2);
  });

  it('a plugin returning client certificates issued by the server CA; a new pair after a 401 authenticates anew', async () => {
    const ca = { certPem: readFileSync(join(server.dataDir, PKI_FILES.caCert), 'utf8'), keyPem: readFileSync(join(server.dataDir, PKI_FILES.caKey), 'utf8') };
    const bob = await issueCertificate(ca, { subject: 'CN=bob, O=system:masters', usage: 'clientAuth' });
    const carol = await issueCertificate(ca, { subject: 'CN=carol, O=system:masters', usage: 'clientAuth' });
    const { dir, path } = kubeconfigFor({ exec: { apiVersion: V1, command: './plugin', interactiveMode: 'Never', provideClusterInfo: true } });
    writeFile(join(dir, 'pairs.json'), JSON.stringify([bob, carol]));
    writePlugin(
      join(dir, 'plugin'),
      `const pair = JSON.parse(fs.readFileSync(path.join(__dirname, 'pairs.json'), 'utf8'))[call - 1];
reply({ clientCertificateData: pair.certPem, clientKeyData: pair.keyPem });`,
    );
    const config = await loadKubeConfig({ path });
    const first = await whoami(config);
    expect(first).toMatchObject({ status: 201, username: 'bob' });

    // The server would now refuse bob (say, revoked): the transport reports the 401.
    config.credentials.invalidate(await config.credentials.get());
    expect(await whoami(config)).toMatchObject({ status: 201, username: 'carol' });

    // provideClusterInfo gave the plugin this server and its CA.
    const [call] = pluginCalls(dir);
    expect(call.info.spec.cluster).toEqual({ server: server.url, 'certificate-authority-data': Buffer.from(server.caCert).toString('base64') });
  });
});
