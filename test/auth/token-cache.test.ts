// kube-apiserver's bearer token cache, seen from outside: a success is reused for
// TokenSuccessCacheTTL (10 s by default), so a token outlives the Secret behind it by at most
// that long while a token never used before dies at once; a failure is not cached (the default
// TokenFailureCacheTTL is 0), so a token refused a moment ago works as soon as its Secret exists;
// the audiences asked for are part of the key, so a TokenReview for other audiences is not
// answered from the API audiences' entry.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { TokenCache } from '../../runtime/auth/token-cache.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';

const SECRETS = '/api/v1/namespaces/kube-system/secrets';

let server: RunningServer;
let shortLived: RunningServer;

beforeAll(async () => {
  [server, shortLived] = await Promise.all([
    startServer({ storage: 'memory', enableBootstrapTokenAuth: true }),
    startServer({ storage: 'memory', enableBootstrapTokenAuth: true, tokenSuccessCacheTTLMs: 1500 }),
  ]);
});
afterAll(() => Promise.all([server?.close(), shortLived?.close()]));

const admin = (on: RunningServer) => kubeconfigCredentials(on.kubeconfig);

async function createToken(on: RunningServer, id: string, secret: string) {
  const res = await call(on.url, SECRETS, admin(on), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `bootstrap-token-${id}` },
      type: 'bootstrap.kubernetes.io/token',
      stringData: { 'token-id': id, 'token-secret': secret, 'usage-bootstrap-authentication': 'true' },
    }),
  });
  expect(res.status, res.body).toBe(201);
}

async function deleteToken(on: RunningServer, id: string) {
  expect((await call(on.url, `${SECRETS}/bootstrap-token-${id}`, admin(on), { method: 'DELETE' })).status).toBe(200);
}

const whoami = (on: RunningServer, token: string) =>
  call(on.url, '/apis/authentication.k8s.io/v1/selfsubjectreviews', { ca: admin(on).ca, token }, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}',
  });

const eventually = (fn: () => Promise<void>, timeout = 5000) => vi.waitFor(fn, { timeout, interval: 25 });

describe('token authentication cache', () => {
  it('keeps a used token working after its Secret is deleted, while an unused one dies at once', async () => {
    await createToken(server, 'aaaaaa', 'aaaaaaaaaaaaaaaa');
    await createToken(server, 'bbbbbb', 'bbbbbbbbbbbbbbbb');
    await eventually(async () => expect((await whoami(server, 'aaaaaa.aaaaaaaaaaaaaaaa')).status).toBe(201));
    await deleteToken(server, 'aaaaaa');
    await deleteToken(server, 'bbbbbb');
    // The authenticator has seen both deletions once the never-used token is refused ...
    await eventually(async () => expect((await whoami(server, 'bbbbbb.bbbbbbbbbbbbbbbb')).status).toBe(401));
    // ... and the used one is still answered from the cache.
    const cached = await whoami(server, 'aaaaaa.aaaaaaaaaaaaaaaa');
    expect(cached.status).toBe(201);
    expect(cached.json<{ status: { userInfo: { username: string } } }>().status.userInfo.username).toBe('system:bootstrap:aaaaaa');
  });

  it('forgets the success once its TTL has passed', async () => {
    await createToken(shortLived, 'cccccc', 'cccccccccccccccc');
    await eventually(async () => expect((await whoami(shortLived, 'cccccc.cccccccccccccccc')).status).toBe(201));
    await deleteToken(shortLived, 'cccccc');
    await eventually(async () => expect((await whoami(shortLived, 'cccccc.cccccccccccccccc')).status).toBe(401), 10_000);
  });

  it('does not cache a failure: a refused token works once its Secret exists', async () => {
    expect((await whoami(server, 'dddddd.dddddddddddddddd')).status).toBe(401);
    await createToken(server, 'dddddd', 'dddddddddddddddd');
    await eventually(async () => expect((await whoami(server, 'dddddd.dddddddddddddddd')).status).toBe(201));
  });

  it('keys on the audiences: a TokenReview for another audience is not served from the cached success', async () => {
    await createToken(server, 'eeeeee', 'eeeeeeeeeeeeeeee');
    await eventually(async () => expect((await whoami(server, 'eeeeee.eeeeeeeeeeeeeeee')).status).toBe(201));
    const review = (audiences?: string[]) =>
      call(server.url, '/apis/authentication.k8s.io/v1/tokenreviews', admin(server), {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token: 'eeeeee.eeeeeeeeeeeeeeee', ...(audiences ? { audiences } : {}) } }),
      });
    const forApi = await review();
    expect(forApi.json<{ status: { authenticated?: boolean } }>().status.authenticated).toBe(true);
    // A bootstrap token is meant for the API audiences only: asked about "vault" it finds no user.
    const forVault = await review(['vault']);
    expect(forVault.status).toBe(201);
    expect(forVault.json<{ status: { authenticated?: boolean } }>().status.authenticated).toBeFalsy();
    expect((await call(server.url, '/readyz', admin(server))).status).toBe(200);
  });
});

describe('the cache key', () => {
  it('tells token and audiences apart however their characters are split between them', async () => {
    const cache = new TokenCache<string>({ successMs: 60_000, failureMs: 0 });
    const asked: string[] = [];
    const lookup = (token: string, audiences?: string[]) =>
      cache.lookup(token, audiences, async () => (asked.push(`${token}|${audiences?.join(',')}`), `user of ${token}|${audiences?.join(',')}`), () => true);
    expect(await lookup('ab', ['c'])).toBe('user of ab|c');
    expect(await lookup('a', ['bc'])).toBe('user of a|bc');
    expect(await lookup('a', ['b', 'c'])).toBe('user of a|b,c');
    expect(await lookup('ab')).toBe('user of ab|undefined');
    // No audiences and an empty list are the same request, as upstream's key counts them.
    expect(await lookup('ab', [])).toBe('user of ab|undefined');
    // Each pair once, and again from the cache.
    expect(await lookup('ab', ['c'])).toBe('user of ab|c');
    expect(await lookup('a', ['bc'])).toBe('user of a|bc');
    expect(asked).toEqual(['ab|c', 'a|bc', 'a|b,c', 'ab|undefined']);
  });
});
