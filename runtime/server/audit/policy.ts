// The audit policy (audit.k8s.io/v1 Policy, --audit-policy-file): loaded and validated at start
// with kube-apiserver's messages, then asked once per request which level and stages to record.
// The first rule that matches decides, as kube's policy checker; no match is level None.

import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { isDNS1123Subdomain } from '../../machinery/formats.js';
import { goQuote } from '../../machinery/go-format.js';

export const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type Level = (typeof LEVELS)[number];
export const STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type Stage = (typeof STAGES)[number];

export interface GroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

export interface PolicyRule {
  level: Level;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: GroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

export interface Policy {
  rules: PolicyRule[];
  omitStages?: Stage[];
  omitManagedFields?: boolean;
}

/** What the policy says about one request (kube's RequestAuditConfig). */
export interface RequestAuditConfig {
  level: Level;
  omitStages: ReadonlySet<Stage>;
  omitManagedFields: boolean;
}

/** The request as the policy sees it: authorizer attributes of the authenticated (not impersonated) user. */
export interface AuditAttributes {
  user?: { username: string; groups: string[] };
  verb: string;
  isResourceRequest: boolean;
  path: string;
  apiGroup: string;
  namespace: string;
  resource: string;
  subresource: string;
  name: string;
}

export function levelAtLeast(level: Level, wanted: Level): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(wanted);
}

/** Go's %#v of a []string, as field.Invalid prints a slice. */
const goStrings = (values: string[]) => `[]string{${values.map(goQuote).join(', ')}}`;

function validateOmitStages(stages: unknown[] | undefined, path: string): string[] {
  const errors: string[] = [];
  (stages ?? []).forEach((stage, i) => {
    if (!(STAGES as readonly unknown[]).includes(stage)) {
      errors.push(`${path}[${i}]: Invalid value: ${goQuote(String(stage))}: allowed stages are ${STAGES.join(',')}`);
    }
  });
  return errors;
}

function validateRule(rule: PolicyRule, path: string): string[] {
  const errors: string[] = [];
  const level = rule.level as string | undefined;
  if (level === undefined || level === '') errors.push(`${path}.level: Required value`);
  else if (!(LEVELS as readonly string[]).includes(level)) {
    errors.push(`${path}.level: Unsupported value: ${goQuote(level)}: supported values: ${LEVELS.map(goQuote).join(', ')}`);
  }
  (rule.nonResourceURLs ?? []).forEach((url, i) => {
    if (url === '*') return;
    if (!url.startsWith('/')) {
      errors.push(`${path}.nonResourceURLs[${i}]: Invalid value: ${goQuote(url)}: non-resource URL rules must begin with a '/' character`);
    }
    if (url !== '' && url.slice(0, -1).includes('*')) {
      errors.push(`${path}.nonResourceURLs[${i}]: Invalid value: ${goQuote(url)}: non-resource URL wildcards '*' must be the final character of the rule`);
    }
  });
  for (const gr of rule.resources ?? []) {
    const group = gr.group ?? '';
    if (group !== '' && group !== '*') {
      const msgs = isDNS1123Subdomain(group);
      if (msgs.length > 0) errors.push(`${path}.resources.group: Invalid value: ${goQuote(group)}: ${msgs.join(',')}`);
    }
    if ((gr.resourceNames?.length ?? 0) > 0 && (gr.resources?.length ?? 0) === 0) {
      errors.push(`${path}.resources.resourceNames: Invalid value: ${goStrings(gr.resourceNames!)}: using resourceNames requires at least one resource`);
    }
  }
  errors.push(...validateOmitStages(rule.omitStages, `${path}.omitStages`));
  if ((rule.nonResourceURLs?.length ?? 0) > 0 && ((rule.resources?.length ?? 0) > 0 || (rule.namespaces?.length ?? 0) > 0)) {
    errors.push(`${path}.nonResourceURLs: Invalid value: ${goStrings(rule.nonResourceURLs!)}: rules cannot apply to both regular resources and non-resource URLs`);
  }
  return errors;
}

/** kube's ValidatePolicy; the list joins as field.ErrorList.ToAggregate prints it. */
export function validatePolicy(policy: Policy): string | undefined {
  const errors = validateOmitStages(policy.omitStages, 'omitStages');
  (policy.rules ?? []).forEach((rule, i) => errors.push(...validateRule(rule, `rules[${i}]`)));
  if (errors.length === 0) return undefined;
  return errors.length === 1 ? errors[0] : `[${errors.join(', ')}]`;
}

