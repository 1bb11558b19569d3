// The bootstrap token controllers (--controllers=*,bootstrapsigner,tokencleaner), off by default
// as in kube-controller-manager. Over HTTPS: cluster-info is made in kube-public and is readable
// anonymously through kubeadm's Role and RoleBinding; each signing token's jws-kubeconfig-<id> is
// checked the way kubeadm's join discovery checks it (recompute the detached JWS and compare), by
// an HMAC written here and by jose's verify over the rebuilt compact JWS; signatures go with their
// token; the cleaner deletes a token at its expiration. Against a registry: Secrets with bad data
// are skipped by both controllers with a log line that names the Secret and never its secret.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { compactVerify } from 'jose';
import { parse as parseYaml } from 'yaml';
import { resources } from '../../generated/registry.js';
import { BootstrapSigner } from '../../runtime/controllers/bootstrap-signer.js';
import { expirationOf } from '../../runtime/controllers/bootstrap-token-secrets.js';
import { enabledControllers } from '../../runtime/controllers/controller-names.js';
import { KeyedQueue } from '../../runtime/controllers/keyed-queue.js';
import { TokenCleaner } from '../../runtime/controllers/token-cleaner.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import type { KubeObject } from '../../runtime/machinery/object.js';
import { ResourceRegistry } from '../../runtime/registry/registry.js';
import { MemoryStorage } from '../../runtime/storage/memory.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';

const SECRETS = '/api/v1/namespaces/kube-system/secrets';
const CLUSTER_INFO = '/api/v1/namespaces/kube-public/configmaps/cluster-info';

const eventually = (fn: () => Promise<void>, timeout = 5000) => vi.waitFor(fn, { timeout, interval: 25 });
const b64url = (s: string | Buffer) => Buffer.from(s).toString('base64url');

/** kubeadm's DetachedTokenIsValid, written from its description: HS256 over "<header>.<payload>" keyed by the token secret. */
function kubeadmAccepts(detached: string, kubeconfig: string, tokenID: string, tokenSecret: string): boolean {
  const header = b64url(JSON.stringify({ alg: 'HS256', kid: tokenID }));
  const signature = createHmac('sha256', tokenSecret).update(`${header}.${b64url(kubeconfig)}`).digest('base64url');
  return detached === `${header}..${signature}`;
}

describe('--controllers', () => {
  it('keeps bootstrapsigner and tokencleaner off unless named, the first mention of a name winning', () => {
    expect(enabledControllers(['*'])).not.toContain('bootstrap-signer-controller');
    expect(enabledControllers(['*'])).not.toContain('token-cleaner-controller');
    expect([...enabledControllers(['bootstrapsigner', 'token-cleaner-controller'])].sort()).toEqual(['bootstrap-signer-controller', 'token-cleaner-controller']);
    expect(enabledControllers(['*', 'tokencleaner', '-tokencleaner'])).toContain('token-cleaner-controller');
    expect(enabledControllers(['-tokencleaner', 'tokencleaner'])).not.toContain('token-cleaner-controller');
  });
});

