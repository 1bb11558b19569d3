// The RBAC authorizer in memory, as kube's rbac_test.go and evaluation helper tests drive it:
// rule matching, subjects (users, groups, service accounts), the namespaces bindings reach,
// resolution errors, escalation messages, and the bootstrap reconciler's merge rules.
import { describe, expect, it } from 'vitest';
import { attributesFor, type Attributes } from '../../runtime/auth/authorizer.js';
import { RBACAuthorizer } from '../../runtime/auth/rbac/authorizer.js';
import { escalationMessage } from '../../runtime/auth/rbac/escalation.js';
import { RuleResolver } from '../../runtime/auth/rbac/rule-resolver.js';
import { compactRules, compactString, ruleAllows, uncoveredRules, type PolicyRule } from '../../runtime/auth/rbac/rules.js';
import { newUserInfo, type UserInfo } from '../../runtime/auth/user.js';
import { newRequestInfo } from '../../runtime/machinery/request-info.js';
import { loadBootstrapPolicy, reconcileBinding, reconcileRole } from '../../runtime/api/bootstrap-policy.js';
import { labelSelectorMatches } from '../../runtime/controllers/clusterrole-aggregation.js';

const bob = newUserInfo('bob', { groups: ['system:authenticated'] });
const attrs = (method: string, url: string, user: UserInfo = bob): Attributes => attributesFor(user, newRequestInfo(method, url));

describe('rule matching', () => {
  const cases: [string, PolicyRule, string, string, boolean][] = [
    ['exact verb, group and resource', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }, 'GET', '/api/v1/namespaces/ns/configmaps/a', true],
    ['another verb', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }, 'GET', '/api/v1/namespaces/ns/configmaps', false],
    ['verb *', { verbs: ['*'], apiGroups: [''], resources: ['configmaps'] }, 'DELETE', '/api/v1/namespaces/ns/configmaps/a', true],
    ['another group', { verbs: ['get'], apiGroups: ['apps'], resources: ['configmaps'] }, 'GET', '/api/v1/namespaces/ns/configmaps/a', false],
    ['group *', { verbs: ['get'], apiGroups: ['*'], resources: ['csidrivers'] }, 'GET', '/apis/storage.k8s.io/v1/csidrivers/d', true],
    ['resource * covers subresources', { verbs: ['update'], apiGroups: [''], resources: ['*'] }, 'PUT', '/api/v1/namespaces/ns/pods/p/status', true],
    ['a resource does not cover its subresources', { verbs: ['update'], apiGroups: [''], resources: ['pods'] }, 'PUT', '/api/v1/namespaces/ns/pods/p/status', false],
    ['a subresource does not cover its resource', { verbs: ['update'], apiGroups: [''], resources: ['pods/status'] }, 'PUT', '/api/v1/namespaces/ns/pods/p', false],
    ['resource/subresource', { verbs: ['update'], apiGroups: [''], resources: ['pods/status'] }, 'PUT', '/api/v1/namespaces/ns/pods/p/status', true],
    ['*/subresource', { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, 'GET', '/apis/apps/v1/namespaces/ns/deployments/d/scale', true],
    ['*/subresource needs that subresource', { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, 'GET', '/apis/apps/v1/namespaces/ns/deployments/d/status', false],
    ['*/subresource is no resource', { verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, 'GET', '/apis/apps/v1/namespaces/ns/deployments/d', false],
    ['resourceNames match the name', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, 'GET', '/api/v1/namespaces/ns/configmaps/a', true],
    ['resourceNames refuse other names', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, 'GET', '/api/v1/namespaces/ns/configmaps/b', false],
    ['resourceNames refuse lists', { verbs: ['list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, 'GET', '/api/v1/namespaces/ns/configmaps', false],
    ['resourceNames allow a watch of one name', { verbs: ['watch'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] }, 'GET', '/api/v1/namespaces/ns/configmaps?watch=1&fieldSelector=metadata.name%3Da', true],
    ['non-resource URL exact', { verbs: ['get'], nonResourceURLs: ['/version'] }, 'GET', '/version', true],
    ['non-resource URL exact refuses a longer path', { verbs: ['get'], nonResourceURLs: ['/version'] }, 'GET', '/version/', false],
    ['non-resource URL prefix', { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, 'GET', '/healthz/etcd', true],
    ['non-resource URL prefix needs its prefix', { verbs: ['get'], nonResourceURLs: ['/healthz/*'] }, 'GET', '/healthz', false],
    ['non-resource URL *', { verbs: ['get'], nonResourceURLs: ['*'] }, 'GET', '/metrics', true],
    ['non-resource rules do not match resources', { verbs: ['get'], nonResourceURLs: ['*'] }, 'GET', '/api/v1/namespaces/ns/configmaps/a', false],
    ['resource rules do not match non-resource URLs', { verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, 'GET', '/metrics', false],
    ['non-resource verbs are HTTP verbs', { verbs: ['post'], nonResourceURLs: ['/x'] }, 'POST', '/x', true],
  ];
  it.each(cases)('%s', (_name, rule, method, url, allowed) => {
    expect(ruleAllows(attrs(method, url), rule)).toBe(allowed);
  });
});

function policy(): RuleResolver {
  const r = new RuleResolver();
  r.setClusterRole({ metadata: { name: 'reader' }, rules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }] });
  r.setClusterRole({ metadata: { name: 'discovery' }, rules: [{ verbs: ['get'], nonResourceURLs: ['/version'] }] });
  r.setRole({ metadata: { name: 'secrets', namespace: 'ns1' }, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }] });
  return r;
}
const ref = (kind: string, name: string) => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name });

