// Bootstrap-token authentication (--enable-bootstrap-token-auth) with the rules of kube-apiserver's
// bootstrap token authenticator: which Secrets back a token, expiry, the usage flag, and the
// user and groups a token authenticates as; the flag as pflag reads a bool; and end to end, a
// SelfSubjectReview posted with a bootstrap token.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { kubectlVersions, runKubectl, writeKubeconfig } from '../support/kubectl.js';
import { BootstrapTokenAuthenticator } from '../../runtime/auth/bootstrap-token.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import type { KubeObject } from '../../runtime/machinery/object.js';
import { parseFlags } from '../../runtime/server/flags.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');
const NOW = new Date('2030-01-01T00:00:00Z');
const TOKEN = 'abcdef.0123456789abcdef';

function secret(data: Record<string, string | undefined> = {}, extra: Partial<KubeObject> = {}): KubeObject {
  const all: Record<string, string | undefined> = { 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true', ...data };
  const encoded = Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined).map(([k, v]) => [k, b64(v as string)]));
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system' }, type: 'bootstrap.kubernetes.io/token', data: encoded, ...extra };
}

function authenticator(found: KubeObject | undefined, asked: string[] = []) {
  return new BootstrapTokenAuthenticator(async (name) => {
    asked.push(name);
    return found;
  }, () => NOW);
}

describe('bootstrap token authenticator', () => {
  it('authenticates as system:bootstrap:<token-id> in system:bootstrappers, reading bootstrap-token-<token-id>', async () => {
    const asked: string[] = [];
    expect(await authenticator(secret(), asked).authenticateToken(TOKEN)).toEqual({ name: 'system:bootstrap:abcdef', uid: '', groups: ['system:bootstrappers'], extra: {} });
    expect(asked).toEqual(['bootstrap-token-abcdef']);
  });

  it('adds the extra groups, de-duplicated and sorted', async () => {
    const user = await authenticator(secret({ 'auth-extra-groups': 'system:bootstrappers:z,system:bootstrappers:a,system:bootstrappers:z' })).authenticateToken(TOKEN);
    expect(user?.groups).toEqual(['system:bootstrappers', 'system:bootstrappers:a', 'system:bootstrappers:z']);
  });

  it('accepts a token whose expiration is still ahead', async () => {
    expect(await authenticator(secret({ expiration: '2030-01-01T00:00:01Z' })).authenticateToken(TOKEN)).toBeDefined();
  });

  it.each<[string, string, KubeObject | undefined]>([
    ['a token of the wrong form', 'abcdef.0123456789ABCDEF', secret()],
    ['a token without its Secret', TOKEN, undefined],
    ['a wrong token-secret', 'abcdef.0123456789abcdee', secret()],
    ['a Secret of another type', TOKEN, secret({}, { type: 'Opaque' })],
    ['a Secret without data', TOKEN, { ...secret(), data: undefined }],
    ['a Secret being deleted', TOKEN, secret({}, { metadata: { name: 'bootstrap-token-abcdef', namespace: 'kube-system', deletionTimestamp: '2029-01-01T00:00:00Z' } })],
    ['a token-id that differs from the token', TOKEN, secret({ 'token-id': 'zzzzzz' })],
    ['an expired token', TOKEN, secret({ expiration: '2029-12-31T23:59:59Z' })],
    ['an expiration that does not parse (counted as expired)', TOKEN, secret({ expiration: 'tomorrow' })],
    ['no usage-bootstrap-authentication', TOKEN, secret({ 'usage-bootstrap-authentication': undefined })],
    ['usage-bootstrap-authentication other than "true"', TOKEN, secret({ 'usage-bootstrap-authentication': 'yes' })],
    ['usage-bootstrap-authentication "false"', TOKEN, secret({ 'usage-bootstrap-authentication': 'false' })],
    ['usage-bootstrap-authentication "True" (exactly "true" is required)', TOKEN, secret({ 'usage-bootstrap-authentication': 'True' })],
    ['an invalid extra group', TOKEN, secret({ 'auth-extra-groups': 'system:masters' })],
  ])('does not authenticate %s', async (_name, token, found) => {
    expect(await authenticator(found).authenticateToken(token)).toBeUndefined();
  });
});