/** LoadPolicyFromBytes: the file's group version must be audit.k8s.io/v1, it must validate and have rules. */
export function parsePolicy(text: string): Policy {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new Error(`failed decoding: ${(err as Error).message}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error("failed decoding: Object 'Kind' is missing in policy");
  const object = doc as Record<string, unknown>;
  if (typeof object.kind !== 'string' || object.kind === '') throw new Error(`failed decoding: Object 'Kind' is missing in '${JSON.stringify(object)}'`);
  const apiVersion = typeof object.apiVersion === 'string' ? object.apiVersion : '';
  if (apiVersion !== 'audit.k8s.io/v1' || object.kind !== 'Policy') {
    const [group, version] = apiVersion.includes('/') ? apiVersion.split('/', 2) : ['', apiVersion];
    throw new Error(`unknown group version field ${group}/${version}, Kind=${object.kind} in policy`);
  }
  const policy: Policy = {
    rules: Array.isArray(object.rules) ? (object.rules as PolicyRule[]) : [],
    omitStages: object.omitStages as Stage[] | undefined,
    omitManagedFields: object.omitManagedFields === true,
  };
  const invalid = validatePolicy(policy);
  if (invalid) throw new Error(invalid);
  if (policy.rules.length === 0) throw new Error('loaded illegal policy with 0 rules');
  return policy;
}

/** LoadPolicyFromFile, with the prefix kube-apiserver's audit options add. */
export function loadPolicyFile(path: string): Policy {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`loading audit policy file: failed to read file path ${goQuote(path)}: ${(err as Error).message}`);
  }
  try {
    return parsePolicy(text);
  } catch (err) {
    throw new Error(`loading audit policy file: ${(err as Error).message}: from file ${path}`);
  }
}

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function matchesResource(rule: PolicyRule, a: AuditAttributes): boolean {
  if (!a.isResourceRequest) return false;
  // Cluster-scoped resources have the namespace ''.
  if (rule.namespaces?.length && !rule.namespaces.includes(a.namespace)) return false;
  if (!rule.resources?.length) return true;
  const combined = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  for (const gr of rule.resources) {
    if ((gr.group ?? '') !== a.apiGroup && gr.group !== '*') continue;
    if (!gr.resources?.length) return true;
    if (gr.resourceNames?.length && !gr.resourceNames.includes(a.name)) continue;
    for (const res of gr.resources) {
      if (res === combined || res === '*') return true;
      if (a.subresource && res.startsWith('*/') && res.slice(2) === a.subresource) return true;
      if (res.endsWith('/*') && res.slice(0, -2) === a.resource) return true;
    }
  }
  return false;
}

function ruleMatches(rule: PolicyRule, a: AuditAttributes): boolean {
  if (rule.users?.length && (!a.user || !rule.users.includes(a.user.username))) return false;
  if (rule.userGroups?.length && !a.user?.groups.some((g) => rule.userGroups!.includes(g))) return false;
  if (rule.verbs?.length && !rule.verbs.includes(a.verb)) return false;
  if (rule.namespaces?.length || rule.resources?.length) return matchesResource(rule, a);
  if (rule.nonResourceURLs?.length) return !a.isResourceRequest && rule.nonResourceURLs.some((spec) => pathMatches(a.path, spec));
  return true;
}

export type PolicyRuleEvaluator = (attributes: AuditAttributes) => RequestAuditConfig;

/** kube's NewPolicyRuleEvaluator: each rule omits its own stages and the policy's. */
export function policyRuleEvaluator(policy: Policy): PolicyRuleEvaluator {
  const policyStages = new Set(policy.omitStages ?? []);
  const rules = policy.rules.map((rule) => ({
    rule,
    config: {
      level: rule.level,
      omitStages: new Set([...policyStages, ...(rule.omitStages ?? [])]),
      omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields ?? false,
    } satisfies RequestAuditConfig,
  }));
  const fallback: RequestAuditConfig = { level: 'None', omitStages: policyStages, omitManagedFields: policy.omitManagedFields ?? false };
  return (attributes) => rules.find((r) => ruleMatches(r.rule, attributes))?.config ?? fallback;
}
