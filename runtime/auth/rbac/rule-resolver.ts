// The in-memory RBAC policy, kept current by informers (as kube's authorizer reads its listers),
// and kube's rule resolution over it (pkg/registry/rbac/validation DefaultRuleResolver): a user's
// rules are those of every ClusterRoleBinding naming them, then, in a namespace, those of every
// RoleBinding there naming them. Where kube's resolver visits every binding of the scope, bindings
// here are indexed by the user names and groups their subjects match, so resolving a user costs
// the bindings that name them, not all bindings in the cluster; the same bindings are found, in
// binding name order, with the same sources and errors.

import type { Attributes } from '../authorizer.js';
import type { UserInfo } from '../user.js';
import { ruleAllows, type PolicyRule } from './rules.js';

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
  /** Where its role is kept: `namespace/name` among the Roles, the name among the ClusterRoles. */
  roleKey: string;
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

/** describeSubject of kube's binding describers. */
function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === 'ServiceAccount') return `${subject.kind} ${JSON.stringify(`${subject.name}/${subject.namespace || bindingNamespace}`)}`;
  return `${subject.kind} ${JSON.stringify(subject.name)}`;
}

function describeBinding(b: Binding, subject: Subject): string {
  const ref = `${b.roleRef.kind} ${JSON.stringify(b.roleRef.name)} to ${describeSubject(subject, b.namespace)}`;
  return b.namespace ? `RoleBinding ${JSON.stringify(`${b.name}/${b.namespace}`)} of ${ref}` : `ClusterRoleBinding ${JSON.stringify(b.name)} of ${ref}`;
}

/**
 * One subject of a binding, filed under the user name or group it matches (appliesToUser: a
 * ServiceAccount is the user `system:serviceaccount:<ns>:<name>`, in its binding's namespace when
 * it names none). What the authorizer reports for it is built once here, not per request.
 */
interface SubjectEntry {
  binding: Binding;
  /** The subject's place in the binding: the first subject that applies names the source. */
  position: number;
  /** The binding as kube's describer words it for this subject ("RoleBinding "x/ns" of ..."). */
  source: string;
}

function subjectTarget(subject: Subject, bindingNamespace: string): { users: boolean; name: string } | undefined {
  switch (subject.kind) {
    case 'User':
      return { users: true, name: subject.name ?? '' };
    case 'Group':
      return { users: false, name: subject.name ?? '' };
    case 'ServiceAccount': {
      const ns = subject.namespace || bindingNamespace;
      return ns ? { users: true, name: `${SERVICE_ACCOUNT_PREFIX}${ns}:${subject.name ?? ''}` } : undefined;
    }
    default:
      return undefined;
  }
}

/** Binding name first, then the subject's place: the order in which bindings are visited. */
const entryOrder = (x: SubjectEntry, y: SubjectEntry): number =>
  x.binding.name < y.binding.name ? -1 : x.binding.name > y.binding.name ? 1 : x.position - y.position;

function insertSorted(list: SubjectEntry[], entry: SubjectEntry): void {
  let i = list.length;
  while (i > 0 && entryOrder(list[i - 1], entry) > 0) i--;
  list.splice(i, 0, entry);
}

function removeBinding(map: Map<string, SubjectEntry[]>, key: string, b: Binding): void {
  const list = map.get(key);
  if (!list) return;
  const kept = list.filter((e) => e.binding !== b);
  if (kept.length === 0) map.delete(key);
  else map.set(key, kept);
}

const NO_ENTRIES: readonly SubjectEntry[] = [];

/** Bindings of one scope, by the user names and groups their subjects match. */
class BindingIndex {
  private readonly byName = new Map<string, Binding>();
  private readonly byUser = new Map<string, SubjectEntry[]>();
  private readonly byGroup = new Map<string, SubjectEntry[]>();

  get size(): number {
    return this.byName.size;
  }

