// RBAC over HTTPS against the real server: the default authorization mode, kube-apiserver's 403
// for each request shape, grants through RoleBindings and ClusterRoleBindings read from the
// watch cache, escalation prevention, ClusterRole aggregation, the bootstrap policy and its
// reconciliation across a restart, and kubectl's view of a denial.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { call, kubeconfigCredentials, type Credentials } from '../support/https-client.js';
import { kubectlVersions, runKubectl, writeKubeconfig } from '../support/kubectl.js';
import { sample } from '../support/metrics-text.js';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const TOKENS = 'bob-token,bob,uid-bob\ncarl-token,carl,uid-carl,"team-a"\ndave-token,dave,uid-dave\nerin-token,erin,uid-erin\n';

let server: RunningServer;
let dir: string;
let admin: Credentials;
let bob: Credentials;
let carl: Credentials;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rbac-'));
  writeFileSync(join(dir, 'tokens.csv'), TOKENS);
  server = await startServer({ storage: 'memory', tokenAuthFile: join(dir, 'tokens.csv') });
  admin = kubeconfigCredentials(server.kubeconfig);
  bob = { ca: server.caCert, token: 'bob-token' };
  carl = { ca: server.caCert, token: 'carl-token' };
  for (const ns of ['team', 'esc', 'other']) await send(admin, 'POST', '/api/v1/namespaces', { metadata: { name: ns } });
  await send(admin, 'POST', '/api/v1/namespaces/team/configmaps', { metadata: { name: 'cm' }, data: { k: 'v' } });
  await send(admin, 'POST', '/api/v1/namespaces/other/configmaps', { metadata: { name: 'cm' }, data: { k: 'v' } });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function send(creds: Credentials, method: string, path: string, body?: unknown) {
  const res = await call(server.url, path, creds, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
  return { status: res.status, body: res.body ? (res.json() as Record<string, unknown>) : {} };
}

const ref = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });
const user = (name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name });

/** Decisions read the watch cache: wait until the server sees a grant (or its removal). */
const eventually = (fn: () => Promise<void>) => vi.waitFor(fn, { timeout: 5000, interval: 20 });

function forbidden(message: string, details: Record<string, unknown>) {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 };
}

