// The audit policy as kube's policy checker and validation tests exercise it: which rule a
// request meets first, the stages each rule omits, and the messages a bad policy file gets.
import { describe, expect, it } from 'vitest';
import { parsePolicy, policyRuleEvaluator, validatePolicy, type AuditAttributes, type Policy, type PolicyRule } from '../../../runtime/server/audit/policy.js';

const tim = { username: 'tim', groups: ['humans', 'system:authenticated'] };
const tom = { username: 'tom', groups: ['cats'] };

const resource = (over: Partial<AuditAttributes> = {}): AuditAttributes => ({
  user: tim,
  verb: 'get',
  isResourceRequest: true,
  path: '/api/v1/namespaces/default/pods/busybox',
  apiGroup: '',
  namespace: 'default',
  resource: 'pods',
  subresource: '',
  name: 'busybox',
  ...over,
});
const nonResource = (path: string, over: Partial<AuditAttributes> = {}): AuditAttributes => ({
  user: tim,
  verb: 'get',
  isResourceRequest: false,
  path,
  apiGroup: '',
  namespace: '',
  resource: '',
  subresource: '',
  name: '',
  ...over,
});

const rules: Record<string, PolicyRule> = {
  default: { level: 'Metadata' },
  create: { level: 'Request', verbs: ['create'] },
  tims: { level: 'Metadata', users: ['tim'] },
  humans: { level: 'Metadata', userGroups: ['humans'] },
  serviceAccounts: { level: 'Request', userGroups: ['system:serviceaccounts'] },
  getPods: { level: 'RequestResponse', verbs: ['get'], resources: [{ resources: ['pods'] }] },
  getPodLogs: { level: 'Request', verbs: ['get'], resources: [{ resources: ['pods/log'] }] },
  getPodWildcardMatching: { level: 'Request', verbs: ['get'], resources: [{ resources: ['*'] }] },
  getPodResourceWildcardMatching: { level: 'Request', verbs: ['get'], resources: [{ resources: ['*/log'] }] },
  getPodSubResourceWildcardMatching: { level: 'Request', verbs: ['get'], resources: [{ resources: ['pods/*'] }] },
  getClusterRoles: { level: 'Request', verbs: ['get'], resources: [{ group: 'rbac.authorization.k8s.io', resources: ['clusterroles'] }], namespaces: [''] },
  getAnyGroup: { level: 'Request', resources: [{ group: '*' }] },
  getLogs: { level: 'RequestResponse', nonResourceURLs: ['/logs*'] },
  getMetrics: { level: 'Request', nonResourceURLs: ['/metrics'] },
  clusterRoleEdit: { level: 'Request', resources: [{ group: 'rbac.authorization.k8s.io', resources: ['clusterroles'], resourceNames: ['edit'] }] },
  omitResponseStarted: { level: 'Metadata', omitStages: ['ResponseStarted'] },
  omitManagedFields: { level: 'Request', omitManagedFields: true },
  keepManagedFields: { level: 'Request', omitManagedFields: false },
};

function levelFor(ruleNames: string[], attributes: AuditAttributes, policy: Partial<Policy> = {}) {
  return policyRuleEvaluator({ ...policy, rules: ruleNames.map((n) => rules[n]) })(attributes);
}

describe('audit policy rule evaluation', () => {
  const cases: [string, AuditAttributes, string[], string][] = [
    ['a rule without conditions matches everything', resource(), ['default'], 'Metadata'],
    ['a rule without conditions matches non-resource requests', nonResource('/version'), ['default'], 'Metadata'],
    ['verbs', resource({ verb: 'create' }), ['create'], 'Request'],
    ['verbs that differ', resource(), ['create'], 'None'],
    ['users', resource(), ['tims'], 'Metadata'],
    ['users that differ', resource({ user: tom }), ['tims'], 'None'],
    ['user groups', resource(), ['humans'], 'Metadata'],
    ['user groups that differ', resource({ user: tom }), ['humans', 'serviceAccounts'], 'None'],
    ['resources', resource(), ['getPods'], 'RequestResponse'],
    ['a resource rule never matches a non-resource request', nonResource('/api/v1/pods'), ['getPods'], 'None'],
    ['subresources: pods does not match pods/log', resource({ subresource: 'log' }), ['getPods'], 'None'],
    ['subresources: pods/log', resource({ subresource: 'log' }), ['getPods', 'getPodLogs'], 'Request'],
    ['* matches a subresource', resource({ subresource: 'log' }), ['getPodWildcardMatching'], 'Request'],
    ['*/log', resource({ subresource: 'log' }), ['getPodResourceWildcardMatching'], 'Request'],
    ['*/log needs a subresource', resource(), ['getPodResourceWildcardMatching'], 'None'],
    ['pods/* matches pods/log', resource({ subresource: 'log' }), ['getPodSubResourceWildcardMatching'], 'Request'],
    ['pods/* matches pods/status', resource({ subresource: 'status' }), ['getPodSubResourceWildcardMatching'], 'Request'],
    ['the empty namespace is a cluster-scoped resource', resource({ apiGroup: 'rbac.authorization.k8s.io', resource: 'clusterroles', namespace: '', name: 'edit' }), ['getClusterRoles'], 'Request'],
    ['a namespaced request does not meet namespaces [""]', resource({ apiGroup: 'rbac.authorization.k8s.io', resource: 'clusterroles', name: 'edit' }), ['getClusterRoles'], 'None'],
    ['group * without resources matches any group', resource({ apiGroup: 'apps', resource: 'deployments' }), ['getAnyGroup'], 'Request'],
    ['the core group is the empty group', resource({ apiGroup: 'apps' }), ['getPods'], 'None'],
    ['resourceNames', resource({ apiGroup: 'rbac.authorization.k8s.io', resource: 'clusterroles', namespace: '', name: 'edit' }), ['clusterRoleEdit'], 'Request'],
    ['resourceNames that differ', resource({ apiGroup: 'rbac.authorization.k8s.io', resource: 'clusterroles', namespace: '', name: 'view' }), ['clusterRoleEdit'], 'None'],
    ['non-resource URLs with a trailing *', nonResource('/logs/kubelet.log'), ['getLogs'], 'RequestResponse'],
    ['non-resource URLs exactly', nonResource('/metrics'), ['getMetrics'], 'Request'],
    ['non-resource URLs: no prefix match without *', nonResource('/metrics/slis'), ['getMetrics'], 'None'],
    ['the first matching rule wins', resource({ verb: 'create' }), ['tims', 'create'], 'Metadata'],
    ['later rules apply when earlier ones do not match', resource({ verb: 'create', user: tom }), ['tims', 'create'], 'Request'],
    ['no rule matches: None', nonResource('/healthz'), ['getPods', 'getMetrics'], 'None'],
  ];
  it.each(cases)('%s', (_name, attributes, ruleNames, level) => {
    expect(levelFor(ruleNames, attributes).level).toBe(level);
  });

  it('omits the policy stages and the rule stages together', () => {
    const config = levelFor(['omitResponseStarted'], resource(), { omitStages: ['RequestReceived'] });
    expect([...config.omitStages].sort()).toEqual(['RequestReceived', 'ResponseStarted']);
    expect([...levelFor(['omitResponseStarted'], resource()).omitStages]).toEqual(['ResponseStarted']);
  });

  it('takes omitManagedFields from the rule when it says, else from the policy', () => {
    expect(levelFor(['omitManagedFields'], resource()).omitManagedFields).toBe(true);
    expect(levelFor(['keepManagedFields'], resource(), { omitManagedFields: true }).omitManagedFields).toBe(false);
    expect(levelFor(['default'], resource(), { omitManagedFields: true }).omitManagedFields).toBe(true);
    expect(levelFor(['default'], resource()).omitManagedFields).toBe(false);
  });
});