  set(b: Binding): void {
    this.delete(b.name);
    this.byName.set(b.name, b);
    b.subjects.forEach((subject, position) => {
      const target = subjectTarget(subject, b.namespace);
      if (!target) return;
      const map = target.users ? this.byUser : this.byGroup;
      let list = map.get(target.name);
      if (!list) map.set(target.name, (list = []));
      insertSorted(list, { binding: b, position, source: describeBinding(b, subject) });
    });
  }

  delete(name: string): void {
    const old = this.byName.get(name);
    if (!old) return;
    this.byName.delete(name);
    for (const subject of old.subjects) {
      const target = subjectTarget(subject, old.namespace);
      if (target) removeBinding(target.users ? this.byUser : this.byGroup, target.name, old);
    }
  }

  /**
   * The entries of bindings naming the user, each binding once with the first of its subjects
   * that applies, in binding name order (stable messages). Lists kept sorted make the usual case
   * (the user's bindings found under one name or group) a read of one list.
   */
  matching(user: UserInfo): readonly SubjectEntry[] {
    let found = this.byUser.get(user.name);
    let merged: SubjectEntry[] | undefined;
    for (const group of user.groups) {
      const list = this.byGroup.get(group);
      if (!list) continue;
      if (!found) found = list;
      else (merged ??= [...found]).push(...list);
    }
    if (!merged) return found ? firstPerBinding(found) : NO_ENTRIES;
    return firstPerBinding(merged.sort(entryOrder));
  }
}

/** A sorted list without the later entries of a binding it already has (a user matching two of its subjects). */
function firstPerBinding(list: SubjectEntry[]): readonly SubjectEntry[] {
  for (let i = 1; i < list.length; i++) {
    if (list[i].binding === list[i - 1].binding) return list.filter((e, j) => j === 0 || e.binding !== list[j - 1].binding);
  }
  return list;
}

function bindingOf(obj: RbacObject): Binding {
  const namespace = obj.metadata?.namespace ?? '';
  const roleRef = obj.roleRef ?? {};
  return {
    name: obj.metadata?.name ?? '',
    namespace,
    roleRef,
    roleKey: roleRef.kind === 'Role' ? `${namespace}/${roleRef.name}` : (roleRef.name ?? ''),
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
    if (!this.visitBindings(this.clusterBindings.matching(user), visit)) return;
    if (!namespace) return;
    const index = this.roleBindings.get(namespace);
    if (index) this.visitBindings(index.matching(user), visit);
  }

  /** The rules of the role a binding names, or undefined when it is missing or of no known kind. */
  private rulesOf(binding: Binding): PolicyRule[] | undefined {
    const kind = binding.roleRef.kind;
    return kind === 'Role' ? this.roles.get(binding.roleKey) : kind === 'ClusterRole' ? this.clusterRoles.get(binding.roleKey) : undefined;
  }

  /**
   * The source of the first rule, in visitRulesFor's order, that allows the request: the walk of
   * every authorization, so it calls no visitor and builds nothing.
   */
  allowingSource(a: Attributes): string | undefined {
    const found = this.allowingIn(this.clusterBindings.matching(a.user), a);
    if (found !== undefined || !a.namespace) return found;
    const index = this.roleBindings.get(a.namespace);
    return index && this.allowingIn(index.matching(a.user), a);
  }

  private allowingIn(entries: readonly SubjectEntry[], a: Attributes): string | undefined {
    for (const entry of entries) {
      const rules = this.rulesOf(entry.binding);
      if (rules) for (const rule of rules) if (ruleAllows(a, rule)) return entry.source;
    }
    return undefined;
  }

  private visitBindings(entries: readonly SubjectEntry[], visit: RuleVisitor): boolean {
    for (const { binding, source } of entries) {
      const rules = this.rulesOf(binding);
      if (!rules) {
        const resolved = this.roleReferenceRules(binding.roleRef, binding.namespace);
        if ('error' in resolved && !visit(undefined, undefined, resolved.error)) return false;
        continue;
      }
      for (const rule of rules) if (!visit(source, rule, undefined)) return false;
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
