// The default RBAC policy, reconciled at every start as kube-apiserver's rbac/bootstrap-roles
// post-start hook does (pkg/registry/rbac/reconciliation): a missing object is created; an
// existing one gains the permissions, aggregation selectors, subjects, labels and annotations
// it lacks, and a binding whose roleRef changed is recreated, but nothing is ever taken away;
// an object annotated `rbac.authorization.kubernetes.io/autoupdate: "false"` is left alone.
// The policy itself is data: data/rbac-bootstrap-policy.json (JSON, which parses in a
// millisecond where YAML took hundreds at every start).

import { readFileSync } from 'node:fs';
import { uncoveredRules, type PolicyRule } from '../auth/rbac/rules.js';
import type { Subject } from '../auth/rbac/rule-resolver.js';
import { isStatusError } from '../errors/status-error.js';
import { dataPath } from '../generated-files.js';
import { deepEqual, metaOf, type KubeObject } from '../machinery/object.js';
import type { ResourceRegistry } from '../registry/registry.js';
import { listObjects } from '../registry/list.js';
import type { Store } from '../registry/store.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const RBAC_API_VERSION = `${RBAC_GROUP}/v1`;
const AUTOUPDATE = 'rbac.authorization.kubernetes.io/autoupdate';
const CONTROLLER_PREFIX = 'system:controller:';

interface PolicyFile {
  defaults: { labels: Record<string, string>; annotations: Record<string, string> };
  clusterRoles: { name: string; labels?: Record<string, string>; rules?: PolicyRule[]; aggregationRule?: { clusterRoleSelectors: unknown[] } }[];
  clusterRoleBindings: { name: string; role: string; subjects: Subject[] }[];
  controllerRoles: { name: string; rules: PolicyRule[] }[];
  roles: { namespace: string; name: string; rules: PolicyRule[] }[];
  roleBindings: { namespace: string; name: string; role: string; subjects: Subject[] }[];
}

export interface BootstrapPolicy {
  clusterRoles: KubeObject[];
  clusterRoleBindings: KubeObject[];
  roles: KubeObject[];
  roleBindings: KubeObject[];
}

function withApiGroup(s: Subject): Subject {
  return s.kind === 'ServiceAccount' ? { kind: s.kind, name: s.name, namespace: s.namespace } : { apiGroup: RBAC_GROUP, kind: s.kind, name: s.name };
}

/** The policy file as the RBAC objects it describes. */
export function loadBootstrapPolicy(path = dataPath('rbac-bootstrap-policy.json')): BootstrapPolicy {
  const file = JSON.parse(readFileSync(path, 'utf8')) as PolicyFile;
  const metadata = (name: string, namespace?: string, labels: Record<string, string> = {}) => ({
    name,
    ...(namespace ? { namespace } : {}),
    labels: { ...file.defaults.labels, ...labels },
    annotations: { ...file.defaults.annotations },
  });
  const object = (kind: string, meta: ReturnType<typeof metadata>, body: Record<string, unknown>): KubeObject => ({ apiVersion: RBAC_API_VERSION, kind, metadata: meta, ...body });
  const binding = (kind: string, name: string, roleKind: string, role: string, subjects: Subject[], namespace?: string) =>
    object(kind, metadata(name, namespace), { roleRef: { apiGroup: RBAC_GROUP, kind: roleKind, name: role }, subjects: subjects.map(withApiGroup) });
  const clusterRoles = [
    ...file.clusterRoles.map((r) => object('ClusterRole', metadata(r.name, undefined, r.labels), { ...(r.aggregationRule ? { aggregationRule: r.aggregationRule } : {}), rules: r.rules ?? [] })),
    ...file.controllerRoles.map((r) => object('ClusterRole', metadata(r.name), { rules: r.rules })),
  ];
  const clusterRoleBindings = [
    ...file.clusterRoleBindings.map((b) => binding('ClusterRoleBinding', b.name, 'ClusterRole', b.role, b.subjects)),
    ...file.controllerRoles.map((r) =>
      binding('ClusterRoleBinding', r.name, 'ClusterRole', r.name, [{ kind: 'ServiceAccount', name: r.name.slice(CONTROLLER_PREFIX.length), namespace: 'kube-system' }]),
    ),
  ];
  return {
    clusterRoles,
    clusterRoleBindings,
    roles: file.roles.map((r) => object('Role', metadata(r.name, r.namespace), { rules: r.rules })),
    roleBindings: file.roleBindings.map((b) => binding('RoleBinding', b.name, 'Role', b.role, b.subjects, b.namespace)),
  };
}

