// --authorization-mode=ABAC (pkg/auth/authorizer/abac): --authorization-policy-file holds one JSON
// policy per line, blank lines and lines starting with # skipped. A line with apiVersion
// abac.authorization.kubernetes.io/v1beta1 (or v0) and kind Policy is read in that version; a line
// missing either is the unversioned v0 form, which widens empty fields as kube's conversion does
// (no user or group: every authenticated user; no namespace: all, no resource: all, neither:
// every non-resource path too). In both versions a user or group of "*" means
// system:authenticated. A request is allowed by the first policy whose subject, verb (readonly
// allows get, list and watch only), and either resource (namespace, resource, apiGroup, each
// equal or "*") or non-resource path ("*", equal, or a prefix ending in "*") match; otherwise
// ABAC has no opinion, "No policy matched.". A line that does not decode stops the server with
// kube-apiserver's "error reading policy file <path>, line <n>: <line>: <why>".

import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { goJsonSyntaxError } from '../machinery/go-json.js';
import { goPathError } from '../machinery/go-file-error.js';
import type { Attributes, AuthorizationResult, Authorizer, NonResourceRuleInfo, ResourceRuleInfo, RuleResolver, RulesResult } from './authorizer.js';
import { ALL_AUTHENTICATED, type UserInfo } from './user.js';

const GROUP = 'abac.authorization.kubernetes.io';
/** Where kube's abac scheme is made; NotRegisteredError names it. */
const SCHEME_NAME = 'k8s.io/kubernetes/pkg/apis/abac/register.go:33';
/** bufio.Scanner's default buffer: a line that does not fit ends the read. */
const MAX_SCAN_TOKEN = 64 * 1024;

export interface PolicySpec {
  user: string;
  group: string;
  readonly: boolean;
  apiGroup: string;
  resource: string;
  namespace: string;
  nonResourcePath: string;
}

const STRING_FIELDS = ['user', 'group', 'apiGroup', 'resource', 'namespace', 'nonResourcePath'] as const;
const V0_STRING_FIELDS = ['user', 'group', 'resource', 'namespace'] as const;

class LineError extends Error {}

/** Go's name for the JSON type of a value, as UnmarshalTypeError words it. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return 'number';
  if (typeof value === 'boolean') return 'bool';
  return typeof value === 'string' ? 'string' : 'object';
}

/**
 * Decodes the fields of one Go struct: strings and a readonly bool; null leaves a zero value,
 * unknown keys are ignored. The first type error wins, as Go saves the first one.
 */
function decodeFields(obj: Record<string, unknown>, strings: readonly string[], structName: string, path: string): Partial<PolicySpec> {
  const out: Record<string, unknown> = {};
  let firstError: string | undefined;
  for (const [key, value] of Object.entries(obj)) {
    const isString = strings.includes(key);
    if (!isString && key !== 'readonly') continue;
    if (value === null) continue;
    const want = isString ? 'string' : 'bool';
    if (jsonKind(value) !== want) {
      firstError ??= `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${structName}.${path}${key} of type ${want}`;
      continue;
    }
    out[key] = value;
  }
  if (firstError) throw new LineError(firstError);
  return out as Partial<PolicySpec>;
}

function emptySpec(): PolicySpec {
  return { user: '', group: '', readonly: false, apiGroup: '', resource: '', namespace: '', nonResourcePath: '' };
}

/** v1beta1 into the internal form: only "*" subjects change. */
function fromV1beta1(obj: Record<string, unknown>): PolicySpec {
  const raw = obj.spec;
  const spec = emptySpec();
  if (raw !== undefined && raw !== null) {
    if (typeof raw !== 'object' || Array.isArray(raw)) throw new LineError(`json: cannot unmarshal ${jsonKind(raw)} into Go struct field Policy.spec of type v1beta1.PolicySpec`);
    Object.assign(spec, decodeFields(raw as Record<string, unknown>, STRING_FIELDS, 'PolicySpec', 'spec.'));
  }
  if (spec.user === '*' || spec.group === '*') {
    spec.group = ALL_AUTHENTICATED;
    spec.user = '';
  }
  return spec;
}

