import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAuthorizer, parseAuthorizationModes } from '../../runtime/auth/authorization-modes.js';
import { alwaysDenyAuthorizer, attributesFor, isRuleResolver, unionAuthorizer, type Attributes, type Authorizer, type RuleResolver } from '../../runtime/auth/authorizer.js';
import { forbiddenError } from '../../runtime/auth/forbidden.js';
import { newUserInfo, type UserInfo } from '../../runtime/auth/user.js';
import { newRequestInfo } from '../../runtime/machinery/request-info.js';
import { startServer, type RunningServer } from '../../runtime/index.js';
import { statusJSON } from '../../runtime/server/status-response.js';
import { call, kubeconfigCredentials } from '../support/https-client.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const bob = newUserInfo('bob', { groups: ['system:authenticated'] });
const attrs = (method: string, url: string, user: UserInfo = bob): Attributes => attributesFor(user, newRequestInfo(method, url));

describe('forbidden messages', () => {
  it.each([
    ['GET', '/api/v1/namespaces/default/configmaps/x',
      'configmaps "x" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "default"', { name: 'x', kind: 'configmaps' }],
    ['GET', '/api/v1/namespaces/default/configmaps',
      'configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"', { kind: 'configmaps' }],
    ['GET', '/api/v1/configmaps?watch=1',
      'configmaps is forbidden: User "bob" cannot watch resource "configmaps" in API group "" at the cluster scope', { kind: 'configmaps' }],
    ['PUT', '/api/v1/namespaces/ns1/status',
      'namespaces "ns1" is forbidden: User "bob" cannot update resource "namespaces/status" in API group "" in the namespace "ns1"', { name: 'ns1', kind: 'namespaces' }],
    ['POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      'clusterrolebindings.rbac.authorization.k8s.io is forbidden: User "bob" cannot create resource "clusterrolebindings" in API group "rbac.authorization.k8s.io" at the cluster scope',
      { group: 'rbac.authorization.k8s.io', kind: 'clusterrolebindings' }],
    ['DELETE', '/apis/storage.k8s.io/v1/csidrivers/d1',
      'csidrivers.storage.k8s.io "d1" is forbidden: User "bob" cannot delete resource "csidrivers" in API group "storage.k8s.io" at the cluster scope',
      { name: 'd1', group: 'storage.k8s.io', kind: 'csidrivers' }],
    ['GET', '/metrics', 'forbidden: User "bob" cannot get path "/metrics"', {}],
    ['GET', '/a<b>&c', 'forbidden: User "bob" cannot get path "/a&lt;b&gt;&amp;c"', {}],
  ])('%s %s', (method, url, message, details) => {
    const err = forbiddenError(attrs(method, url), '');
    expect(err.code).toBe(403);
    expect(err.reason).toBe('Forbidden');
    expect(err.message).toBe(message);
    expect(err.details).toEqual(details);
  });

  it('appends the authorizer\'s reason', () => {
    expect(forbiddenError(attrs('GET', '/api/v1/namespaces/default/configmaps/x'), 'Everything is forbidden.').message).toBe(
      'configmaps "x" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "default": Everything is forbidden.',
    );
  });

  it('serializes like kube-apiserver, details before code', () => {
    expect(statusJSON(forbiddenError(attrs('GET', '/metrics'), ''))).toBe(
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"forbidden: User \\"bob\\" cannot get path \\"/metrics\\"","reason":"Forbidden","details":{},"code":403}\n',
    );
  });
});

describe('authorization modes', () => {
  it('parses and validates --authorization-mode', () => {
    expect(parseAuthorizationModes('RBAC,Node')).toEqual(['RBAC', 'Node']);
    expect(parseAuthorizationModes(['AlwaysDeny'])).toEqual(['AlwaysDeny']);
    expect(() => parseAuthorizationModes('Magic')).toThrow('authorization-mode "Magic" is not a valid mode');
    expect(() => parseAuthorizationModes('RBAC,RBAC')).toThrow('has mode specified more than once');
    expect(() => parseAuthorizationModes('')).toThrow('at least one authorization-mode must be passed');
  });

  it('refuses modes this server cannot build yet', async () => {
    await expect(buildAuthorizer(['RBAC'])).rejects.toThrow('authorization-mode "RBAC" is not supported by this server yet');
  });

  it('lets system:masters through any mode, then asks the modes in order', async () => {
    const deny = await buildAuthorizer(['AlwaysDeny']);
    const masters = newUserInfo('admin', { groups: ['system:masters'] });
    expect((await deny.authorize(attrs('GET', '/api/v1/configmaps', masters))).decision).toBe('allow');
    expect(await deny.authorize(attrs('GET', '/api/v1/configmaps'))).toEqual({ decision: 'noOpinion', reason: 'Everything is forbidden.' });

    const denyThenAllow = await buildAuthorizer(['AlwaysDeny', 'AlwaysAllow']);
    expect((await denyThenAllow.authorize(attrs('GET', '/api/v1/configmaps'))).decision).toBe('allow');

    const explicitDeny: Authorizer = { authorize: () => ({ decision: 'deny', reason: 'no' }) };
    const custom = await buildAuthorizer(['Webhook', 'AlwaysAllow'], { Webhook: () => explicitDeny });
    expect(await custom.authorize(attrs('GET', '/api/v1/configmaps'))).toEqual({ decision: 'deny', reason: 'no' });
  });
});