describe('audit policy validation', () => {
  const cases: [string, Policy, string][] = [
    ['a missing level', { rules: [{} as PolicyRule] }, 'rules[0].level: Required value'],
    [
      'an unknown level',
      { rules: [{ level: 'Everything' as 'None' }] },
      'rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse"',
    ],
    [
      'a non-resource URL without a leading slash',
      { rules: [{ level: 'None', nonResourceURLs: ['metrics'] }] },
      "rules[0].nonResourceURLs[0]: Invalid value: \"metrics\": non-resource URL rules must begin with a '/' character",
    ],
    [
      'a wildcard before the end',
      { rules: [{ level: 'None', nonResourceURLs: ['/logs*/x'] }] },
      "rules[0].nonResourceURLs[0]: Invalid value: \"/logs*/x\": non-resource URL wildcards '*' must be the final character of the rule",
    ],
    [
      'resources and non-resource URLs in one rule',
      { rules: [{ level: 'None', nonResourceURLs: ['/metrics'], namespaces: ['default'] }] },
      'rules[0].nonResourceURLs: Invalid value: []string{"/metrics"}: rules cannot apply to both regular resources and non-resource URLs',
    ],
    [
      'a group with a version',
      { rules: [{ level: 'None', resources: [{ group: 'rbac.authorization.k8s.io/v1' }] }] },
      "rules[0].resources.group: Invalid value: \"rbac.authorization.k8s.io/v1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    ],
    [
      'resourceNames without resources',
      { rules: [{ level: 'None', resources: [{ resourceNames: ['edit'] }] }] },
      'rules[0].resources.resourceNames: Invalid value: []string{"edit"}: using resourceNames requires at least one resource',
    ],
    [
      'an unknown stage, at both levels',
      { omitStages: ['Done' as 'Panic'], rules: [{ level: 'None', omitStages: ['Later' as 'Panic'] }] },
      '[omitStages[0]: Invalid value: "Done": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic, rules[0].omitStages[0]: Invalid value: "Later": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic]',
    ],
  ];
  it.each(cases)('refuses %s', (_name, policy, message) => {
    expect(validatePolicy(policy)).toBe(message);
  });

  it('accepts every level, stage and kind of rule', () => {
    const policy: Policy = {
      omitStages: ['RequestReceived'],
      rules: Object.values(rules),
    };
    expect(validatePolicy(policy)).toBeUndefined();
  });
});

describe('audit policy files', () => {
  it('reads YAML with apiVersion audit.k8s.io/v1 and kind Policy', () => {
    const policy = parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n');
    expect(policy.rules).toEqual([{ level: 'Metadata' }]);
    expect(policy.omitStages).toEqual(['RequestReceived']);
  });

  it('refuses another group version', () => {
    expect(() => parsePolicy('apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules:\n- level: Metadata\n')).toThrow(
      'unknown group version field audit.k8s.io/v1beta1, Kind=Policy in policy',
    );
  });

  it('refuses a policy without rules', () => {
    expect(() => parsePolicy('apiVersion: audit.k8s.io/v1\nkind: Policy\n')).toThrow('loaded illegal policy with 0 rules');
  });

  it('refuses a file that is not YAML', () => {
    expect(() => parsePolicy('apiVersion: [')).toThrow(/^failed decoding: /);
  });
});
