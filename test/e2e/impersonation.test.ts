// Impersonation over HTTPS. Under --authorization-mode=AlwaysAllow a token-file user may
// impersonate anyone, and each table row checks who the server then sees (SelfSubjectReview).
// Under AlwaysDeny the admin (system:masters, which bypasses every mode) still may, the token-file
// user may not: the 403s and 500s of kube-apiserver's WithImpersonation, a refused request stores
// nothing, and the impersonated user is the one authorization judges. kubectl's --as and
// --as-group go through the same headers.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { kubectlVersions, runKubectl, writeKubeconfig } from '../support/kubectl.js';

const SSR = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const TOKEN = 'impersonation-carol-token';

let server: RunningServer;
let allowAll: RunningServer;
let dir: string;
let admin: Credentials;
let carol: Credentials;
let carolAllowed: Credentials;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'e2e-impersonation-'));
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, `${TOKEN},carol,uid-carol,"developers"\n`);
  server = await startServer({ storage: 'memory', dataDir: join(dir, 'deny'), tokenAuthFile: tokenFile, authorizationMode: 'AlwaysDeny' });
  allowAll = await startServer({ storage: 'memory', dataDir: join(dir, 'allow'), tokenAuthFile: tokenFile, authorizationMode: 'AlwaysAllow' });
  admin = kubeconfigCredentials(server.kubeconfig);
  carol = { ca: admin.ca, token: TOKEN };
  carolAllowed = { ca: allowAll.caCert, token: TOKEN };
});

afterAll(async () => {
  await server?.close();
  await allowAll?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function whoAmI(creds: Credentials, headers: Record<string, string | string[]>, on: RunningServer = allowAll) {
  const res = await call(on.url, SSR, creds, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }),
  });
  return { status: res.status, body: res.body, json: () => res.json<{ status?: { userInfo: unknown }; message?: string }>() };
}