describe('bootstrap token controllers over HTTPS', () => {
  let server: RunningServer;
  let plain: RunningServer;
  let admin: Credentials;
  let anonymous: Credentials;

  beforeAll(async () => {
    [server, plain] = await Promise.all([
      startServer({ storage: 'memory', controllers: ['*', 'bootstrapsigner', 'tokencleaner'], anonymousAuth: true, enableBootstrapTokenAuth: true }),
      startServer({ storage: 'memory', anonymousAuth: true }),
    ]);
    admin = kubeconfigCredentials(server.kubeconfig);
    anonymous = { ca: server.caCert };
  });
  afterAll(() => Promise.all([server?.close(), plain?.close()]));

  const send = (creds: Credentials, method: string, path: string, body?: unknown) =>
    call(server.url, path, creds, { method, ...(body ? { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {}) });

  async function createToken(id: string, secret: string, data: Record<string, string> = {}) {
    const res = await send(admin, 'POST', SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `bootstrap-token-${id}` },
      type: 'bootstrap.kubernetes.io/token',
      stringData: { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-signing': 'true', ...data },
    });
    expect(res.status, res.body).toBe(201);
    return res.json<{ metadata: { uid: string } }>();
  }

  const clusterInfo = async (creds: Credentials = admin) => {
    const res = await send(creds, 'GET', CLUSTER_INFO);
    return { status: res.status, data: res.status === 200 ? res.json<{ data: Record<string, string> }>().data : {} };
  };

  it('makes cluster-info with this server\'s URL and CA, readable by system:anonymous through kubeadm\'s Role', async () => {
    await eventually(async () => expect((await clusterInfo(anonymous)).status).toBe(200));
    const { data } = await clusterInfo(anonymous);
    const kubeconfig = parseYaml(data.kubeconfig);
    expect(kubeconfig).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: '', cluster: { server: server.url, 'certificate-authority-data': Buffer.from(server.caCert).toString('base64') } }],
      contexts: null,
      'current-context': '',
      preferences: {},
      users: null,
    });
    const role = await send(admin, 'GET', '/apis/rbac.authorization.k8s.io/v1/namespaces/kube-public/roles/kubeadm:bootstrap-signer-clusterinfo');
    expect(role.json<{ rules: unknown }>().rules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cluster-info'] }]);
    // The Role names cluster-info only.
    expect((await send(admin, 'POST', '/api/v1/namespaces/kube-public/configmaps', { metadata: { name: 'other' } })).status).toBe(201);
    expect((await send(anonymous, 'GET', '/api/v1/namespaces/kube-public/configmaps/other')).status).toBe(403);
    expect((await send(anonymous, 'GET', '/api/v1/namespaces/kube-public/configmaps')).status).toBe(403);
  });

  it('is off by default: no cluster-info without --controllers naming bootstrapsigner', async () => {
    // The other server's signer has long made its cluster-info by now (the test above waited for it).
    const res = await call(plain.url, CLUSTER_INFO, kubeconfigCredentials(plain.kubeconfig));
    expect(res.status).toBe(404);
  });

  it('signs cluster-info for a signing token as kubeadm verifies it, and drops the signature with the token', async () => {
    await createToken('abcdef', '0123456789abcdef');
    await eventually(async () => expect((await clusterInfo()).data['jws-kubeconfig-abcdef']).toBeDefined());
    const { data } = await clusterInfo(anonymous);
    const detached = data['jws-kubeconfig-abcdef'];
    expect(kubeadmAccepts(detached, data.kubeconfig, 'abcdef', '0123456789abcdef')).toBe(true);
    // A wrong secret, or the full token as key, is refused.
    expect(kubeadmAccepts(detached, data.kubeconfig, 'abcdef', '0123456789abcdee')).toBe(false);
    expect(kubeadmAccepts(detached, data.kubeconfig, 'abcdef', 'abcdef.0123456789abcdef')).toBe(false);

    // jose's verify over the compact JWS rebuilt with the payload, insisting on HS256.
    const [header, empty, signature] = detached.split('.');
    expect(empty).toBe('');
    const verified = await compactVerify(`${header}.${b64url(data.kubeconfig)}.${signature}`, new TextEncoder().encode('0123456789abcdef'), { algorithms: ['HS256'] });
    expect(new TextDecoder().decode(verified.payload)).toBe(data.kubeconfig);
    expect(verified.protectedHeader).toEqual({ alg: 'HS256', kid: 'abcdef' });

    expect((await send(admin, 'DELETE', `${SECRETS}/bootstrap-token-abcdef`)).status).toBe(200);
    await eventually(async () => expect((await clusterInfo()).data['jws-kubeconfig-abcdef']).toBeUndefined());
    expect((await clusterInfo()).data.kubeconfig).toBe(data.kubeconfig);
  });

  it('signs only tokens marked for signing and unexpired, and restores a removed signature', async () => {
    await createToken('sign01', 'aaaaaaaaaaaaaaaa');
    await createToken('nosign', 'bbbbbbbbbbbbbbbb', { 'usage-bootstrap-signing': 'false' });
    await createToken('gone01', 'cccccccccccccccc', { expiration: '2020-01-01T00:00:00Z' });
    await eventually(async () => expect((await clusterInfo()).data['jws-kubeconfig-sign01']).toBeDefined());
    const { data } = await clusterInfo();
    expect(Object.keys(data).filter((k) => k.startsWith('jws-kubeconfig-')).sort()).toEqual(['jws-kubeconfig-sign01']);
    // Someone strips the signatures: they are put back.
    const cm = (await send(admin, 'GET', CLUSTER_INFO)).json<KubeObject & { data: Record<string, string> }>();
    expect((await send(admin, 'PUT', CLUSTER_INFO, { ...cm, data: { kubeconfig: cm.data.kubeconfig } })).status).toBe(200);
    await eventually(async () => expect((await clusterInfo()).data['jws-kubeconfig-sign01']).toBe(data['jws-kubeconfig-sign01']));
  });

  it('signs the kubeconfig again when cluster-info changes (a new CA), and kubeadm accepts the new signature only', async () => {
    await createToken('rotate', 'dddddddddddddddd');
    await eventually(async () => expect((await clusterInfo()).data['jws-kubeconfig-rotate']).toBeDefined());
    const before = (await clusterInfo()).data;
    const cm = (await send(admin, 'GET', CLUSTER_INFO)).json<KubeObject & { data: Record<string, string> }>();
    const rotated = cm.data.kubeconfig.replace(/certificate-authority-data: \S+/, `certificate-authority-data: ${Buffer.from('NEW CA').toString('base64')}`);
    expect(rotated).not.toBe(cm.data.kubeconfig);
    expect((await send(admin, 'PUT', CLUSTER_INFO, { ...cm, data: { ...cm.data, kubeconfig: rotated } })).status).toBe(200);
    await eventually(async () => expect((await clusterInfo()).data['jws-kubeconfig-rotate']).not.toBe(before['jws-kubeconfig-rotate']));
    const after = (await clusterInfo()).data;
    expect(after.kubeconfig).toBe(rotated);
    expect(kubeadmAccepts(after['jws-kubeconfig-rotate'], rotated, 'rotate', 'dddddddddddddddd')).toBe(true);
    expect(kubeadmAccepts(before['jws-kubeconfig-rotate'], rotated, 'rotate', 'dddddddddddddddd')).toBe(false);
    // Every other signing token's signature follows the new content too.
    for (const [key, value] of Object.entries(after)) {
      if (key.startsWith('jws-kubeconfig-')) expect(value).not.toBe(before[key]);
    }
    // Put the server's own kubeconfig back for the tests that follow.
    const current = (await send(admin, 'GET', CLUSTER_INFO)).json<KubeObject & { data: Record<string, string> }>();
    expect((await send(admin, 'PUT', CLUSTER_INFO, { ...current, data: { ...current.data, kubeconfig: cm.data.kubeconfig } })).status).toBe(200);
    expect((await send(admin, 'DELETE', `${SECRETS}/bootstrap-token-rotate`)).status).toBe(200);
  });

  it('the cleaner deletes a token at its expiration, and an already expired one at once', async () => {
    const soon = new Date(Date.now() + 1500).toISOString().replace(/\.\d+Z$/, 'Z');
    const later = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    await createToken('soon01', 'dddddddddddddddd', { expiration: soon, 'usage-bootstrap-authentication': 'true' });
    await createToken('later1', 'eeeeeeeeeeeeeeee', { expiration: later });
    await createToken('past01', 'ffffffffffffffff', { expiration: '2021-01-01T00:00:00Z' });
    await eventually(async () => expect((await send(admin, 'GET', `${SECRETS}/bootstrap-token-past01`)).status).toBe(404));
    // The signer signs with the token until it expires, then the cleaner removes it.
    await eventually(async () => expect((await clusterInfo()).data['jws-kubeconfig-soon01']).toBeDefined());
    expect((await send(admin, 'GET', `${SECRETS}/bootstrap-token-soon01`)).status).toBe(200);
    await eventually(async () => expect((await send(admin, 'GET', `${SECRETS}/bootstrap-token-soon01`)).status).toBe(404), 10_000);
    await eventually(async () => expect((await clusterInfo()).data['jws-kubeconfig-soon01']).toBeUndefined());
    expect((await send(admin, 'GET', `${SECRETS}/bootstrap-token-later1`)).status).toBe(200);
    expect((await send(admin, 'GET', '/readyz')).status).toBe(200);
  });
});