describe('the RBAC authorizer', () => {
  it('reaches a Role and a ClusterRole through a RoleBinding only in its namespace', () => {
    const r = policy();
    r.setRoleBinding({ metadata: { name: 'b1', namespace: 'ns1' }, roleRef: ref('Role', 'secrets'), subjects: [{ kind: 'User', name: 'bob' }] });
    r.setRoleBinding({ metadata: { name: 'b2', namespace: 'ns1' }, roleRef: ref('ClusterRole', 'reader'), subjects: [{ kind: 'User', name: 'bob' }] });
    const authz = new RBACAuthorizer(r);
    expect(authz.authorize(attrs('GET', '/api/v1/namespaces/ns1/secrets/s'))).toEqual({
      decision: 'allow',
      reason: 'RBAC: allowed by RoleBinding "b1/ns1" of Role "secrets" to User "bob"',
    });
    expect(authz.authorize(attrs('GET', '/api/v1/namespaces/ns1/configmaps')).decision).toBe('allow');
    expect(authz.authorize(attrs('GET', '/api/v1/namespaces/ns2/configmaps')).decision).toBe('noOpinion');
    expect(authz.authorize(attrs('GET', '/api/v1/configmaps')).decision).toBe('noOpinion');
  });

  it('reaches a ClusterRole through a ClusterRoleBinding everywhere, cluster scope included', () => {
    const r = policy();
    r.setClusterRoleBinding({ metadata: { name: 'all' }, roleRef: ref('ClusterRole', 'reader'), subjects: [{ kind: 'Group', name: 'system:authenticated' }] });
    const authz = new RBACAuthorizer(r);
    expect(authz.authorize(attrs('GET', '/api/v1/configmaps'))).toEqual({
      decision: 'allow',
      reason: 'RBAC: allowed by ClusterRoleBinding "all" of ClusterRole "reader" to Group "system:authenticated"',
    });
    expect(authz.authorize(attrs('GET', '/api/v1/namespaces/any/configmaps/x')).decision).toBe('allow');
    expect(authz.authorize(attrs('GET', '/api/v1/namespaces/any/configmaps/x', newUserInfo('eve'))).decision).toBe('noOpinion');
  });

  it('matches service accounts by their user name, a subject without namespace in its binding\'s', () => {
    const r = policy();
    r.setRoleBinding({ metadata: { name: 'sa', namespace: 'ns1' }, roleRef: ref('ClusterRole', 'reader'), subjects: [{ kind: 'ServiceAccount', name: 'builder' }] });
    r.setRoleBinding({ metadata: { name: 'other', namespace: 'ns2' }, roleRef: ref('ClusterRole', 'reader'), subjects: [{ kind: 'ServiceAccount', name: 'builder', namespace: 'ns1' }] });
    r.setRoleBinding({ metadata: { name: 'all-sas', namespace: 'ns3' }, roleRef: ref('ClusterRole', 'reader'), subjects: [{ kind: 'Group', name: 'system:serviceaccounts:ns1' }] });
    const authz = new RBACAuthorizer(r);
    const sa = newUserInfo('system:serviceaccount:ns1:builder', { groups: ['system:serviceaccounts', 'system:serviceaccounts:ns1', 'system:authenticated'] });
    const ns2sa = newUserInfo('system:serviceaccount:ns2:builder', { groups: ['system:serviceaccounts', 'system:serviceaccounts:ns2'] });
    expect(authz.authorize(attrs('GET', '/api/v1/namespaces/ns1/configmaps', sa))).toEqual({
      decision: 'allow',
      reason: 'RBAC: allowed by RoleBinding "sa/ns1" of ClusterRole "reader" to ServiceAccount "builder/ns1"',
    });
    expect(authz.authorize(attrs('GET', '/api/v1/namespaces/ns2/configmaps', sa)).decision).toBe('allow');
    expect(authz.authorize(attrs('GET', '/api/v1/namespaces/ns3/configmaps', sa)).decision).toBe('allow');
    expect(authz.authorize(attrs('GET', '/api/v1/namespaces/ns1/configmaps', ns2sa)).decision).toBe('noOpinion');
    expect(authz.authorize(attrs('GET', '/api/v1/namespaces/ns2/configmaps', ns2sa)).decision).toBe('noOpinion');
  });

  it('grants nothing through a binding whose role is missing, and says so in the reason', () => {
    const r = policy();
    r.setClusterRoleBinding({ metadata: { name: 'a' }, roleRef: ref('ClusterRole', 'gone'), subjects: [{ kind: 'User', name: 'bob' }] });
    r.setRoleBinding({ metadata: { name: 'b', namespace: 'ns1' }, roleRef: ref('Role', 'absent'), subjects: [{ kind: 'User', name: 'bob' }] });
    const authz = new RBACAuthorizer(r);
    expect(authz.authorize(attrs('GET', '/api/v1/configmaps'))).toEqual({ decision: 'noOpinion', reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found' });
    expect(authz.authorize(attrs('GET', '/api/v1/namespaces/ns1/configmaps'))).toEqual({
      decision: 'noOpinion',
      reason: 'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "absent" not found]',
    });
    expect(authz.authorize(attrs('GET', '/api/v1/namespaces/ns2/configmaps', newUserInfo('eve')))).toEqual({ decision: 'noOpinion', reason: '' });
  });

  // The index by user name and group must find what kube's walk over every binding finds: each
  // binding once, described by the first of its subjects that applies, bindings in name order.
  it('describes a binding by the first subject that applies, whether found by user or by group', () => {
    const r = policy();
    const carol = newUserInfo('carol', { groups: ['devs', 'system:authenticated'] });
    r.setRoleBinding({
      metadata: { name: 'both', namespace: 'ns1' },
      roleRef: ref('Role', 'secrets'),
      subjects: [{ kind: 'User', name: 'dave' }, { kind: 'Group', name: 'devs' }, { kind: 'User', name: 'carol' }, { kind: 'Group', name: 'devs' }],
    });
    const authz = new RBACAuthorizer(r);
    expect(authz.authorize(attrs('GET', '/api/v1/namespaces/ns1/secrets/s', carol))).toEqual({
      decision: 'allow',
      reason: 'RBAC: allowed by RoleBinding "both/ns1" of Role "secrets" to Group "devs"',
    });
    expect(authz.authorize(attrs('GET', '/api/v1/namespaces/ns1/secrets/s', newUserInfo('carol')))).toEqual({
      decision: 'allow',
      reason: 'RBAC: allowed by RoleBinding "both/ns1" of Role "secrets" to User "carol"',
    });
    // Each binding is resolved once: its role's rules are listed once for a user it names twice.
    expect(r.rulesFor(carol, 'ns1').rules).toEqual([{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]);
  });

  it('visits the bindings found by user and by groups in name order, each error once', () => {
    const r = policy();
    const carol = newUserInfo('carol', { groups: ['devs', 'ops'] });
    r.setRoleBinding({ metadata: { name: 'c-missing', namespace: 'ns1' }, roleRef: ref('Role', 'c'), subjects: [{ kind: 'Group', name: 'ops' }, { kind: 'User', name: 'carol' }] });
    r.setRoleBinding({ metadata: { name: 'a-missing', namespace: 'ns1' }, roleRef: ref('Role', 'a'), subjects: [{ kind: 'Group', name: 'devs' }] });
    r.setRoleBinding({ metadata: { name: 'b-reader', namespace: 'ns1' }, roleRef: ref('ClusterRole', 'reader'), subjects: [{ kind: 'User', name: 'carol' }] });
    r.setRoleBinding({ metadata: { name: 'd-missing', namespace: 'ns1' }, roleRef: ref('Role', 'd'), subjects: [{ kind: 'Group', name: 'ops' }] });
    const authz = new RBACAuthorizer(r);
    expect(authz.authorize(attrs('GET', '/api/v1/namespaces/ns1/secrets/s', carol))).toEqual({
      decision: 'noOpinion',
      reason:
        'RBAC: [role.rbac.authorization.k8s.io "a" not found, role.rbac.authorization.k8s.io "c" not found, role.rbac.authorization.k8s.io "d" not found]',
    });
    const { rules, errors } = r.rulesFor(carol, 'ns1');
    expect(rules).toEqual([{ verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] }]);
    expect(errors).toEqual(['role.rbac.authorization.k8s.io "a" not found', 'role.rbac.authorization.k8s.io "c" not found', 'role.rbac.authorization.k8s.io "d" not found']);
    // Replacing a binding moves it between users and groups; deleting it leaves no trace.
    r.setRoleBinding({ metadata: { name: 'c-missing', namespace: 'ns1' }, roleRef: ref('Role', 'c'), subjects: [{ kind: 'User', name: 'erin' }] });
    r.deleteRoleBinding({ metadata: { name: 'd-missing', namespace: 'ns1' } });
    expect(r.rulesFor(carol, 'ns1').errors).toEqual(['role.rbac.authorization.k8s.io "a" not found']);
    expect(r.rulesFor(newUserInfo('erin'), 'ns1').errors).toEqual(['role.rbac.authorization.k8s.io "c" not found']);
  });

  it('forgets deleted roles and bindings, and follows changed subjects', () => {
    const r = policy();
    r.setClusterRoleBinding({ metadata: { name: 'a' }, roleRef: ref('ClusterRole', 'discovery'), subjects: [{ kind: 'User', name: 'bob' }] });
    const authz = new RBACAuthorizer(r);
    expect(authz.authorize(attrs('GET', '/version')).decision).toBe('allow');
    r.setClusterRoleBinding({ metadata: { name: 'a' }, roleRef: ref('ClusterRole', 'discovery'), subjects: [{ kind: 'User', name: 'alice' }] });
    expect(authz.authorize(attrs('GET', '/version')).decision).toBe('noOpinion');
    expect(authz.authorize(attrs('GET', '/version', newUserInfo('alice'))).decision).toBe('allow');
    r.deleteClusterRole({ metadata: { name: 'discovery' } });
    expect(authz.authorize(attrs('GET', '/version', newUserInfo('alice'))).reason).toBe('RBAC: clusterrole.rbac.authorization.k8s.io "discovery" not found');
    r.deleteClusterRoleBinding({ metadata: { name: 'a' } });
    expect(authz.authorize(attrs('GET', '/version', newUserInfo('alice')))).toEqual({ decision: 'noOpinion', reason: '' });
  });

  it('lists every rule a user holds in a namespace, for rules reviews', () => {
    const r = policy();
    r.setClusterRoleBinding({ metadata: { name: 'a' }, roleRef: ref('ClusterRole', 'discovery'), subjects: [{ kind: 'Group', name: 'system:authenticated' }] });
    r.setRoleBinding({ metadata: { name: 'b', namespace: 'ns1' }, roleRef: ref('Role', 'secrets'), subjects: [{ kind: 'User', name: 'bob' }] });
    r.setRoleBinding({ metadata: { name: 'c', namespace: 'ns1' }, roleRef: ref('Role', 'none'), subjects: [{ kind: 'User', name: 'bob' }] });
    expect(r.rulesFor(bob, 'ns1')).toEqual({
      rules: [{ verbs: ['get'], nonResourceURLs: ['/version'] }, { verbs: ['get'], apiGroups: [''], resources: ['secrets'] }],
      errors: ['role.rbac.authorization.k8s.io "none" not found'],
    });
    expect(r.rulesFor(bob, '').rules).toHaveLength(1);
  });
});

describe('escalation checks', () => {
  const held = [
    { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'] },
    { verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] },
    { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] },
    { verbs: ['get'], nonResourceURLs: ['/logs/*'] },
  ];
  it.each([
    ['the same rule', { verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }, true],
    ['a verb not held', { verbs: ['get', 'watch'], apiGroups: [''], resources: ['configmaps'] }, false],
    ['a subresource through */sub', { verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/scale'] }, true],
    ['a name held', { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }, true],
    ['every name when one is held', { verbs: ['get'], apiGroups: [''], resources: ['secrets'] }, false],
    ['a URL under a held prefix', { verbs: ['get'], nonResourceURLs: ['/logs/x'] }, true],
    ['a wider URL prefix', { verbs: ['get'], nonResourceURLs: ['/*'] }, false],
    ['no verbs at all', { verbs: [], apiGroups: ['*'], resources: ['*'] }, true],
  ])('%s', (_n, rule, covered) => {
    expect(uncoveredRules(held, [rule as PolicyRule]).length === 0).toBe(covered);
  });

  it('words the refusal as kube, missing rules compacted and sorted', () => {
    const missing = escalationMessage(bob, { rules: held, errors: [] }, [
      { verbs: ['get', 'list', 'watch', 'delete'], apiGroups: [''], resources: ['pods', 'configmaps'] },
      { verbs: ['get'], nonResourceURLs: ['/metrics'] },
    ]);
    expect(missing).toBe(
      'user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["configmaps"], Verbs:["watch" "delete"]}\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list" "watch" "delete"]}\n' +
        '{NonResourceURLs:["/metrics"], Verbs:["get"]}',
    );
    expect(escalationMessage(bob, { rules: held, errors: ['role.rbac.authorization.k8s.io "x" not found'] }, [{ verbs: ['create'], apiGroups: [''], resources: ['pods'] }])).toBe(
      'user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["create"]}; resolution errors: [role.rbac.authorization.k8s.io "x" not found]',
    );
    expect(escalationMessage(bob, { rules: held, errors: [] }, [{ verbs: ['list'], apiGroups: [''], resources: ['configmaps'] }])).toBeUndefined();
  });

  it('compacts only single-group, single-resource rules', () => {
    const rules = compactRules([
      { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      { verbs: ['list'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] },
      { verbs: ['get'], apiGroups: ['', 'apps'], resources: ['pods'] },
    ]);
    expect(rules.map(compactString)).toEqual([
      '{APIGroups:["" "apps"], Resources:["pods"], Verbs:["get"]}',
      '{APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["get" "list"]}',
    ]);
  });
});

describe('bootstrap policy', () => {
  const bootstrap = loadBootstrapPolicy();
  const named = (list: Record<string, unknown>[], name: string) => list.find((o) => (o.metadata as { name: string }).name === name)!;

  it('holds kube\'s default roles and bindings, labelled and annotated for reconciliation', () => {
    const names = bootstrap.clusterRoles.map((r) => (r.metadata as { name: string }).name);
    for (const name of ['cluster-admin', 'admin', 'edit', 'view', 'system:basic-user', 'system:discovery', 'system:public-info-viewer', 'system:monitoring', 'system:node', 'system:node-proxier', 'system:controller:namespace-controller', 'system:controller:clusterrole-aggregation-controller']) {
      expect(names).toContain(name);
    }
    expect(named(bootstrap.clusterRoles, 'view')).toMatchObject({
      metadata: { labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults', 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' }, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } },
      aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }] },
    });
    expect(named(bootstrap.clusterRoleBindings, 'system:controller:namespace-controller')).toMatchObject({
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:controller:namespace-controller' },
      subjects: [{ kind: 'ServiceAccount', name: 'namespace-controller', namespace: 'kube-system' }],
    });
    expect(named(bootstrap.clusterRoleBindings, 'system:public-info-viewer').subjects).toEqual([
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' },
      { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:unauthenticated' },
    ]);
    expect(bootstrap.roles.map((r) => `${(r.metadata as { namespace: string }).namespace}/${(r.metadata as { name: string }).name}`)).toContain('kube-system/extension-apiserver-authentication-reader');
  });

  it('adds what an edited role lacks and keeps what was added to it', () => {
    const expected = named(bootstrap.clusterRoles, 'system:discovery');
    const edited = structuredClone(expected);
    edited.rules = [{ verbs: ['get'], nonResourceURLs: ['/version', '/extra'] }];
    (edited.metadata as { labels: Record<string, string> }).labels = { mine: 'yes' };
    const out = reconcileRole(edited, expected)!;
    expect(out.rules).toEqual([
      { verbs: ['get'], nonResourceURLs: ['/version', '/extra'] },
      ...['/api', '/api/*', '/apis', '/apis/*', '/healthz', '/livez', '/openapi', '/openapi/*', '/readyz', '/version/'].map((u) => ({ nonResourceURLs: [u], verbs: ['get'] })),
    ]);
    expect((out.metadata as { labels: Record<string, string> }).labels).toEqual({ 'kubernetes.io/bootstrapping': 'rbac-defaults', mine: 'yes' });
    expect(reconcileRole(out, expected)).toBeUndefined();
  });

  it('adds missing subjects, recreates a binding whose roleRef changed', () => {
    const expected = named(bootstrap.clusterRoleBindings, 'system:basic-user');
    const edited = structuredClone(expected);
    edited.subjects = [{ kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.k8s.io' }];
    expect(reconcileBinding(edited, expected)).toEqual({
      recreate: false,
      object: { ...edited, subjects: [{ kind: 'User', name: 'bob', apiGroup: 'rbac.authorization.k8s.io' }, ...(expected.subjects as unknown[])] },
    });
    const moved = structuredClone(expected);
    moved.roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' };
    expect(reconcileBinding(moved, expected)).toMatchObject({ recreate: true, object: { roleRef: expected.roleRef } });
    expect(reconcileBinding(expected, expected)).toBeUndefined();
  });
});

describe('aggregation selectors', () => {
  it.each([
    [{ matchLabels: { a: '1' } }, { a: '1', b: '2' }, true],
    [{ matchLabels: { a: '1' } }, { a: '2' }, false],
    [{ matchExpressions: [{ key: 'a', operator: 'In', values: ['1', '2'] }] }, { a: '2' }, true],
    [{ matchExpressions: [{ key: 'a', operator: 'NotIn', values: ['1'] }] }, {}, true],
    [{ matchExpressions: [{ key: 'a', operator: 'Exists' }] }, {}, false],
    [{ matchExpressions: [{ key: 'a', operator: 'DoesNotExist' }] }, {}, true],
    [{}, { any: 'x' }, true],
  ])('%j on %j', (selector, labels, matches) => {
    expect(labelSelectorMatches(selector, labels)).toBe(matches);
  });
});