describe('RBAC by default', () => {
  it.each([
    ['a named object', 'GET', '/api/v1/namespaces/team/configmaps/cm',
      'configmaps "cm" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "team"', { name: 'cm', kind: 'configmaps' }],
    ['a collection', 'GET', '/api/v1/namespaces/team/configmaps',
      'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "team"', { kind: 'configmaps' }],
    ['a watch across namespaces', 'GET', '/api/v1/configmaps?watch=true',
      'configmaps is forbidden: User "bob" cannot watch resource "configmaps" in API group "" at the cluster scope', { kind: 'configmaps' }],
    ['a cluster-scoped kind of a group', 'GET', '/apis/storage.k8s.io/v1/storageclasses',
      'storageclasses.storage.k8s.io is forbidden: User "bob" cannot list resource "storageclasses" in API group "storage.k8s.io" at the cluster scope',
      { group: 'storage.k8s.io', kind: 'storageclasses' }],
    ['a subresource', 'PUT', '/api/v1/namespaces/team/pods/p/status',
      'pods "p" is forbidden: User "bob" cannot update resource "pods/status" in API group "" in the namespace "team"', { name: 'p', kind: 'pods' }],
    ['a namespace', 'DELETE', '/api/v1/namespaces/team',
      'namespaces "team" is forbidden: User "bob" cannot delete resource "namespaces" in API group "" in the namespace "team"', { name: 'team', kind: 'namespaces' }],
    ['a non-resource URL', 'GET', '/metrics', 'forbidden: User "bob" cannot get path "/metrics"', {}],
  ])('denies %s with kube-apiserver\'s Status', async (_shape, method, path, message, details) => {
    const res = await send(bob, method, path, method === 'PUT' ? { metadata: { name: 'p' } } : undefined);
    expect(res).toEqual({ status: 403, body: forbidden(message, details) });
  });

  it('lets every authenticated user discover the API, check health and review itself (bootstrap policy)', async () => {
    for (const path of ['/api', '/apis', '/api/v1', '/version', '/healthz', '/readyz', '/livez', '/openapi/v2']) {
      expect((await call(server.url, path, bob)).status, path).toBe(200);
    }
    const review = await send(bob, 'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews', { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' });
    expect(review.status).toBe(201);
  });

  it('keeps system:masters above RBAC', async () => {
    expect((await send(admin, 'GET', '/api/v1/namespaces/team/configmaps/cm')).status).toBe(200);
  });
});

describe('grants', () => {
  it('reaches a Role through a RoleBinding in its namespace only', async () => {
    expect((await send(admin, 'POST', `${RBAC}/namespaces/team/roles`, {
      metadata: { name: 'cm-reader' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }],
    })).status).toBe(201);
    expect((await send(admin, 'POST', `${RBAC}/namespaces/team/rolebindings`, { metadata: { name: 'bob-reads' }, roleRef: ref('Role', 'cm-reader'), subjects: [user('bob')] })).status).toBe(201);
    await eventually(async () => expect((await send(bob, 'GET', '/api/v1/namespaces/team/configmaps/cm')).status).toBe(200));
    expect((await send(bob, 'GET', '/api/v1/namespaces/team/configmaps')).status).toBe(403);
    expect((await send(bob, 'GET', '/api/v1/namespaces/other/configmaps/cm')).status).toBe(403);
    expect((await send(carl, 'GET', '/api/v1/namespaces/team/configmaps/cm')).status).toBe(403);

    expect((await send(admin, 'DELETE', `${RBAC}/namespaces/team/rolebindings/bob-reads`)).status).toBe(200);
    await eventually(async () => expect((await send(bob, 'GET', '/api/v1/namespaces/team/configmaps/cm')).status).toBe(403));
  });

  it('reaches a ClusterRole through a ClusterRoleBinding for a group, in every namespace', async () => {
    expect((await send(admin, 'POST', `${RBAC}/clusterroles`, {
      metadata: { name: 'cm-lister' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }],
    })).status).toBe(201);
    expect((await send(admin, 'POST', `${RBAC}/clusterrolebindings`, { metadata: { name: 'team-a-lists' }, roleRef: ref('ClusterRole', 'cm-lister'), subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'team-a' }] })).status).toBe(201);
    await eventually(async () => expect((await send(carl, 'GET', '/api/v1/configmaps')).status).toBe(200));
    expect((await send(carl, 'GET', '/api/v1/namespaces/other/configmaps')).status).toBe(200);
    expect((await send(carl, 'GET', '/api/v1/namespaces/other/configmaps/cm')).status).toBe(403);
    expect((await send(bob, 'GET', '/api/v1/configmaps')).status).toBe(403);
  });

  it('grants nothing through a binding to a missing role, and the 403 says why', async () => {
    expect((await send(admin, 'POST', `${RBAC}/namespaces/other/rolebindings`, { metadata: { name: 'dangling' }, roleRef: ref('ClusterRole', 'not-there'), subjects: [user('bob')] })).status).toBe(201);
    await eventually(async () =>
      expect((await send(bob, 'GET', '/api/v1/namespaces/other/configmaps/cm')).body.message).toBe(
        'configmaps "cm" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "other": RBAC: clusterrole.rbac.authorization.k8s.io "not-there" not found',
      ),
    );
    // The role appears: the same binding now grants.
    expect((await send(admin, 'POST', `${RBAC}/clusterroles`, { metadata: { name: 'not-there' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] })).status).toBe(201);
    await eventually(async () => expect((await send(bob, 'GET', '/api/v1/namespaces/other/configmaps/cm')).status).toBe(200));
  });

  it('follows updates and deletions of bindings and roles as they reach the watch cache', async () => {
    const dave: Credentials = { ca: server.caCert, token: 'dave-token' };
    const cm = '/api/v1/namespaces/team/configmaps/cm';
    const denial = (who: string, verb: string, path: string, reason = '') =>
      `configmaps${verb === 'get' ? ' "cm"' : ''} is forbidden: User "${who}" cannot ${verb} resource "configmaps" in API group "" in the namespace "team"${reason}`;
    const role = { metadata: { name: 'follow' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }] };
    const binding = { metadata: { name: 'follow' }, roleRef: ref('Role', 'follow'), subjects: [user('bob')] };
    expect((await send(admin, 'POST', `${RBAC}/namespaces/team/roles`, role)).status).toBe(201);
    expect((await send(admin, 'POST', `${RBAC}/namespaces/team/rolebindings`, binding)).status).toBe(201);
    await eventually(async () => expect((await send(bob, 'GET', cm)).status).toBe(200));

    // The binding's subject changes: the grant moves from bob to dave.
    expect((await send(admin, 'PUT', `${RBAC}/namespaces/team/rolebindings/follow`, { ...binding, subjects: [user('dave')] })).status).toBe(200);
    await eventually(async () => expect((await send(dave, 'GET', cm)).status).toBe(200));
    expect((await send(bob, 'GET', cm)).body.message).toBe(denial('bob', 'get', cm));

    // The role's rule changes from get to list.
    expect((await send(admin, 'PUT', `${RBAC}/namespaces/team/roles/follow`, { ...role, rules: [{ ...role.rules[0], verbs: ['list'] }] })).status).toBe(200);
    await eventually(async () => expect((await send(dave, 'GET', '/api/v1/namespaces/team/configmaps')).status).toBe(200));
    expect((await send(dave, 'GET', cm)).body.message).toBe(denial('dave', 'get', cm));

    // The role goes: the binding grants nothing, and the refusal names the missing role.
    expect((await send(admin, 'DELETE', `${RBAC}/namespaces/team/roles/follow`)).status).toBe(200);
    await eventually(async () =>
      expect((await send(dave, 'GET', '/api/v1/namespaces/team/configmaps')).body.message).toBe(
        denial('dave', 'list', cm, ': RBAC: role.rbac.authorization.k8s.io "follow" not found'),
      ),
    );

    // It comes back; then the binding goes, and with it the reason.
    expect((await send(admin, 'POST', `${RBAC}/namespaces/team/roles`, role)).status).toBe(201);
    await eventually(async () => expect((await send(dave, 'GET', cm)).status).toBe(200));
    expect((await send(admin, 'DELETE', `${RBAC}/namespaces/team/rolebindings/follow`)).status).toBe(200);
    await eventually(async () => expect((await send(dave, 'GET', cm)).body.message).toBe(denial('dave', 'get', cm)));
  });

  it('counts each decision RBAC allows in apiserver_authorization_decisions_total, and no refusal', async () => {
    const allowed = async () => {
      const res = await call(server.url, '/metrics', admin);
      return sample(res.body, 'apiserver_authorization_decisions_total', { type: 'RBAC', name: 'rbac', decision: 'allowed' }) ?? 0;
    };
    const before = await allowed();
    // Allowed by the bootstrap policy (system:discovery), three times; refused twice.
    for (let i = 0; i < 3; i++) expect((await call(server.url, '/version', bob)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await send(bob, 'GET', '/api/v1/namespaces/other/secrets')).status).toBe(403);
    // system:masters' own scrapes are decided before RBAC is asked.
    expect(await allowed()).toBe(before + 3);
    expect(sample((await call(server.url, '/metrics', admin)).body, 'apiserver_authorization_decisions_total', { type: 'RBAC', name: 'rbac', decision: 'denied' })).toBeUndefined();
  });
});