describe('authorization over HTTPS', () => {
  let server: RunningServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'authz-'));
    writeFileSync(join(dir, 'tokens.csv'), 'bob-token,bob,2\nroot-token,root,1,system:masters\n');
    server = await startServer({
      storage: 'memory',
      authorizationMode: 'AlwaysDeny',
      anonymousAuth: true,
      tokenAuthFile: join(dir, 'tokens.csv'),
      api: () => ({ handler: (c) => c.json({ served: c.get('requestInfo').path }) }),
    });
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 403 Forbidden with kube-apiserver\'s message', async () => {
    const res = await call(server.url, '/api/v1/namespaces/default/configmaps/x', { ca: server.caCert, token: 'bob-token' });
    expect(res.status).toBe(403);
    expect(res.json()).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'configmaps "x" is forbidden: User "bob" cannot get resource "configmaps" in API group "" in the namespace "default": Everything is forbidden.',
      reason: 'Forbidden',
      details: { name: 'x', kind: 'configmaps' },
      code: 403,
    });
  });

  it('lets system:masters through, by certificate or by token', async () => {
    expect((await call(server.url, '/api/v1/namespaces', kubeconfigCredentials(server.kubeconfig))).status).toBe(200);
    expect((await call(server.url, '/api/v1/namespaces', { ca: server.caCert, token: 'root-token' })).json()).toEqual({ served: '/api/v1/namespaces' });
  });

  it('denies anonymous health checks under AlwaysDeny, as kube-apiserver without RBAC\'s public-info-viewer does', async () => {
    const res = await call(server.url, '/healthz', { ca: server.caCert });
    expect(res.status).toBe(403);
    expect(res.json()).toMatchObject({ message: 'forbidden: User "system:anonymous" cannot get path "/healthz": Everything is forbidden.' });
  });
});

// SelfSubjectRulesReview asks the chain for rules (authorizer.RuleResolver). As kube-apiserver's
// union: every member's rules in order, incomplete when any member is (or cannot list them at
// all), and the members' errors aggregated. The system:masters bypass lists nothing.
describe('rules of the authorizer chain', () => {
  const EVERYTHING = {
    resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }],
    nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }],
  };
  const NOTHING = { resourceRules: [], nonResourceRules: [] };
  const masters = newUserInfo('root', { groups: ['system:masters'] });

  it.each([
    ['AlwaysAllow', bob, { ...EVERYTHING, incomplete: false }],
    ['AlwaysDeny', bob, { ...NOTHING, incomplete: false }],
    ['AlwaysDeny', masters, { ...NOTHING, incomplete: false }],
    ['AlwaysDeny,AlwaysAllow', bob, { ...EVERYTHING, incomplete: false }],
  ])('%s for %s', async (modes, user, expected) => {
    const chain = await buildAuthorizer(parseAuthorizationModes(modes));
    expect(isRuleResolver(chain)).toBe(true);
    expect(await (chain as Authorizer & RuleResolver).rulesFor(user, 'default')).toEqual(expected);
  });

  it('is incomplete when a member cannot list its rules, and aggregates the errors of those that can', async () => {
    const opaque: Authorizer = { authorize: () => ({ decision: 'noOpinion', reason: '' }) };
    const failing = (error: string): Authorizer & RuleResolver => ({
      authorize: () => ({ decision: 'noOpinion', reason: '' }),
      rulesFor: () => ({ resourceRules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], nonResourceRules: [], incomplete: false, evaluationError: error }),
    });
    expect(await unionAuthorizer([alwaysDenyAuthorizer, opaque]).rulesFor(bob, 'default')).toEqual({ ...NOTHING, incomplete: true });
    expect(await unionAuthorizer([failing('a'), failing('b'), failing('a')]).rulesFor(bob, 'default')).toEqual({
      resourceRules: Array(3).fill({ verbs: ['get'], apiGroups: [''], resources: ['pods'] }),
      nonResourceRules: [],
      incomplete: false,
      evaluationError: '[a, b]',
    });
  });
});
