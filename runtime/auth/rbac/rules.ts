// PolicyRule matching and covering, as kube's rbac/v1 evaluation helpers and the registry's
// validation package define them: which request a rule allows, whether one set of rules holds
// every permission of another (escalation prevention), and the compact text of a rule that
// kube's escalation message lists.

import type { Attributes } from '../authorizer.js';

export interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

const ALL = '*';

const includes = (list: readonly string[] | undefined, value: string): boolean => list !== undefined && list.includes(value);

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return includes(rule.verbs, ALL) || includes(rule.verbs, verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return includes(rule.apiGroups, ALL) || includes(rule.apiGroups, group);
}

/** `combined` is `resource/subresource`; `*\/<subresource>` grants that subresource of every resource. */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    if (subresource && r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

/** A rule without resourceNames covers every name (including none, as for list and create). */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  return !rule.resourceNames || rule.resourceNames.length === 0 || rule.resourceNames.includes(name);
}

/** Exact, or a prefix when the rule's URL ends in `*`. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === ALL || url === path) return true;
    if (url.endsWith('*') && path.startsWith(trimStars(url))) return true;
  }
  return false;
}

function trimStars(s: string): string {
  let end = s.length;
  while (end > 0 && s[end - 1] === '*') end--;
  return s.slice(0, end);
}

export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  if (!verbMatches(rule, a.verb)) return false;
  if (!a.isResourceRequest) return nonResourceURLMatches(rule, a.path);
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  return apiGroupMatches(rule, a.apiGroup) && resourceMatches(rule, combined, a.subresource) && resourceNameMatches(rule, a.name);
}

/** One rule per group x resource x verb (x name), and per URL x verb: the unit of covering. */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  const verbs = rule.verbs ?? [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of verbs) {
        if (rule.resourceNames && rule.resourceNames.length > 0) {
          for (const name of rule.resourceNames) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        } else {
          out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        }
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) for (const verb of verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  return out;
}

const hasAll = (set: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean => (wanted ?? []).every((w) => includes(set, w));

function resourcesCoverAll(owned: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (includes(owned, ALL) || hasAll(owned, wanted)) return true;
  for (const path of wanted ?? []) {
    if (includes(owned, path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0 || !includes(owned, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, path: string): boolean {
  return owner === path || (owner.endsWith('*') && path.startsWith(trimStars(owner)));
}

function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = includes(owner.verbs, ALL) || hasAll(owner.verbs, sub.verbs);
  const groups = includes(owner.apiGroups, ALL) || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourcesCoverAll(owner.resources, sub.resources);
  const urls = (sub.nonResourceURLs ?? []).every((p) => (owner.nonResourceURLs ?? []).some((o) => nonResourceURLCovers(o, p)));
  const ownerNames = owner.resourceNames ?? [];
  const names = (sub.resourceNames ?? []).length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, sub.resourceNames);
  return verbs && groups && resources && names && urls;
}

/** The parts of `wanted` that no rule of `owned` covers (empty when all are held). */
export function uncoveredRules(owned: readonly PolicyRule[], wanted: readonly PolicyRule[]): PolicyRule[] {
  const missing: PolicyRule[] = [];
  for (const rule of wanted) {
    for (const sub of breakdownRule(rule)) if (!owned.some((o) => ruleCovers(o, sub))) missing.push(sub);
  }
  return missing;
}

/** Merges rules of one group and one resource (and at most one name) that differ only by verb. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, PolicyRule>();
  for (const rule of rules) {
    const names = rule.resourceNames ?? [];
    const isSimple = names.length <= 1 && (rule.nonResourceURLs ?? []).length === 0 && rule.apiGroups?.length === 1 && rule.resources?.length === 1;
    if (!isSimple) {
      out.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups, rule.resources, names.length > 0, names[0] ?? '']);
    const existing = simple.get(key);
    if (existing) existing.verbs = [...(existing.verbs ?? []), ...(rule.verbs ?? [])];
    else simple.set(key, { ...rule, verbs: [...(rule.verbs ?? [])] });
  }
  return [...out, ...simple.values()];
}

/** Go's %q of a []string: `["a" "b"]`. */
const quoteList = (list: readonly string[]): string => `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;

/** rbacv1helpers.CompactString: `{APIGroups:[""], Resources:["pods"], Verbs:["get"]}`. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if (rule.apiGroups?.length) parts.push(`APIGroups:${quoteList(rule.apiGroups)}`);
  if (rule.resources?.length) parts.push(`Resources:${quoteList(rule.resources)}`);
  if (rule.nonResourceURLs?.length) parts.push(`NonResourceURLs:${quoteList(rule.nonResourceURLs)}`);
  if (rule.resourceNames?.length) parts.push(`ResourceNames:${quoteList(rule.resourceNames)}`);
  if (rule.verbs?.length) parts.push(`Verbs:${quoteList(rule.verbs)}`);
  return `{${parts.join(', ')}}`;
}
