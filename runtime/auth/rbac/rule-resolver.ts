// The in-memory RBAC policy, kept current by informers (as kube's authorizer reads its listers),
// and kube's rule resolution over it (pkg/registry/rbac/validation DefaultRuleResolver): a user's
// rules are those of every ClusterRoleBinding naming them, then, in a namespace, those of every
// RoleBinding there naming them. Bindings are indexed by subject, so resolving a user costs the
// bindings that name them, not all bindings in the cluster.

import type { UserInfo } from '../user.js';
import type { PolicyRule } from './rules.js';

export interface Subject {
  kind?: string;
  apiGroup?: string;
  name?: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup?: string;
  kind?: string;
  name?: string;
}

interface Binding {
  name: string;
  /** '' for a ClusterRoleBinding. */
  namespace: string;
  roleRef: RoleRef;
  subjects: Subject[];
}

interface RbacObject {
  metadata?: { name?: string; namespace?: string };
  rules?: PolicyRule[] | null;
  roleRef?: RoleRef;
  subjects?: Subject[] | null;
}

const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/**
 * Called for each rule that applies, with where it came from, or with an error of resolution
 * (a missing role); returning false stops the walk.
 */
export type RuleVisitor = (source: string | undefined, rule: PolicyRule | undefined, error: string | undefined) => boolean;

/** The keys a subject is found under; a ServiceAccount without a namespace is in its binding's. */
function subjectKey(subject: Subject, bindingNamespace: string): string | undefined {
  switch (subject.kind) {
    case 'User':
      return `u:${subject.name}`;
    case 'Group':
      return `g:${subject.name}`;
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return ns ? `u:${SERVICE_ACCOUNT_PREFIX}${ns}:${subject.name}` : undefined;
    }
    default:
      return undefined;
  }
}

function userKeys(user: UserInfo): string[] {
  return [`u:${user.name}`, ...user.groups.map((g) => `g:${g}`)];
}

/** describeSubject of kube's binding describers. */
function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') return `${subject.kind} ${JSON.stringify(`${subject.name}/${subject.namespace || bindingNamespace}`)}`;
  return `${subject.kind} ${JSON.stringify(subject.name)}`;
}

function describeBinding(b: Binding, subject: Subject): string {
  const ref = `${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(subject, b.namespace)}`;
  return b.namespace ? `RoleBinding ${JSON.stringify(`${b.name}/${b.namespace}`)} of ${ref}` : `ClusterRoleBinding ${JSON.stringify(b.name)} of ${ref}`;
}

/** Bindings of one scope, by subject key. */
class BindingIndex {
  private readonly byName = new Map<string, Binding>();
  private readonly bySubject = new Map<string, Set<Binding>>();

  get size(): number {
    return this.byName.size;
  }

  set(b: Binding): void {
    this.delete(b.name);
    this.byName.set(b.name, b);
    for (const s of b.subjects) {
      const key = subjectKey(s, b.namespace);
      if (key === undefined) continue;
      let set = this.bySubject.get(key);
      if (!set) this.bySubject.set(key, (set = new Set()));
      set.add(b);
    }
  }

  delete(name: string): void {
    const old = this.byName.get(name);
    if (!old) return;
    this.byName.delete(name);
    for (const s of old.subjects) {
      const key = subjectKey(s, old.namespace);
      const set = key === undefined ? undefined : this.bySubject.get(key);
      set?.delete(old);
      if (set && set.size === 0) this.bySubject.delete(key!);
    }
  }

  /** Bindings naming any of the keys, each once, in name order (stable messages). */
  matching(keys: readonly string[]): Binding[] {
    let found: Set<Binding> | undefined;
    for (const key of keys) {
      const set = this.bySubject.get(key);
      if (!set) continue;
      found ??= new Set();
      for (const b of set) found.add(b);
    }
    if (!found) return [];
    const list = [...found];
    if (list.length > 1) list.sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
    return list;
  }
}

function appliesTo(b: Binding, keys: readonly string[]): Subject | undefined {
  return b.subjects.find((s) => {
    const key = subjectKey(s, b.namespace);
    return key !== undefined && keys.includes(key);
  });
}

function bindingOf(obj: RbacObject): Binding {
  return {
    name: obj.metadata?.name ?? '',
    namespace: obj.metadata?.namespace ?? '',
    roleRef: obj.roleRef ?? {},
    subjects: obj.subjects ?? [],
  };
}

