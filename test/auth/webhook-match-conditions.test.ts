// matchConditions evaluated over a request in kube's CEL environment: the libraries kube's base
// environment has, cel-go's error wordings, the per-expression cost limit, and regular
// expressions (even ones taken from the request) that run in linear time.

import { describe, expect, it } from 'vitest';
import { compileMatchConditions, evaluateMatchConditions, type MatchRequest } from '../../runtime/auth/webhook-match-conditions.js';

const request: MatchRequest = {
  user: 'system:serviceaccount:kube-system:replicaset-controller',
  uid: 'u-1',
  groups: ['system:serviceaccounts', 'system:authenticated'],
  extra: { scopes: ['a', 'b'] },
  resourceAttributes: { namespace: 'kube-system', verb: 'get', group: 'apps', version: 'v1', resource: 'deployments', subresource: '', name: 'x' },
};

function compile(expressions: string[]) {
  const { conditions, causes } = compileMatchConditions(expressions, 'matchConditions');
  expect(causes).toEqual([]);
  return conditions;
}

describe('match conditions with kube libraries', () => {
  it.each([
    "request.user.split(':').size() == 4",
    "request.user.lastIndexOf(':') > 0 && request.user.charAt(0) == 's'",
    "request.user.replace('system:', '', 1).startsWith('serviceaccount')",
    "sets.contains(request.groups, ['system:authenticated'])",
    "request.groups.isSorted() == false && request.groups.indexOf('system:authenticated') == 1",
    "request.user.find('[a-z-]+$') == 'replicaset-controller'",
    "request.user.findAll(':').size() == 3",
    "request.resourceAttributes.namespace.matches('^kube-')",
    "!format.dns1123Subdomain().validate(request.resourceAttributes.resource).hasValue()",
    "request.?nonResourceAttributes.?path.orValue('none') == 'none'",
    "'%s/%s'.format([request.resourceAttributes.group, request.resourceAttributes.resource]) == 'apps/deployments'",
    "request.extra['scopes'].join(',') == 'a,b'",
  ])('%s', (expression) => {
    expect(evaluateMatchConditions(compile([expression]), request)).toEqual({ matches: true });
  });

  it('reports evaluation errors in cel-go words', () => {
    const result = evaluateMatchConditions(compile(['request.nonResourceAttributes.path == "/x"']), request);
    expect(result).toEqual({
      matches: false,
      error: `cel evaluation error: expression 'request.nonResourceAttributes.path == "/x"' resulted in error: no such key: nonResourceAttributes`,
    });
  });

  it('runs a pattern taken from the request in linear time', () => {
    const hostile: MatchRequest = { ...request, user: `${'a'.repeat(30_000)}!`, groups: ['^(a+)+$'] };
    const started = Date.now();
    expect(evaluateMatchConditions(compile(['request.user.matches(request.groups[0])']), hostile)).toEqual({ matches: false });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('stops at the per-expression cost limit', () => {
    const many: MatchRequest = { ...request, groups: Array.from({ length: 2000 }, (_, i) => `g${i}`) };
    const result = evaluateMatchConditions(compile(['request.groups.all(a, request.groups.all(b, a != "" && b != ""))']), many);
    expect(result.matches).toBe(false);
    expect(result.error).toContain('resulted in error: operation cancelled: actual cost limit exceeded');
  });
});