describe('--enable-bootstrap-token-auth', () => {
  it('is a Go bool flag: bare is true, =false turns it off, the last one wins', () => {
    expect(parseFlags(['--enable-bootstrap-token-auth'])).toMatchObject({ options: { enableBootstrapTokenAuth: true } });
    expect(parseFlags(['--enable-bootstrap-token-auth=false'])).toMatchObject({ options: { enableBootstrapTokenAuth: false } });
    expect(parseFlags(['--enable-bootstrap-token-auth=T', '--secure-port=0'])).toMatchObject({ options: { enableBootstrapTokenAuth: true, port: 0 } });
    expect(parseFlags(['--enable-bootstrap-token-auth', '--enable-bootstrap-token-auth=0'])).toMatchObject({ options: { enableBootstrapTokenAuth: false } });
    const defaults = parseFlags([]);
    expect(defaults.help === false && defaults.options.enableBootstrapTokenAuth).toBe(undefined);
  });

  it('refuses a value that is not a Go bool, and never takes the next argument', () => {
    expect(() => parseFlags(['--enable-bootstrap-token-auth=maybe'])).toThrow('invalid argument "maybe" for "--enable-bootstrap-token-auth" flag: strconv.ParseBool: parsing "maybe": invalid syntax');
    expect(() => parseFlags(['--enable-bootstrap-token-auth', 'true'])).toThrow('unexpected argument');
  });
});

describe('bootstrap tokens over HTTPS', () => {
  let on: RunningServer;
  let off: RunningServer;
  beforeAll(async () => {
    // No token cache, so a token dies with its Secret at once (test/auth/token-cache.test.ts covers the cache).
    [on, off] = await Promise.all([startServer({ storage: 'memory', enableBootstrapTokenAuth: true, tokenSuccessCacheTTLMs: 0 }), startServer({ storage: 'memory' })]);
  });
  afterAll(() => Promise.all([on?.close(), off?.close()]));

  const createToken = (server: RunningServer) =>
    call(server.url, '/api/v1/namespaces/kube-system/secrets', kubeconfigCredentials(server.kubeconfig), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'bootstrap-token-07401b' },
        type: 'bootstrap.kubernetes.io/token',
        stringData: { 'token-id': '07401b', 'token-secret': 'f395accd246ae52d', 'usage-bootstrap-authentication': 'true', 'auth-extra-groups': 'system:bootstrappers:kubeadm:default-node-token' },
      }),
    });
  const whoami = (server: RunningServer, token: string) =>
    call(server.url, '/apis/authentication.k8s.io/v1/selfsubjectreviews', { ca: kubeconfigCredentials(server.kubeconfig).ca, token }, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}',
    });

  it('authenticates a token backed by its Secret, and nothing once the Secret is gone', async () => {
    expect((await createToken(on)).status).toBe(201);
    const res = await whoami(on, '07401b.f395accd246ae52d');
    expect(res.status).toBe(201);
    expect(res.json<{ status: unknown }>().status).toEqual({
      userInfo: { username: 'system:bootstrap:07401b', groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated'] },
    });
    expect((await whoami(on, '07401b.f395accd246ae52e')).status).toBe(401);
    const deleted = await call(on.url, '/api/v1/namespaces/kube-system/secrets/bootstrap-token-07401b', kubeconfigCredentials(on.kubeconfig), { method: 'DELETE' });
    expect(deleted.status).toBe(200);
    expect((await whoami(on, '07401b.f395accd246ae52d')).status).toBe(401);
  });

  it('stores a token whose usage-bootstrap-authentication is "false", and refuses it with 401', async () => {
    const created = await call(on.url, '/api/v1/namespaces/kube-system/secrets', kubeconfigCredentials(on.kubeconfig), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'bootstrap-token-0740ff' },
        type: 'bootstrap.kubernetes.io/token',
        stringData: { 'token-id': '0740ff', 'token-secret': 'f395accd246ae52d', 'usage-bootstrap-authentication': 'false', 'usage-bootstrap-signing': 'true' },
      }),
    });
    expect(created.status).toBe(201);
    expect((await whoami(on, '0740ff.f395accd246ae52d')).status).toBe(401);
  });

  const kubectl133 = kubectlVersions().find((v) => v.version === '1.33')?.path;
  it.runIf(kubectl133)('kubectl auth whoami with a bootstrap token prints the bootstrap user', async () => {
    if ((await whoami(on, '07401b.f395accd246ae52d')).status !== 201) expect((await createToken(on)).status).toBe(201);
    const dir = mkdtempSync(join(tmpdir(), 'bootstrap-kubectl-'));
    try {
      const doc = parseYaml(on.kubeconfig) as { users: { user: Record<string, unknown> }[] };
      doc.users[0].user = { token: '07401b.f395accd246ae52d' };
      const out = await runKubectl(kubectl133!, ['auth', 'whoami'], { kubeconfig: writeKubeconfig(dir, JSON.stringify(doc)), home: dir });
      expect(out.stderr).toBe('');
      expect(out.code).toBe(0);
      expect(out.stdout).toBe('ATTRIBUTE   VALUE\nUsername    system:bootstrap:07401b\nGroups      [system:bootstrappers system:bootstrappers:kubeadm:default-node-token system:authenticated]\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ignores bootstrap tokens without the flag', async () => {
    expect((await createToken(off)).status).toBe(201);
    expect((await whoami(off, '07401b.f395accd246ae52d')).status).toBe(401);
  });
});
