// Impersonation under RBAC (the default mode): each part of an impersonation request is its own
// `impersonate` check, so a role that grants `users` alone lets a caller become another user but
// not add a group, a uid or an extra; each refused part is kube-apiserver's 403 for that part
// (WithImpersonation hands the attributes to responsewriters.Forbidden; RBAC gives no reason).
// Granting groups, uids and userextras/<key> (with resourceNames where the role names them), and
// serviceaccounts through a namespaced Role, lets the same requests through.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const SSR = '/apis/authentication.k8s.io/v1/selfsubjectreviews';
const TOKENS = 'only-users-token,olive,uid-olive\nall-parts-token,alma,uid-alma\nsa-token,sam,uid-sam\n';

let server: RunningServer;
let dir: string;
let admin: Credentials;
let olive: Credentials;
let alma: Credentials;
let sam: Credentials;

async function send(creds: Credentials, method: string, path: string, body?: unknown, headers: Record<string, string | string[]> = {}) {
  const res = await call(server.url, path, creds, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, text: res.body, json: () => res.json<Record<string, unknown>>() };
}

const whoAmI = (creds: Credentials, headers: Record<string, string | string[]>) =>
  send(creds, 'POST', SSR, { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' }, headers);

const user = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name });
const impersonate = (apiGroups: string[], resources: string[], resourceNames?: string[]) => ({
  apiGroups,
  resources,
  verbs: ['impersonate'],
  ...(resourceNames ? { resourceNames } : {}),
});

function forbidden(message: string, details: Record<string, unknown>) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 };
}

async function grantCluster(name: string, subject: string, rules: unknown[]) {
  expect((await send(admin, 'POST', `${RBAC}/clusterroles`, { metadata: { name }, rules })).status).toBe(201);
  const binding = { metadata: { name }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name }, subjects: [user(subject)] };
  expect((await send(admin, 'POST', `${RBAC}/clusterrolebindings`, binding)).status).toBe(201);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'e2e-impersonation-rbac-'));
  writeFileSync(join(dir, 'tokens.csv'), TOKENS);
  server = await startServer({ storage: 'memory', dataDir: join(dir, 'data'), tokenAuthFile: join(dir, 'tokens.csv') });
  admin = kubeconfigCredentials(server.kubeconfig);
  olive = { ca: server.caCert, token: 'only-users-token' };
  alma = { ca: server.caCert, token: 'all-parts-token' };
  sam = { ca: server.caCert, token: 'sa-token' };
  for (const ns of ['ns1', 'ns2']) expect((await send(admin, 'POST', '/api/v1/namespaces', { metadata: { name: ns } })).status).toBe(201);
  await grantCluster('impersonate-users', 'olive', [impersonate([''], ['users'])]);
  await grantCluster('impersonate-all-parts', 'alma', [
    impersonate([''], ['users'], ['bob']),
    impersonate([''], ['groups'], ['dev']),
    impersonate(['authentication.k8s.io'], ['uids'], ['uid-1']),
    impersonate(['authentication.k8s.io'], ['userextras/scopes']),
  ]);
  // Service accounts are impersonated in their namespace: a Role there is enough.
  expect((await send(admin, 'POST', `${RBAC}/namespaces/ns1/roles`, { metadata: { name: 'impersonate-sa' }, rules: [impersonate([''], ['serviceaccounts'], ['robot'])] })).status).toBe(201);
  const binding = { metadata: { name: 'impersonate-sa' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'impersonate-sa' }, subjects: [user('sam')] };
  expect((await send(admin, 'POST', `${RBAC}/namespaces/ns1/rolebindings`, binding)).status).toBe(201);
  // Decisions come from the watch cache: wait until all three grants are seen.
  await vi.waitFor(
    async () => {
      expect((await whoAmI(olive, { 'Impersonate-User': 'bob' })).status).toBe(201);
      expect((await whoAmI(alma, { 'Impersonate-User': 'bob' })).status).toBe(201);
      expect((await whoAmI(sam, { 'Impersonate-User': 'system:serviceaccount:ns1:robot' })).status).toBe(201);
    },
    { timeout: 5000, interval: 20 },
  );
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a role granting impersonate on users only', () => {
  it('lets the caller become another user, who then gets system:authenticated', async () => {
    const res = await whoAmI(olive, { 'Impersonate-User': 'bob' });
    expect(res.status).toBe(201);
    expect(res.json().status).toEqual({ userInfo: { username: 'bob', groups: ['system:authenticated'] } });
  });

  it.each([
    [
      'Impersonate-Group',
      { 'Impersonate-User': 'bob', 'Impersonate-Group': 'dev' },
      'groups "dev" is forbidden: User "olive" cannot impersonate resource "groups" in API group "" at the cluster scope',
      { name: 'dev', kind: 'groups' },
    ],
    [
      'Impersonate-Uid',
      { 'Impersonate-User': 'bob', 'Impersonate-Uid': 'uid-1' },
      'uids.authentication.k8s.io "uid-1" is forbidden: User "olive" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope',
      { name: 'uid-1', group: 'authentication.k8s.io', kind: 'uids' },
    ],
    [
      'Impersonate-Extra-Scopes',
      { 'Impersonate-User': 'bob', 'Impersonate-Extra-Scopes': 'view' },
      'userextras.authentication.k8s.io "view" is forbidden: User "olive" cannot impersonate resource "userextras/scopes" in API group "authentication.k8s.io" at the cluster scope',
      { name: 'view', group: 'authentication.k8s.io', kind: 'userextras' },
    ],
    [
      'a service account (serviceaccounts, not users)',
      { 'Impersonate-User': 'system:serviceaccount:ns1:robot' },
      'serviceaccounts "robot" is forbidden: User "olive" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"',
      { name: 'robot', kind: 'serviceaccounts' },
    ],
  ])('refuses %s with kube-apiserver\'s 403, and nothing is written', async (_part, headers, message, details) => {
    const res = await send(olive, 'POST', '/api/v1/namespaces/ns1/configmaps', { metadata: { name: 'smuggled' } }, headers);
    expect(res.status).toBe(403);
    expect(res.json()).toEqual(forbidden(message, details));
    expect((await send(admin, 'GET', '/api/v1/namespaces/ns1/configmaps/smuggled')).status).toBe(404);
    expect((await send(admin, 'GET', '/readyz')).status).toBe(200);
  });
});