/** The unversioned form: flat fields, and empty ones widened as kube's v0 conversion widens them. */
function fromV0(obj: Record<string, unknown>): PolicySpec {
  const v0 = { ...emptySpec(), ...decodeFields(obj, V0_STRING_FIELDS, 'Policy', '') };
  const spec: PolicySpec = { ...emptySpec(), user: v0.user, group: v0.group, namespace: v0.namespace, resource: v0.resource, readonly: v0.readonly };
  if (v0.user === '' && v0.group === '') spec.group = ALL_AUTHENTICATED;
  if (v0.user === '*' || v0.group === '*') {
    spec.group = ALL_AUTHENTICATED;
    spec.user = '';
  }
  if (v0.namespace === '') spec.namespace = '*';
  if (v0.resource === '') spec.resource = '*';
  spec.apiGroup = '*';
  if (v0.namespace === '' && v0.resource === '') spec.nonResourcePath = '*';
  return spec;
}

interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

const FIND_KIND_STRUCT = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/**
 * apiVersion and kind as kube's serializer reads them first: with encoding/json into a struct of
 * two strings, so keys match without regard to case and the last one wins.
 */
function interpret(value: unknown): GroupVersionKind {
  const fail = (why: string) => new LineError(`couldn't get version/kind; json parse error: ${why}`);
  if (value === null) return { group: '', version: '', kind: '' };
  if (typeof value !== 'object' || Array.isArray(value)) throw fail(`json: cannot unmarshal ${jsonKind(value)} into Go value of type ${FIND_KIND_STRUCT}`);
  const found = { apiVersion: '', kind: '' };
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    const field = key.toLowerCase() === 'apiversion' ? 'apiVersion' : key.toLowerCase() === 'kind' ? 'kind' : undefined;
    if (!field || v === null) continue;
    if (typeof v !== 'string') throw fail(`json: cannot unmarshal ${jsonKind(v)} into Go struct field .${field} of type string`);
    found[field] = v;
  }
  // schema.ParseGroupVersion
  const gv = found.apiVersion;
  if (gv === '' || gv === '/') return { group: '', version: '', kind: found.kind };
  const slashes = gv.split('/').length - 1;
  if (slashes > 1) throw new LineError(`unexpected GroupVersion string: ${gv}`);
  const [group, version] = slashes === 0 ? ['', gv] : gv.split('/');
  return { group, version, kind: found.kind };
}

const groupVersion = (gvk: GroupVersionKind) => (gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`);

/** The versions of Policy kube's abac scheme knows, by what reads them. */
function registeredReader(gvk: GroupVersionKind): ((obj: Record<string, unknown>) => PolicySpec) | undefined {
  if (gvk.group !== GROUP || gvk.kind !== 'Policy') return undefined;
  return gvk.version === 'v1beta1' ? fromV1beta1 : gvk.version === 'v0' ? fromV0 : undefined;
}

function notRegistered(gvk: GroupVersionKind): LineError {
  return new LineError(`no kind "${gvk.kind}" is registered for version "${groupVersion(gvk)}" in scheme "${SCHEME_NAME}"`);
}

/** The line as the document kube's decoder sees: JSON when it starts with "{", else YAML converted to JSON. */
function documentOf(line: string): unknown {
  if (line.trimStart().startsWith('{')) {
    try {
      return JSON.parse(line);
    } catch {
      const syntax = goJsonSyntaxError(Buffer.from(line, 'utf8')) ?? 'unexpected end of JSON input';
      throw new LineError(`couldn't get version/kind; json parse error: ${syntax}`);
    }
  }
  try {
    return parseYaml(line, { version: '1.1' }) ?? null;
  } catch (err) {
    throw new LineError(`error converting YAML to JSON: yaml: ${(err as Error).message.split('\n')[0]}`);
  }
}

/** One policy line into its internal form, or kube's reason it does not decode. */
export function parsePolicyLine(line: string): PolicySpec {
  const value = documentOf(line);
  const gvk = interpret(value);
  const obj = (value ?? {}) as Record<string, unknown>;
  if (gvk.kind !== '' && gvk.version !== '') {
    const read = registeredReader(gvk);
    if (read) return read(obj);
  }
  // Missing version or kind, or not registered: decoded again as the unversioned v0 form, with
  // what is missing taken from it.
  const v0: GroupVersionKind = { ...gvk, kind: gvk.kind || 'Policy' };
  if (v0.version === '' && (v0.group === '' || v0.group === GROUP)) {
    v0.group = GROUP;
    v0.version = 'v0';
  }
  if (v0.version === '') throw new LineError(`Object 'apiVersion' is missing in '${line}'`);
  const read = registeredReader(v0);
  if (!read) throw notRegistered(v0);
  const policy = read(obj);
  // A v1beta1 object has no conversion into the v0 struct it was asked for.
  if (read !== fromV0) throw new LineError('converting (v1beta1.Policy) to (v0.Policy): unknown conversion');
  return policy;
}