describe('SelfSubjectRulesReview under RBAC', () => {
  it('lists the rules the bindings give, split as RBAC splits them, with unresolved bindings as the evaluation error', async () => {
    const erin: Credentials = { ca: server.caCert, token: 'erin-token' };
    expect((await send(admin, 'POST', `${RBAC}/namespaces/team/roles`, {
      metadata: { name: 'erin-cm' },
      rules: [{ apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm'], verbs: ['get', 'update'] }],
    })).status).toBe(201);
    expect((await send(admin, 'POST', `${RBAC}/namespaces/team/rolebindings`, { metadata: { name: 'erin-cm' }, roleRef: ref('Role', 'erin-cm'), subjects: [user('erin')] })).status).toBe(201);
    expect((await send(admin, 'POST', `${RBAC}/namespaces/team/rolebindings`, { metadata: { name: 'erin-gone' }, roleRef: ref('ClusterRole', 'gone'), subjects: [user('erin')] })).status).toBe(201);
    const review = () => send(erin, 'POST', '/apis/authorization.k8s.io/v1/selfsubjectrulesreviews', { apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectRulesReview', spec: { namespace: 'team' } });
    await eventually(async () => {
      const res = await review();
      expect(res.status).toBe(201);
      const status = res.body.status as { resourceRules: unknown[]; nonResourceRules: unknown[]; incomplete: boolean; evaluationError?: string };
      expect(status.resourceRules).toContainEqual({ verbs: ['get', 'update'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['cm'] });
      // system:basic-user and system:discovery, bound to every authenticated user by the bootstrap policy.
      expect(status.resourceRules).toContainEqual(expect.objectContaining({ verbs: ['create'], apiGroups: ['authorization.k8s.io'], resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'] }));
      expect(status.nonResourceRules).toContainEqual(expect.objectContaining({ verbs: ['get'], nonResourceURLs: expect.arrayContaining(['/api', '/apis']) }));
      expect(status.incomplete).toBe(false);
      expect(status.evaluationError).toContain('clusterrole.rbac.authorization.k8s.io "gone" not found');
    });
  });
});

describe('escalation prevention', () => {
  const role = (name: string, rules: unknown[]) => ({ metadata: { name }, rules });
  const notHeld = (lines: string) => `user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n${lines}`;

  beforeAll(async () => {
    // bob may manage roles and bindings in esc and read configmaps there, nothing more.
    expect((await send(admin, 'POST', `${RBAC}/namespaces/esc/roles`, role('rbac-manager', [
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles', 'rolebindings'], verbs: ['create', 'get', 'update', 'patch'] },
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list'] },
    ]))).status).toBe(201);
    expect((await send(admin, 'POST', `${RBAC}/namespaces/esc/rolebindings`, { metadata: { name: 'bob-manages' }, roleRef: ref('Role', 'rbac-manager'), subjects: [user('bob')] })).status).toBe(201);
    expect((await send(admin, 'POST', `${RBAC}/clusterroles`, role('secret-reader', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]))).status).toBe(201);
    await eventually(async () => expect((await send(bob, 'GET', `${RBAC}/namespaces/esc/roles/rbac-manager`)).status).toBe(200));
  });

  it('lets a user grant what it holds', async () => {
    expect((await send(bob, 'POST', `${RBAC}/namespaces/esc/roles`, role('cm-get', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]))).status).toBe(201);
  });

  it('refuses a Role granting more, with kube\'s message, and stores nothing', async () => {
    const res = await send(bob, 'POST', `${RBAC}/namespaces/esc/roles`, role('too-much', [
      { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'watch', 'delete'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
    ]));
    expect(res).toEqual({
      status: 403,
      body: forbidden(
        `roles.rbac.authorization.k8s.io "too-much" is forbidden: ${notHeld('{APIGroups:[""], Resources:["configmaps"], Verbs:["watch" "delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}')}`,
        { name: 'too-much', group: 'rbac.authorization.k8s.io', kind: 'roles' },
      ),
    });
    expect((await send(admin, 'GET', `${RBAC}/namespaces/esc/roles/too-much`)).status).toBe(404);
    // An update that widens an existing role is refused the same way.
    const current = (await send(bob, 'GET', `${RBAC}/namespaces/esc/roles/cm-get`)).body;
    const widened = await send(bob, 'PUT', `${RBAC}/namespaces/esc/roles/cm-get`, { ...current, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] });
    expect(widened.status).toBe(403);
    expect(widened.body.message).toBe(`roles.rbac.authorization.k8s.io "cm-get" is forbidden: ${notHeld('{APIGroups:["*"], Resources:["*"], Verbs:["*"]}')}`);
    expect((await send(admin, 'GET', `${RBAC}/namespaces/esc/roles/cm-get`)).body.rules).toEqual([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
  });

  it('checks patches and server-side apply the same way', async () => {
    const patch = (type: string, path: string, body: unknown) =>
      call(server.url, path, bob, { method: 'PATCH', headers: { 'content-type': type }, body: JSON.stringify(body) });
    const merged = await patch('application/merge-patch+json', `${RBAC}/namespaces/esc/roles/cm-get`, { rules: [{ apiGroups: [''], resources: ['secrets'], verbs: ['list'] }] });
    expect(merged.status).toBe(403);
    expect(merged.json().message).toBe(`roles.rbac.authorization.k8s.io "cm-get" is forbidden: ${notHeld('{APIGroups:[""], Resources:["secrets"], Verbs:["list"]}')}`);
    const applied = await patch('application/apply-patch+yaml', `${RBAC}/namespaces/esc/roles/applied?fieldManager=bob`, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'applied' },
      rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }],
    });
    expect(applied.status).toBe(403);
    expect(applied.json().message).toBe(`roles.rbac.authorization.k8s.io "applied" is forbidden: ${notHeld('{APIGroups:[""], Resources:["pods"], Verbs:["get"]}')}`);
    expect((await send(admin, 'GET', `${RBAC}/namespaces/esc/roles/applied`)).status).toBe(404);
    expect((await send(admin, 'GET', `${RBAC}/namespaces/esc/roles/cm-get`)).body.rules).toEqual([{ apiGroups: [''], resources: ['configmaps'], verbs: ['get'] }]);
  });

  it('refuses a binding to a role with more, unless the user may bind that role', async () => {
    const binding = { metadata: { name: 'bob-secrets' }, roleRef: ref('ClusterRole', 'secret-reader'), subjects: [user('bob')] };
    const refused = await send(bob, 'POST', `${RBAC}/namespaces/esc/rolebindings`, binding);
    expect(refused).toEqual({
      status: 403,
      body: forbidden(`rolebindings.rbac.authorization.k8s.io "bob-secrets" is forbidden: ${notHeld('{APIGroups:[""], Resources:["secrets"], Verbs:["get"]}')}`, {
        name: 'bob-secrets',
        group: 'rbac.authorization.k8s.io',
        kind: 'rolebindings',
      }),
    });
    const missing = await send(bob, 'POST', `${RBAC}/namespaces/esc/rolebindings`, { ...binding, metadata: { name: 'to-nothing' }, roleRef: ref('Role', 'nope') });
    expect(missing.body.message).toBe('rolebindings.rbac.authorization.k8s.io "to-nothing" is forbidden: roles.rbac.authorization.k8s.io "nope" not found');

    expect((await send(admin, 'POST', `${RBAC}/namespaces/esc/roles`, role('may-bind', [
      { apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], resourceNames: ['secret-reader'], verbs: ['bind'] },
    ]))).status).toBe(201);
    expect((await send(admin, 'POST', `${RBAC}/namespaces/esc/rolebindings`, { metadata: { name: 'bob-binds' }, roleRef: ref('Role', 'may-bind'), subjects: [user('bob')] })).status).toBe(201);
    await eventually(async () => expect((await send(bob, 'POST', `${RBAC}/namespaces/esc/rolebindings`, binding)).status).toBe(201));
  });

  it('lets a user with escalate on roles grant anything in a role', async () => {
    expect((await send(admin, 'POST', `${RBAC}/namespaces/esc/roles`, role('may-escalate', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['roles'], verbs: ['escalate'] }]))).status).toBe(201);
    expect((await send(admin, 'POST', `${RBAC}/namespaces/esc/rolebindings`, { metadata: { name: 'bob-escalates' }, roleRef: ref('Role', 'may-escalate'), subjects: [user('bob')] })).status).toBe(201);
    await eventually(async () =>
      expect((await send(bob, 'POST', `${RBAC}/namespaces/esc/roles`, role('everything', [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }]))).status).toBe(201),
    );
  });

  it('reserves aggregationRule for holders of every permission', async () => {
    expect((await send(admin, 'POST', `${RBAC}/clusterroles`, role('cr-creator', [{ apiGroups: ['rbac.authorization.k8s.io'], resources: ['clusterroles'], verbs: ['create'] }]))).status).toBe(201);
    expect((await send(admin, 'POST', `${RBAC}/clusterrolebindings`, { metadata: { name: 'carl-creates' }, roleRef: ref('ClusterRole', 'cr-creator'), subjects: [user('carl')] })).status).toBe(201);
    const aggregate = { metadata: { name: 'carl-aggregate' }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { anything: 'true' } }] }, rules: [] };
    await eventually(async () => {
      const res = await send(carl, 'POST', `${RBAC}/clusterroles`, aggregate);
      expect(res.body.message).toBe('clusterroles.rbac.authorization.k8s.io "carl-aggregate" is forbidden: must have cluster-admin privileges to use the aggregationRule');
    });
    expect((await send(carl, 'POST', `${RBAC}/clusterroles`, { metadata: { name: 'carl-empty' }, rules: [] })).status).toBe(201);
    expect((await send(admin, 'GET', `${RBAC}/clusterroles/carl-aggregate`)).status).toBe(404);
  });
});