const protectedFromUpdate = (obj: KubeObject): boolean => metaOf(obj).annotations?.[AUTOUPDATE] === 'false';

/** Expected labels and annotations under the existing ones (existing values win). */
function mergeMetadata(out: KubeObject, expected: KubeObject): void {
  const meta = metaOf(out);
  const want = metaOf(expected);
  meta.labels = { ...want.labels, ...meta.labels };
  meta.annotations = { ...want.annotations, ...meta.annotations };
}

/** Whether every key of `want` is already in `have` (existing values win, so a key's presence is enough). */
function holdsKeys(have: Record<string, string> | undefined, want: Record<string, string> | undefined): boolean {
  // Absent, merging makes it an empty map: a change.
  if (have === undefined) return false;
  for (const key in want) if (!(key in have)) return false;
  return true;
}

/** Whether mergeMetadata would leave the object as it is. */
function metadataHolds(existing: KubeObject, expected: KubeObject): boolean {
  const meta = metaOf(existing);
  const want = metaOf(expected);
  return holdsKeys(meta.labels, want.labels) && holdsKeys(meta.annotations, want.annotations);
}

/**
 * Whether the role already has all `expected` asks, checked without copying it: the common start,
 * with the policy in place, then reads and compares but builds nothing.
 */
function roleHolds(existing: KubeObject, expected: KubeObject): boolean {
  if (!metadataHolds(existing, expected) || !deepEqual(existing.rules ?? [], expected.rules ?? [])) return false;
  const wanted = expected.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined;
  const have = existing.aggregationRule as { clusterRoleSelectors?: unknown[] } | null | undefined;
  if (!wanted) return !have;
  const selectors = have?.clusterRoleSelectors ?? [];
  return (wanted.clusterRoleSelectors ?? []).every((s) => selectors.some((h) => deepEqual(h, s)));
}

/** The role as reconciled against `expected`; undefined when nothing changes. */
export function reconcileRole(existing: KubeObject, expected: KubeObject): KubeObject | undefined {
  if (roleHolds(existing, expected)) return undefined;
  const out = structuredClone(existing) as KubeObject & { rules?: PolicyRule[]; aggregationRule?: { clusterRoleSelectors?: unknown[] } | null };
  mergeMetadata(out, expected);
  // Rules as shipped cover themselves; only edited ones need the (costlier) covering check.
  const missing = deepEqual(existing.rules ?? [], expected.rules ?? []) ? [] : uncoveredRules((existing.rules as PolicyRule[] | undefined) ?? [], (expected.rules as PolicyRule[] | undefined) ?? []);
  if (missing.length > 0) out.rules = [...(out.rules ?? []), ...missing];
  const wanted = expected.aggregationRule as { clusterRoleSelectors?: unknown[] } | undefined;
  if (!wanted && out.aggregationRule) delete out.aggregationRule;
  if (wanted) {
    const have = out.aggregationRule?.clusterRoleSelectors ?? [];
    const absent = (wanted.clusterRoleSelectors ?? []).filter((s) => !have.some((h) => deepEqual(h, s)));
    if (absent.length > 0) out.aggregationRule = { ...out.aggregationRule, clusterRoleSelectors: [...have, ...absent] };
  }
  return deepEqual(out, existing) ? undefined : out;
}

const sameSubject = (a: Subject, b: Subject): boolean => a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '') && (a.apiGroup ?? '') === (b.apiGroup ?? '');

/** Whether the binding already has the expected roleRef, subjects, labels and annotations, checked without copying it. */
function bindingHolds(existing: KubeObject, expected: KubeObject): boolean {
  const have = (existing.subjects as Subject[] | undefined) ?? [];
  return (
    metadataHolds(existing, expected) &&
    deepEqual(existing.roleRef, expected.roleRef) &&
    ((expected.subjects as Subject[] | undefined) ?? []).every((s) => have.some((h) => sameSubject(h, s)))
  );
}

/** The binding as reconciled: `recreate` when its roleRef differs (a roleRef cannot be changed). */
export function reconcileBinding(existing: KubeObject, expected: KubeObject): { object: KubeObject; recreate: boolean } | undefined {
  if (bindingHolds(existing, expected)) return undefined;
  const out = structuredClone(existing) as KubeObject & { subjects?: Subject[] };
  mergeMetadata(out, expected);
  const have = out.subjects ?? [];
  const absent = ((expected.subjects as Subject[] | undefined) ?? []).filter((s) => !have.some((h) => sameSubject(h, s)));
  if (absent.length > 0) out.subjects = [...have, ...absent];
  if (!deepEqual(existing.roleRef, expected.roleRef)) {
    out.roleRef = expected.roleRef;
    return { object: out, recreate: true };
  }
  return deepEqual(out, existing) ? undefined : { object: out, recreate: false };
}