/** The file's policies, in order; throws kube-apiserver's message for the first line that does not decode. */
export function readPolicyFile(path: string): PolicySpec[] {
  let content: Buffer;
  try {
    content = readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // A directory opens and fails at its read, which the policy reader words as a read error.
    if (code === 'EISDIR') throw new Error(`error reading policy file ${path}: ${goPathError('read', path, err)}`);
    if (code === 'ENOENT' || code === 'EACCES') throw new Error(goPathError('open', path, err));
    throw err;
  }
  const policies: PolicySpec[] = [];
  let start = 0;
  let lineNumber = 0;
  while (start < content.length) {
    const newline = content.indexOf(0x0a, start);
    const end = newline === -1 ? content.length : newline;
    // The scanner needs the whole line (and its newline) in its buffer.
    if (end - start + (newline === -1 ? 0 : 1) > MAX_SCAN_TOKEN) throw new Error(`error reading policy file ${path}: bufio.Scanner: token too long`);
    let lineBytes = content.subarray(start, end);
    if (lineBytes.length > 0 && lineBytes[lineBytes.length - 1] === 0x0d) lineBytes = lineBytes.subarray(0, lineBytes.length - 1);
    start = end + 1;
    lineNumber++;
    const line = lineBytes.toString('utf8');
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    try {
      policies.push(parsePolicyLine(line));
    } catch (err) {
      if (!(err instanceof LineError)) throw err;
      throw new Error(`error reading policy file ${path}, line ${lineNumber}: ${line}: ${err.message}`);
    }
  }
  return policies;
}

function subjectMatches(p: PolicySpec, user: UserInfo): boolean {
  let matched = false;
  if (p.user !== '') {
    if (p.user === '*') matched = true;
    else if (p.user !== user.name) return false;
    else matched = true;
  }
  if (p.group !== '') {
    if (p.group === '*') matched = true;
    else if (!user.groups.includes(p.group)) return false;
    else matched = true;
  }
  return matched;
}

const isReadOnly = (verb: string) => verb === 'get' || verb === 'list' || verb === 'watch';

function resourceMatches(p: PolicySpec, a: Attributes): boolean {
  return (
    a.isResourceRequest &&
    (p.namespace === '*' || p.namespace === a.namespace) &&
    (p.resource === '*' || p.resource === a.resource) &&
    (p.apiGroup === '*' || p.apiGroup === a.apiGroup)
  );
}

function nonResourceMatches(p: PolicySpec, a: Attributes): boolean {
  if (a.isResourceRequest) return false;
  if (p.nonResourcePath === '*' || p.nonResourcePath === a.path) return true;
  return p.nonResourcePath.endsWith('*') && a.path.startsWith(p.nonResourcePath.replace(/\*+$/, ''));
}

function matches(p: PolicySpec, a: Attributes): boolean {
  if (!subjectMatches(p, a.user)) return false;
  if (p.readonly && !isReadOnly(a.verb)) return false;
  return resourceMatches(p, a) || nonResourceMatches(p, a);
}

const verbsFor = (readonly: boolean) => (readonly ? ['get', 'list', 'watch'] : ['*']);

export class AbacAuthorizer implements Authorizer, RuleResolver {
  constructor(private readonly policies: PolicySpec[]) {}

  static fromFile(path: string): AbacAuthorizer {
    return new AbacAuthorizer(readPolicyFile(path));
  }

  authorize(a: Attributes): AuthorizationResult {
    for (const p of this.policies) if (matches(p, a)) return { decision: 'allow', reason: '' };
    return { decision: 'noOpinion', reason: 'No policy matched.' };
  }

  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const resourceRules: ResourceRuleInfo[] = [];
    const nonResourceRules: NonResourceRuleInfo[] = [];
    for (const p of this.policies) {
      if (!subjectMatches(p, user) || (p.namespace !== '*' && p.namespace !== namespace)) continue;
      if (p.resource !== '') resourceRules.push({ verbs: verbsFor(p.readonly), apiGroups: [p.apiGroup], resources: [p.resource] });
      if (p.nonResourcePath !== '') nonResourceRules.push({ verbs: verbsFor(p.readonly), nonResourceURLs: [p.nonResourcePath] });
    }
    return { resourceRules, nonResourceRules, incomplete: false };
  }
}