export class RuleResolver {
  private readonly clusterRoles = new Map<string, PolicyRule[]>();
  /** `namespace/name` to rules. */
  private readonly roles = new Map<string, PolicyRule[]>();
  private clusterBindings = new BindingIndex();
  private readonly roleBindings = new Map<string, BindingIndex>();

  setClusterRole(obj: RbacObject): void {
    this.clusterRoles.set(obj.metadata?.name ?? '', obj.rules ?? []);
  }
  deleteClusterRole(obj: RbacObject): void {
    this.clusterRoles.delete(obj.metadata?.name ?? '');
  }
  setRole(obj: RbacObject): void {
    this.roles.set(`${obj.metadata?.namespace}/${obj.metadata?.name}`, obj.rules ?? []);
  }
  deleteRole(obj: RbacObject): void {
    this.roles.delete(`${obj.metadata?.namespace}/${obj.metadata?.name}`);
  }
  setClusterRoleBinding(obj: RbacObject): void {
    this.clusterBindings.set(bindingOf(obj));
  }
  deleteClusterRoleBinding(obj: RbacObject): void {
    this.clusterBindings.delete(obj.metadata?.name ?? '');
  }
  setRoleBinding(obj: RbacObject): void {
    const b = bindingOf(obj);
    let index = this.roleBindings.get(b.namespace);
    if (!index) this.roleBindings.set(b.namespace, (index = new BindingIndex()));
    index.set(b);
  }
  deleteRoleBinding(obj: RbacObject): void {
    const ns = obj.metadata?.namespace ?? '';
    const index = this.roleBindings.get(ns);
    index?.delete(obj.metadata?.name ?? '');
    if (index && index.size === 0) this.roleBindings.delete(ns);
  }
  /** Forgets one kind entirely, before a relist hands over its whole set again. */
  clear(kind: 'clusterroles' | 'roles' | 'clusterrolebindings' | 'rolebindings'): void {
    if (kind === 'clusterroles') this.clusterRoles.clear();
    else if (kind === 'roles') this.roles.clear();
    else if (kind === 'rolebindings') this.roleBindings.clear();
    else this.clusterBindings = new BindingIndex();
  }

  /** GetRoleReferenceRules: the rules a binding's roleRef names, or kube's lister error. */
  roleReferenceRules(ref: RoleRef, namespace: string): { rules: PolicyRule[] } | { error: string } {
    if (ref.kind === 'Role') {
      const rules = this.roles.get(`${namespace}/${ref.name}`);
      return rules ? { rules } : { error: `role.rbac.authorization.k8s.io ${JSON.stringify(ref.name ?? '')} not found` };
    }
    if (ref.kind === 'ClusterRole') {
      const rules = this.clusterRoles.get(ref.name ?? '');
      return rules ? { rules } : { error: `clusterrole.rbac.authorization.k8s.io ${JSON.stringify(ref.name ?? '')} not found` };
    }
    return { error: `unsupported role reference kind: ${JSON.stringify(ref.kind ?? '')}` };
  }

  /** VisitRulesFor: cluster bindings first, then the namespace's bindings. */
  visitRulesFor(user: UserInfo, namespace: string, visit: RuleVisitor): void {
    const keys = userKeys(user);
    if (!this.visitBindings(this.clusterBindings.matching(keys), keys, '', visit)) return;
    if (!namespace) return;
    const index = this.roleBindings.get(namespace);
    if (index) this.visitBindings(index.matching(keys), keys, namespace, visit);
  }

  private visitBindings(bindings: readonly Binding[], keys: readonly string[], namespace: string, visit: RuleVisitor): boolean {
    for (const b of bindings) {
      const subject = appliesTo(b, keys);
      if (!subject) continue;
      const resolved = this.roleReferenceRules(b.roleRef, namespace);
      if ('error' in resolved) {
        if (!visit(undefined, undefined, resolved.error)) return false;
        continue;
      }
      const source = describeBinding(b, subject);
      for (const rule of resolved.rules) if (!visit(source, rule, undefined)) return false;
    }
    return true;
  }

  /** RulesFor: every rule the user holds in the namespace, and the resolution errors met. */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    this.visitRulesFor(user, namespace, (_source, rule, error) => {
      if (rule) rules.push(rule);
      if (error) errors.push(error);
      return true;
    });
    return { rules, errors };
  }
}