describe('token Secrets with bad data', () => {
  const lines: string[] = [];
  const logger = { debug: (m: string) => lines.push(m), info: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
  let storage: MemoryStorage;
  let registry: ResourceRegistry;

  beforeAll(async () => {
    storage = new MemoryStorage();
    registry = new ResourceRegistry(storage, resources, { watchCache: false });
    for (const name of ['kube-system', 'kube-public']) await registry.storeFor('', 'v1', 'namespaces')!.create(undefined, { metadata: { name } });
  });
  afterAll(async () => {
    registry.close();
    await storage.close();
  });

  // What the informers would hand over for Secrets written past validation (another server's data).
  const secret = (name: string, data: Record<string, string>): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: 'kube-system', uid: `uid-${name}` },
    type: 'bootstrap.kubernetes.io/token',
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  });
  const bad = [
    secret('bootstrap-token-x', { 'token-id': 'x', 'token-secret': 'topsecretvalue01', 'usage-bootstrap-signing': 'true' }),
    secret('bootstrap-token-aaaaaa', { 'token-id': 'bbbbbb', 'token-secret': 'topsecretvalue02', 'usage-bootstrap-signing': 'true' }),
    secret('bootstrap-token-cccccc', { 'token-id': 'cccccc', 'usage-bootstrap-signing': 'true' }),
    secret('bootstrap-token-dddddd', { 'token-id': 'dddddd', 'token-secret': 'topsecretvalue03', 'usage-bootstrap-signing': 'true', expiration: 'tomorrow' }),
  ];

  it('are skipped by the signer with a log line, and the good token still signs', async () => {
    const configMaps = registry.storeFor('', 'v1', 'configmaps')!;
    const queue = new KeyedQueue();
    const signer = new BootstrapSigner({ configMaps, queue, logger, cluster: { server: 'https://127.0.0.1:6443', caPem: 'CA' } });
    signer.listed([...bad, secret('bootstrap-token-eeeeee', { 'token-id': 'eeeeee', 'token-secret': 'goodsecretvalue1', 'usage-bootstrap-signing': 'true' })]);
    await queue.idle();
    signer.close();
    const cm = await configMaps.get('kube-public', 'cluster-info');
    expect(Object.keys(cm.data as object).sort()).toEqual(['jws-kubeconfig-eeeeee', 'kubeconfig']);
    expect(lines).toEqual(
      expect.arrayContaining([
        'bootstrapsigner: ignoring Secret kube-system/bootstrap-token-x: its name must be bootstrap-token-<token-id>',
        'bootstrapsigner: ignoring Secret kube-system/bootstrap-token-aaaaaa: its token-id does not match its name',
        'bootstrapsigner: ignoring Secret kube-system/bootstrap-token-cccccc: it has no token-secret',
        'bootstrapsigner: ignoring Secret kube-system/bootstrap-token-dddddd: expiration "tomorrow" is not an RFC 3339 time',
      ]),
    );
  });

  it('are left alone by the cleaner with a log line', async () => {
    const secrets = registry.storeFor('', 'v1', 'secrets')!;
    const queue = new KeyedQueue();
    const cleaner = new TokenCleaner(secrets, queue, logger);
    for (const s of bad) cleaner.observe(s);
    await queue.idle();
    cleaner.close();
    expect(lines).toContain('tokencleaner: ignoring Secret kube-system/bootstrap-token-dddddd: expiration "tomorrow" is not an RFC 3339 time');
  });

  it('never put a token secret in the log', () => {
    expect(lines.join('\n')).not.toMatch(/topsecretvalue|goodsecretvalue/);
  });
});