describe('ClusterRole aggregation', () => {
  const rulesOf = async (name: string) => (await send(admin, 'GET', `${RBAC}/clusterroles/${name}`)).body.rules as unknown[];
  const widgets = { apiGroups: ['example.com'], resources: ['widgets'], verbs: ['get', 'list', 'watch'] };

  it('keeps view, edit and admin the union of the roles labelled for them', async () => {
    await eventually(async () => expect(await rulesOf('view')).toContainEqual(expect.objectContaining({ resources: expect.arrayContaining(['configmaps']) })));
    expect((await send(admin, 'POST', `${RBAC}/clusterroles`, { metadata: { name: 'widget-viewer', labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }, rules: [widgets] })).status).toBe(201);
    await eventually(async () => {
      expect(await rulesOf('view')).toContainEqual(widgets);
      expect(await rulesOf('edit')).toContainEqual(widgets);
      expect(await rulesOf('admin')).toContainEqual(widgets);
    });
    expect((await send(admin, 'DELETE', `${RBAC}/clusterroles/widget-viewer`)).status).toBe(200);
    await eventually(async () => expect(await rulesOf('admin')).not.toContainEqual(widgets));
  });

  it('aggregates a rule that two labelled roles share once, whatever the order of its fields, and keeps rules that differ', async () => {
    const reordered = { verbs: widgets.verbs, resources: widgets.resources, apiGroups: widgets.apiGroups };
    const gadgets = { ...widgets, resources: ['gadgets'] };
    const label = { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' };
    expect((await send(admin, 'POST', `${RBAC}/clusterroles`, { metadata: { name: 'widget-reader-a', labels: label }, rules: [widgets] })).status).toBe(201);
    expect((await send(admin, 'POST', `${RBAC}/clusterroles`, { metadata: { name: 'widget-reader-b', labels: label }, rules: [reordered, gadgets] })).status).toBe(201);
    await eventually(async () => expect(await rulesOf('view')).toContainEqual(gadgets));
    const view = await rulesOf('view');
    expect(view.filter((r) => JSON.stringify(r) === JSON.stringify(widgets) || JSON.stringify(r) === JSON.stringify(reordered))).toHaveLength(1);
    for (const name of ['widget-reader-a', 'widget-reader-b']) expect((await send(admin, 'DELETE', `${RBAC}/clusterroles/${name}`)).status).toBe(200);
    await eventually(async () => expect(await rulesOf('view')).not.toContainEqual(gadgets));
  });

  it('puts back the aggregated rules someone overwrites', async () => {
    const view = (await send(admin, 'GET', `${RBAC}/clusterroles/view`)).body;
    expect((await send(admin, 'PUT', `${RBAC}/clusterroles/view`, { ...view, rules: [] })).status).toBe(200);
    await eventually(async () => expect((await rulesOf('view')).length).toBeGreaterThan(5));
  });
});

describe('bootstrap policy', () => {
  it('is present after start, as kube-apiserver makes it', async () => {
    const list = await send(admin, 'GET', `${RBAC}/clusterroles`);
    const names = (list.body.items as { metadata: { name: string } }[]).map((r) => r.metadata.name);
    expect(names).toEqual(expect.arrayContaining(['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer', 'system:monitoring', 'system:node', 'system:controller:namespace-controller']));
    expect((await send(admin, 'GET', `${RBAC}/clusterroles/cluster-admin`)).body).toMatchObject({
      metadata: { labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } },
      rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }, { nonResourceURLs: ['*'], verbs: ['*'] }],
    });
    expect((await send(admin, 'GET', `${RBAC}/clusterrolebindings/cluster-admin`)).body).toMatchObject({ subjects: [{ kind: 'Group', name: 'system:masters' }] });
    expect((await send(admin, 'GET', `${RBAC}/namespaces/kube-system/rolebindings/system::extension-apiserver-authentication-reader`)).status).toBe(200);
  });

  it('is reconciled at the next start, except what is marked autoupdate=false', async () => {
    const dataDir = join(dir, 'persistent');
    const first = await startServer({ storage: 'sqlite', dataDir });
    const root = kubeconfigCredentials(first.kubeconfig);
    const at = (s: RunningServer) => async (method: string, path: string, body?: unknown) => {
      const res = await call(s.url, path, root, { method, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
      return { status: res.status, body: res.json() as Record<string, unknown> };
    };
    let go = at(first);
    const discovery = (await go('GET', `${RBAC}/clusterroles/system:discovery`)).body;
    expect((await go('PUT', `${RBAC}/clusterroles/system:discovery`, { ...discovery, rules: [{ nonResourceURLs: ['/version'], verbs: ['get'] }] })).status).toBe(200);
    const viewer = (await go('GET', `${RBAC}/clusterroles/system:public-info-viewer`)).body as { metadata: Record<string, unknown> };
    const kept = { ...viewer, metadata: { ...viewer.metadata, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'false' } }, rules: [{ nonResourceURLs: ['/livez'], verbs: ['get'] }] };
    expect((await go('PUT', `${RBAC}/clusterroles/system:public-info-viewer`, kept)).status).toBe(200);
    const basic = (await go('GET', `${RBAC}/clusterrolebindings/system:basic-user`)).body;
    expect((await go('PUT', `${RBAC}/clusterrolebindings/system:basic-user`, { ...basic, subjects: [user('bob')] })).status).toBe(200);
    expect((await go('DELETE', `${RBAC}/clusterroles/system:monitoring`)).status).toBe(200);
    await first.close();

    const second = await startServer({ storage: 'sqlite', dataDir });
    go = at(second);
    try {
      const restored = (await go('GET', `${RBAC}/clusterroles/system:discovery`)).body.rules as { nonResourceURLs: string[] }[];
      expect(restored[0]).toEqual({ nonResourceURLs: ['/version'], verbs: ['get'] });
      expect(restored.flatMap((r) => r.nonResourceURLs)).toEqual(expect.arrayContaining(['/api', '/apis/*', '/healthz', '/version/']));
      expect((await go('GET', `${RBAC}/clusterroles/system:public-info-viewer`)).body.rules).toEqual([{ nonResourceURLs: ['/livez'], verbs: ['get'] }]);
      expect((await go('GET', `${RBAC}/clusterrolebindings/system:basic-user`)).body.subjects).toEqual([user('bob'), { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' }]);
      expect((await go('GET', `${RBAC}/clusterroles/system:monitoring`)).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});

describe('kubectl as a user without rights', () => {
  const v133 = kubectlVersions().find((v) => v.version === '1.33')?.path;
  it.runIf(v133)('prints kube-apiserver\'s forbidden message', async () => {
    const doc = parseYaml(server.kubeconfig) as { users: { user: Record<string, unknown> }[] };
    doc.users[0].user = { token: 'dave-token' };
    const kubeconfig = writeKubeconfig(dir, JSON.stringify(doc), 'kubeconfig-dave');
    const res = await runKubectl(v133!, ['get', 'configmaps', '-n', 'team', 'cm'], { kubeconfig, home: dir });
    expect(res.code).toBe(1);
    expect(res.stderr).toBe('Error from server (Forbidden): configmaps "cm" is forbidden: User "dave" cannot get resource "configmaps" in API group "" in the namespace "team"\n');
    const list = await runKubectl(v133!, ['get', 'configmaps', '-n', 'team'], { kubeconfig, home: dir });
    expect(list.code).toBe(1);
    expect(list.stderr).toBe('Error from server (Forbidden): configmaps is forbidden: User "dave" cannot list resource "configmaps" in API group "" in the namespace "team"\n');
  });
});
