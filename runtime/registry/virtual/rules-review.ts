// SelfSubjectRulesReview: the rules the caller holds in a namespace, as the authorizer chain can
// list them (authorizer.RuleResolver). As kube-apiserver's REST answers: a namespace is required
// (400), the response is a fresh object holding only status, and both rule lists are always
// there; an authorizer that cannot list its rules makes the answer incomplete.

import { isRuleResolver } from '../../auth/authorizer.js';
import { badRequest } from '../../errors/status-error.js';
import { isPlainObject, type KubeObject } from '../../machinery/object.js';
import { requireAccess, type VirtualRequest } from './index.js';

export async function selfSubjectRulesReview(obj: KubeObject, request: VirtualRequest): Promise<KubeObject> {
  const spec = isPlainObject(obj.spec) ? obj.spec : {};
  const namespace = typeof spec.namespace === 'string' ? spec.namespace : '';
  if (namespace === '') throw badRequest('no namespace on request');
  const { authorizer } = requireAccess(request);
  const rules = isRuleResolver(authorizer)
    ? await authorizer.rulesFor(request.user, namespace)
    : { resourceRules: [], nonResourceRules: [], incomplete: true };
  const status: Record<string, unknown> = {
    resourceRules: rules.resourceRules.map((r) => ({
      verbs: r.verbs,
      apiGroups: r.apiGroups,
      resources: r.resources,
      ...(r.resourceNames?.length ? { resourceNames: r.resourceNames } : {}),
    })),
    nonResourceRules: rules.nonResourceRules.map((r) => ({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs })),
    incomplete: rules.incomplete,
  };
  if (rules.evaluationError) status.evaluationError = rules.evaluationError;
  return { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { creationTimestamp: null }, spec: {}, status };
}