async function getIfExists(store: Store, namespace: string | undefined, name: string): Promise<KubeObject | undefined> {
  try {
    return await store.get(namespace, name);
  } catch (err) {
    if (isStatusError(err) && err.code === 404) return undefined;
    throw err;
  }
}

/** What reconciling `expected` against `existing` (absent: not there) would write; undefined when nothing. */
function wantedWrite(existing: KubeObject | undefined, expected: KubeObject, binding: boolean): 'create' | 'update' | 'recreate' | undefined {
  if (!existing) return 'create';
  if (protectedFromUpdate(existing)) return undefined;
  if (!binding) return reconcileRole(existing, expected) ? 'update' : undefined;
  const result = reconcileBinding(existing, expected);
  return result ? (result.recreate ? 'recreate' : 'update') : undefined;
}

/** Creates or reconciles one object; a conflict with a concurrent writer (another replica) is tried again. */
async function ensure(store: Store, expected: KubeObject, binding: boolean, known: KubeObject | undefined): Promise<void> {
  const meta = metaOf(expected);
  let existing = known;
  for (let attempt = 0; ; attempt++) {
    try {
      if (attempt > 0) existing = await getIfExists(store, meta.namespace, meta.name ?? '');
      const write = wantedWrite(existing, expected, binding);
      if (!write) return;
      if (write === 'create') {
        await store.create(meta.namespace, structuredClone(expected));
      } else if (!binding) {
        await store.update(meta.namespace, meta.name ?? '', reconcileRole(existing!, expected)!);
      } else {
        const result = reconcileBinding(existing!, expected)!;
        if (write === 'update') {
          await store.update(meta.namespace, meta.name ?? '', result.object);
        } else {
          // A roleRef cannot change: delete, then create with the expected one.
          await store.delete(meta.namespace, meta.name ?? '', { preconditions: { uid: metaOf(existing!).uid } });
          const fresh = structuredClone(result.object);
          delete metaOf(fresh).resourceVersion;
          delete metaOf(fresh).uid;
          delete metaOf(fresh).creationTimestamp;
          await store.create(meta.namespace, fresh);
        }
      }
      return;
    } catch (err) {
      const retryable = isStatusError(err) && (err.code === 409 || err.code === 404);
      if (!retryable || attempt >= 3) throw err;
    }
  }
}

/** Every object of the kind, as a Most Recent list (the storage answers it while the watch cache still loads). */
async function existingObjects(store: Store): Promise<Map<string, KubeObject>> {
  const list = await listObjects(store, undefined);
  return new Map(list.items.map((o) => [`${metaOf(o).namespace ?? ''}/${metaOf(o).name}`, { apiVersion: store.apiVersion, kind: store.definition.kind, ...o }]));
}

/** What reconciling needs of the server's logger: somewhere to report an object it could not write. */
export interface PolicyLogger {
  error(message: string, ...args: unknown[]): void;
}

export async function reconcileBootstrapPolicy(registry: ResourceRegistry, logger: PolicyLogger, policy = loadBootstrapPolicy()): Promise<void> {
  const storeOf = (plural: string) => registry.storeFor(RBAC_GROUP, 'v1', plural);
  const steps: [string, KubeObject[], boolean][] = [
    ['clusterroles', policy.clusterRoles, false],
    ['clusterrolebindings', policy.clusterRoleBindings, true],
    ['roles', policy.roles, false],
    ['rolebindings', policy.roleBindings, true],
  ];
  // One list per kind: a start with the policy in place reads four lists and writes nothing.
  await Promise.all(
    steps.map(async ([plural, objects, binding]) => {
      const store = storeOf(plural);
      if (!store) return;
      const fail = (obj: KubeObject) => (err: Error) => logger.error(`unable to reconcile ${plural} ${JSON.stringify(metaOf(obj).name)}: ${err.message}`);
      let existing: Map<string, KubeObject>;
      try {
        existing = await existingObjects(store);
      } catch (err) {
        logger.error(`unable to reconcile ${plural}: ${(err as Error).message}`);
        return;
      }
      await Promise.all(
        objects.map((obj) => {
          const current = existing.get(`${metaOf(obj).namespace ?? ''}/${metaOf(obj).name}`);
          return wantedWrite(current, obj, binding) ? ensure(store, obj, binding, current).catch(fail(obj)) : undefined;
        }),
      );
    }),
  );
}