describe('a role granting groups, uids and userextras/<key>', () => {
  it('lets every part through and the server sees the whole impersonated user', async () => {
    const res = await whoAmI(alma, { 'Impersonate-User': 'bob', 'Impersonate-Group': 'dev', 'Impersonate-Uid': 'uid-1', 'Impersonate-Extra-Scopes': ['view', 'edit'] });
    expect(res.status, res.text).toBe(201);
    expect(res.json().status).toEqual({ userInfo: { username: 'bob', uid: 'uid-1', groups: ['dev', 'system:authenticated'], extra: { scopes: ['view', 'edit'] } } });
  });

  it.each([
    ['a user the role does not name', { 'Impersonate-User': 'eve' }, 'users "eve" is forbidden: User "alma" cannot impersonate resource "users" in API group "" at the cluster scope', { name: 'eve', kind: 'users' }],
    [
      'a group the role does not name',
      { 'Impersonate-User': 'bob', 'Impersonate-Group': ['dev', 'system:masters'] },
      'groups "system:masters" is forbidden: User "alma" cannot impersonate resource "groups" in API group "" at the cluster scope',
      { name: 'system:masters', kind: 'groups' },
    ],
    [
      'a uid the role does not name',
      { 'Impersonate-User': 'bob', 'Impersonate-Uid': 'uid-2' },
      'uids.authentication.k8s.io "uid-2" is forbidden: User "alma" cannot impersonate resource "uids" in API group "authentication.k8s.io" at the cluster scope',
      { name: 'uid-2', group: 'authentication.k8s.io', kind: 'uids' },
    ],
    [
      'an extra key the role does not grant',
      { 'Impersonate-User': 'bob', 'Impersonate-Extra-Reason': 'audit' },
      'userextras.authentication.k8s.io "audit" is forbidden: User "alma" cannot impersonate resource "userextras/reason" in API group "authentication.k8s.io" at the cluster scope',
      { name: 'audit', group: 'authentication.k8s.io', kind: 'userextras' },
    ],
  ])('still refuses %s', async (_name, headers, message, details) => {
    const res = await whoAmI(alma, headers);
    expect(res.status).toBe(403);
    expect(res.json()).toEqual(forbidden(message, details));
  });

  it('a group without a user is kube-apiserver\'s plain-text 500, even when groups are granted', async () => {
    const res = await whoAmI(alma, { 'Impersonate-Group': 'dev' });
    expect(res.status).toBe(500);
    expect(res.text).toBe(`Internal Server Error: "${SSR}": requested [{Group  dev    }] without impersonating a user\n`);
    expect((await send(admin, 'GET', '/readyz')).status).toBe(200);
  });
});

describe('serviceaccounts impersonation through a namespaced Role', () => {
  it('becomes the service account, with its groups', async () => {
    const res = await whoAmI(sam, { 'Impersonate-User': 'system:serviceaccount:ns1:robot' });
    expect(res.status).toBe(201);
    expect(res.json().status).toEqual({
      userInfo: { username: 'system:serviceaccount:ns1:robot', groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'] },
    });
  });

  it.each([
    ['another namespace', 'system:serviceaccount:ns2:robot', 'serviceaccounts "robot" is forbidden: User "sam" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns2"'],
    ['another account', 'system:serviceaccount:ns1:builder', 'serviceaccounts "builder" is forbidden: User "sam" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ns1"'],
  ])('refuses %s', async (_name, username, message) => {
    const res = await whoAmI(sam, { 'Impersonate-User': username });
    expect(res.status).toBe(403);
    expect(res.json()).toEqual(forbidden(message, { name: username.split(':')[3], kind: 'serviceaccounts' }));
  });

  it('a Role on serviceaccounts is no grant on users', async () => {
    const res = await whoAmI(sam, { 'Impersonate-User': 'robot' });
    expect(res.status).toBe(403);
    expect(res.json()).toEqual(forbidden('users "robot" is forbidden: User "sam" cannot impersonate resource "users" in API group "" at the cluster scope', { name: 'robot', kind: 'users' }));
  });
});