describe('a token expiration as time.Parse(time.RFC3339) reads it', () => {
  const withExpiration = (expiration: string): KubeObject => ({
    metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' },
    type: 'bootstrap.kubernetes.io/token',
    data: { expiration: Buffer.from(expiration).toString('base64') },
  });
  it.each<[string, ReturnType<typeof expirationOf>]>([
    ['2030-01-02T03:04:05Z', { kind: 'at', ms: Date.UTC(2030, 0, 2, 3, 4, 5) }],
    ['2030-01-02T03:04:05.5+01:00', { kind: 'at', ms: Date.UTC(2030, 0, 2, 2, 4, 5, 500) }],
    ['2030-01-02T03:04:05,25Z', { kind: 'at', ms: Date.UTC(2030, 0, 2, 3, 4, 5, 250) }],
    ['2028-02-29T00:00:00Z', { kind: 'at', ms: Date.UTC(2028, 1, 29) }],
    // JavaScript's Date would read these; Go's parser refuses them.
    ['2030-02-30T00:00:00Z', { kind: 'unreadable', value: '2030-02-30T00:00:00Z' }],
    ['2030-01-01T24:00:00Z', { kind: 'unreadable', value: '2030-01-01T24:00:00Z' }],
    ['2030-01-01t00:00:00z', { kind: 'unreadable', value: '2030-01-01t00:00:00z' }],
    ['2030-01-01 00:00:00Z', { kind: 'unreadable', value: '2030-01-01 00:00:00Z' }],
  ])('%s', (value, expected) => {
    expect(expirationOf(withExpiration(value))).toEqual(expected);
  });

  it('is no expiration when the key is absent', () => {
    expect(expirationOf({ metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' }, data: {} })).toEqual({ kind: 'never' });
  });
});
