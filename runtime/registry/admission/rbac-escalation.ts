// RBAC escalation prevention on writes of the four RBAC kinds, where kube-apiserver's RBAC
// storage checks it (pkg/registry/rbac/*/policybased): after mutating admission, before the
// kind's validation. system:masters may grant anything. A Role or ClusterRole needs `escalate`
// on it or every permission it grants; a binding needs `bind` on its role or every permission
// of the role. The server's own writes carry no user and are not checked (kube's loopback
// client is in system:masters).

import type { Attributes, AuthorizationResult } from '../../auth/authorizer.js';
import { escalationMessage, FULL_AUTHORITY } from '../../auth/rbac/escalation.js';
import type { PolicyRule } from '../../auth/rbac/rules.js';
import type { RoleRef } from '../../auth/rbac/rule-resolver.js';
import { SYSTEM_MASTERS, type UserInfo } from '../../auth/user.js';
import { forbidden } from '../../errors/status-error.js';
import { deepEqual, metaOf } from '../../machinery/object.js';
import type { AdmissionAttributes, AdmissionPlugin } from './admission.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const ROLES = new Set(['roles', 'clusterroles']);
const BINDINGS = new Set(['rolebindings', 'clusterrolebindings']);

export interface EscalationPolicy {
  /** Every rule the user holds in the namespace ('' for cluster-wide), and resolution errors. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] };
  /** The rules a roleRef names, or kube's not-found message for it. */
  roleReferenceRules(ref: RoleRef, namespace: string): Promise<{ rules: PolicyRule[] } | { error: string }>;
  /** The server's whole authorizer chain (asked about `escalate` and `bind`). */
  authorize(attributes: Attributes): AuthorizationResult | Promise<AuthorizationResult>;
}

/** Only the fields the garbage collector writes changed (IsOnlyMutatingGCFields): nothing granted. */
function onlyGCFieldsChanged(obj: Record<string, unknown>, old: Record<string, unknown> | undefined): boolean {
  if (!old) return false;
  const strip = (o: Record<string, unknown>) => {
    const meta = { ...metaOf(o) } as Record<string, unknown>;
    delete meta.ownerReferences;
    delete meta.finalizers;
    delete meta.resourceVersion;
    delete meta.managedFields;
    return { ...o, metadata: meta };
  };
  return deepEqual(strip(obj), strip(old));
}

async function allowed(policy: EscalationPolicy, user: UserInfo, verb: string, resource: string, name: string, namespace: string, apiGroup: string): Promise<boolean> {
  const result = await policy.authorize({
    user,
    verb,
    isResourceRequest: true,
    path: '',
    namespace,
    apiGroup,
    apiVersion: '*',
    resource,
    subresource: '',
    name,
  });
  return result.decision === 'allow';
}

export function rbacEscalationPrevention(policy: EscalationPolicy): AdmissionPlugin {
  return {
    name: 'RBACEscalation',
    handles: (a) =>
      a.definition.group === RBAC_GROUP &&
      a.subresource === '' &&
      (ROLES.has(a.definition.plural) || BINDINGS.has(a.definition.plural)) &&
      a.user !== undefined &&
      !a.user.groups.includes(SYSTEM_MASTERS),
    async admit(a: AdmissionAttributes) {
      const user = a.user!;
      const obj = a.object as Record<string, unknown>;
      if (onlyGCFieldsChanged(obj, a.oldObject as Record<string, unknown> | undefined)) return;
      const plural = a.definition.plural;
      const name = metaOf(obj).name ?? '';
      const gr = { group: RBAC_GROUP, resource: plural };
      const refuse = (why: string) => forbidden(gr, name, why);
      if (ROLES.has(plural)) {
        // The name the request named: none on create, as RequestInfo has none then.
        const requestName = a.operation === 'CREATE' ? '' : name;
        if (await allowed(policy, user, 'escalate', plural, requestName, a.namespace, RBAC_GROUP)) return;
        const held = policy.rulesFor(user, a.namespace);
        const why = escalationMessage(user, held, (obj.rules as PolicyRule[] | undefined) ?? []);
        if (why) throw refuse(why);
        const rule = obj.aggregationRule;
        const oldRule = (a.oldObject as Record<string, unknown> | undefined)?.aggregationRule;
        if (plural === 'clusterroles' && rule !== undefined && rule !== null && !deepEqual(rule, oldRule)) {
          if (escalationMessage(user, held, FULL_AUTHORITY)) throw refuse('must have cluster-admin privileges to use the aggregationRule');
        }
        return;
      }
      const ref = (obj.roleRef ?? {}) as RoleRef;
      const refResource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : undefined;
      if (refResource && (await allowed(policy, user, 'bind', refResource, ref.name ?? '', a.namespace, ref.apiGroup ?? ''))) return;
      const resolved = await policy.roleReferenceRules(ref, a.namespace);
      if ('error' in resolved) throw refuse(resolved.error);
      const why = escalationMessage(user, policy.rulesFor(user, a.namespace), resolved.rules);
      if (why) throw refuse(why);
    },
  };
}