describe('impersonation allowed by the authorizer (AlwaysAllow, a token-file user)', () => {
  it.each([
    ['a user', { 'Impersonate-User': 'bob' }, { username: 'bob', groups: ['system:authenticated'] }],
    ['a user with two groups on two header lines', { 'Impersonate-User': 'bob', 'Impersonate-Group': ['dev', 'ops'] }, { username: 'bob', groups: ['dev', 'ops', 'system:authenticated'] }],
    // Go's header keeps each line a value: a comma inside one line is part of the group's name.
    ['a group named with a comma', { 'Impersonate-User': 'bob', 'Impersonate-Group': 'a, b' }, { username: 'bob', groups: ['a, b', 'system:authenticated'] }],
    ['a service account, which gets its groups', { 'Impersonate-User': 'system:serviceaccount:ns1:robot' }, { username: 'system:serviceaccount:ns1:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'] }],
    ['a service account with the groups given', { 'Impersonate-User': 'system:serviceaccount:ns1:robot', 'Impersonate-Group': 'only' }, { username: 'system:serviceaccount:ns1:robot', groups: ['only', 'system:authenticated'] }],
    // An invalid namespace makes the name an ordinary user's.
    ['a service-account-like name that is no service account', { 'Impersonate-User': 'system:serviceaccount:Bad_NS:robot' }, { username: 'system:serviceaccount:Bad_NS:robot', groups: ['system:authenticated'] }],
    ['system:anonymous', { 'Impersonate-User': 'system:anonymous' }, { username: 'system:anonymous', groups: ['system:unauthenticated'] }],
    ['a user in system:unauthenticated', { 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:unauthenticated' }, { username: 'bob', groups: ['system:unauthenticated'] }],
    [
      'uid and percent-encoded extra keys',
      { 'Impersonate-User': 'bob', 'Impersonate-Uid': 'uid-1', 'Impersonate-Extra-Scopes%2Fwrite': ['a', 'b'], 'Impersonate-Extra-Bad%zz': 'kept' },
      { username: 'bob', uid: 'uid-1', groups: ['system:authenticated'], extra: { 'scopes/write': ['a', 'b'], 'bad%zz': ['kept'] } },
    ],
  ])('%s', async (_name, headers, userInfo) => {
    const res = await whoAmI(carolAllowed, headers);
    expect(res.status, res.body).toBe(201);
    expect(res.json().status).toEqual({ userInfo });
  });

  it('an empty Impersonate-User header is no impersonation', async () => {
    const res = await whoAmI(carolAllowed, { 'Impersonate-User': '' });
    expect(res.status).toBe(201);
    expect(res.json().status).toEqual({ userInfo: { username: 'carol', uid: 'uid-carol', groups: ['developers', 'system:authenticated'] } });
  });
});

describe('impersonation by system:masters under AlwaysDeny', () => {
  it('is allowed', async () => {
    const res = await whoAmI(admin, { 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:masters' }, server);
    expect(res.status).toBe(201);
    expect(res.json().status).toEqual({ userInfo: { username: 'bob', groups: ['system:masters', 'system:authenticated'] } });
  });

  it('authorizes the rest of the request as the impersonated user', async () => {
    const res = await call(server.url, CONFIGMAPS, admin, { headers: { 'Impersonate-User': 'bob', 'Impersonate-Group': 'dev' } });
    expect(res.status).toBe(403);
    expect(res.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default": Everything is forbidden.',
      reason: 'Forbidden',
      details: { kind: 'configmaps' },
      code: 403,
    });
    // Impersonating a member of system:masters keeps the bypass.
    expect((await call(server.url, CONFIGMAPS, admin, { headers: { 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:masters' } })).status).toBe(200);
  });
});

describe('impersonation refused', () => {
  it.each([
    [
      'a user',
      { 'Impersonate-User': 'bob', 'Impersonate-Group': 'system:masters' },
      'users "bob" is forbidden: User "carol" cannot impersonate resource "users" in API group "" at the cluster scope: Everything is forbidden.',
      { name: 'bob', kind: 'users' },
    ],
    [
      'a service account, checked in its namespace',
      { 'Impersonate-User': 'system:serviceaccount:ns1:robot' },
      'serviceaccounts "robot" is forbidden: User "carol" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1": Everything is forbidden.',
      { name: 'robot', kind: 'serviceaccounts' },
    ],
  ])('%s: 403 with kube-apiserver message', async (_name, headers, message, details) => {
    const res = await call(server.url, CONFIGMAPS, carol, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'smuggled' } }),
    });
    expect(res.status).toBe(403);
    expect(res.json()).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 });
    // Nothing was written, and the server still answers.
    expect((await call(server.url, `${CONFIGMAPS}/smuggled`, admin)).status).toBe(404);
    expect((await call(server.url, '/readyz', admin)).status).toBe(200);
  });

  it.each([
    ['groups', { 'Impersonate-Group': ['a', 'b'] }, '[{Group  a    } {Group  b    }]'],
    ['a uid', { 'Impersonate-Uid': 'u-1' }, '[{UID  u-1  authentication.k8s.io/v1  }]'],
    ['an extra', { 'Impersonate-Extra-Scopes': 'x' }, '[{UserExtra  x  authentication.k8s.io/v1  scopes}]'],
  ])('%s without a user: kube-apiserver 500 in plain text', async (_name, headers, refs) => {
    const res = await call(server.url, `${SSR}?pretty=1`, admin, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}' });
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body).toBe(`Internal Server Error: "${SSR}?pretty=1": requested ${refs} without impersonating a user\n`);
  });
});

describe.each(kubectlVersions().filter((v) => v.version === '1.33'))('kubectl $version --as', ({ path }) => {
  it.runIf(path)('whoami and can-i run as the impersonated user', async () => {
    const ctx = { kubeconfig: writeKubeconfig(dir, server.kubeconfig, 'kubeconfig-as'), home: dir };
    const allowCtx = { kubeconfig: writeKubeconfig(dir, allowAll.kubeconfig, 'kubeconfig-allow'), home: dir };
    const whoami = await runKubectl(path!, ['auth', 'whoami', '--as=bob', '--as-group=dev', '-o', 'json'], allowCtx);
    expect(whoami.code, whoami.stderr).toBe(0);
    expect(JSON.parse(whoami.stdout).status).toEqual({ userInfo: { username: 'bob', groups: ['dev', 'system:authenticated'] } });
    // AlwaysDeny: bob may not even ask; a member of system:masters may and is allowed.
    const denied = await runKubectl(path!, ['auth', 'can-i', 'get', 'pods', '--as=bob'], ctx);
    expect(denied.code).toBe(1);
    expect(denied.stderr).toContain('selfsubjectaccessreviews.authorization.k8s.io is forbidden: User "bob" cannot create resource "selfsubjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope: Everything is forbidden.');
    const masters = await runKubectl(path!, ['auth', 'can-i', 'get', 'pods', '--as=bob', '--as-group=system:masters'], ctx);
    expect(masters).toMatchObject({ code: 0, stdout: 'yes\n' });
  });
});
