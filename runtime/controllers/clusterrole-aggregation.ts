// kube-controller-manager's clusterrole-aggregation controller, in process: a ClusterRole with
// an aggregationRule has as rules the union of the rules of every other ClusterRole its
// selectors match, in name order, each rule once. It follows ClusterRoles through an informer
// and writes through the store, so its writes are API writes (watchers see them).

import type { KubeObject } from '../machinery/object.js';
import { deepEqual, metaOf } from '../machinery/object.js';
import type { Store } from '../registry/store.js';
import { Informer } from './informer.js';
import type { KeyedQueue } from './keyed-queue.js';

interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** metav1.LabelSelectorAsSelector semantics; an unknown operator matches nothing. */
export function labelSelectorMatches(selector: LabelSelector, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const req of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, req.key);
    const values = req.values ?? [];
    switch (req.operator) {
      case 'In':
        if (!has || !values.includes(labels[req.key])) return false;
        break;
      case 'NotIn':
        if (has && values.includes(labels[req.key])) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

const selectorsOf = (role: KubeObject): LabelSelector[] | undefined =>
  (role.aggregationRule as { clusterRoleSelectors?: LabelSelector[] } | undefined | null)?.clusterRoleSelectors ?? undefined;

/**
 * JSON text that two values share exactly when deepEqual holds for them (keys sorted, keys whose
 * value is undefined left out): one Set lookup per rule where comparing with every rule so far
 * made an aggregate of many rules cost milliseconds at each start.
 */
function canonicalJSON(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJSON).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJSON((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

export class ClusterRoleAggregator {
  private readonly roles = new Map<string, KubeObject>();
  private readonly informer: Informer;

  constructor(
    private readonly store: Store,
    private readonly queue: KeyedQueue,
  ) {
    const seen = (role: KubeObject) => {
      this.roles.set(metaOf(role).name ?? '', role);
      this.enqueueAll();
    };
    this.informer = new Informer(store, {
      onList: (all) => {
        this.roles.clear();
        for (const role of all) this.roles.set(metaOf(role).name ?? '', role);
        this.enqueueAll();
      },
      onAdd: seen,
      onUpdate: seen,
      onDelete: (role) => {
        this.roles.delete(metaOf(role).name ?? '');
        this.enqueueAll();
      },
    });
  }

  start(): Promise<void> {
    return this.informer.start();
  }

  close(): void {
    this.informer.close();
  }

  /** Any change may alter any aggregate (a label added or removed), so every aggregate is looked at. */
  private enqueueAll(): void {
    for (const [name, role] of this.roles) {
      if (selectorsOf(role)) void this.queue.enqueue(`clusterrole-aggregation:${name}`, () => this.sync(name));
    }
  }

  /** The rules the aggregate should have, from the roles known now (each rule once, as deepEqual tells rules apart). */
  aggregatedRules(aggregate: KubeObject): unknown[] {
    const name = metaOf(aggregate).name;
    const rules: unknown[] = [];
    const seen = new Set<string>();
    const sorted = [...this.roles.values()].sort((a, b) => ((metaOf(a).name ?? '') < (metaOf(b).name ?? '') ? -1 : 1));
    for (const selector of selectorsOf(aggregate) ?? []) {
      for (const role of sorted) {
        if (metaOf(role).name === name || !labelSelectorMatches(selector, metaOf(role).labels ?? {})) continue;
        for (const rule of (role.rules as unknown[] | undefined) ?? []) {
          const key = canonicalJSON(rule);
          if (seen.has(key)) continue;
          seen.add(key);
          rules.push(rule);
        }
      }
    }
    return rules;
  }

  private async sync(name: string): Promise<void> {
    const role = this.roles.get(name);
    if (!role || !selectorsOf(role)) return;
    const rules = this.aggregatedRules(role);
    if (deepEqual(rules, role.rules ?? [])) return;
    // Gone meanwhile, or storage away: the informer's next event brings the aggregate back here.
    await this.store.guaranteedUpdate(undefined, name, (current) => ({ ...current, rules }), {}).catch(() => undefined);
  }
}
